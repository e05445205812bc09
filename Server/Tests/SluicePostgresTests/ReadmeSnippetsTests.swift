import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import Sluice
import SluiceNIO
import SluicePostgres
import Testing
import Hummingbird
import Logging
import ServerTestSupport
import SluiceFeed
import SluiceHummingbird

/// The snippets of Server/README.md ("Sluice on a SwiftNIO server"), as they are written there,
/// with what they print checked.
@Suite struct ReadmeSnippetsTests {
    @Test func schedulerSnippet() async throws {
        let printed = Shared<[String]>([])
        func print(_ items: Any...) { printed.mutate { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }

        // README: "An event loop as a scheduler"
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let scheduler = EventLoopScheduler(loop)
        let searches = PassthroughSubject<String, Never>()
        let cancellable = searches
            .debounce(for: .milliseconds(50), scheduler: scheduler)   // the loop's timers
            .sink { query in
                loop.preconditionInEventLoop()                        // delivered on the loop
                print("search for", query)
            }
        searches.send("s")
        searches.send("sl")
        searches.send("sluice")                                       // prints "search for sluice", once

        await waitUntil { !printed.value.isEmpty }
        try await loop.scheduleTask(in: .milliseconds(60)) {}.futureResult.get()
        #expect(printed.value == ["search for sluice"])
        cancellable.cancel()
    }

    @Test func futureSnippet() async throws {
        let printed = Shared<[String]>([])
        func print(_ items: Any...) { printed.mutate { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }

        // README: "Futures and publishers"
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let answer: EventLoopFuture<Int> = loop.submit { 6 * 7 }
        let cancellable = answer.publisher                            // subscribes lazily, honours demand
            .map { $0 + 1 }
            .sink(receiveCompletion: { print("completion:", $0) }, receiveValue: { print($0) })   // 43, then finished

        let greeting: EventLoopFuture<String> = Just("hello").firstValueFuture(on: loop)
        print(try await greeting.get())                               // hello

        await waitUntil { printed.value.count == 3 }
        #expect(Set(printed.value) == ["43", "completion: finished", "hello"])
        cancellable.cancel()
    }

    @Test func notificationsSnippet() async throws {
        let printed = Shared<[String]>([])
        func print(_ items: Any...) { printed.mutate { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }
        let channel = TestDatabase.channel("orders")
        let configuration = try TestDatabase.configuration()

        // README: "One instance's events, every instance's subscribers"
        struct Order: Codable, Sendable { var id: Int; var total: Double }

        let listening = PostgresNotifications(channel: channel, configuration: configuration, as: Order.self)
            .sink(receiveCompletion: { print("stopped:", $0) }) { event in
                switch event {
                case .listening: print("listening")
                case .notification(let order): print("order", order.id, order.total)
                case .gap(let gap): print("may have missed orders:", gap)   // refetch what matters
                case .undecodable(let text, _): print("not an order:", text)
                }
            }

        await waitUntil { printed.value == ["listening"] }   // (the test waits for LISTEN to be in place)

        let orders = PassthroughSubject<Order, Never>()
        let notifier = orders.notifyPostgres(channel: channel, configuration: configuration)   // as JSON
        orders.send(Order(id: 1, total: 9.5))                         // on every instance: "order 1 9.5"

        await waitUntil { printed.value.count == 2 }
        #expect(printed.value == ["listening", "order 1 9.5"])
        listening.cancel()
        notifier.cancel()
    }

    @Test func eventLogSnippet() async throws {
        let printed = Shared<[String]>([])
        func print(_ items: Any...) { printed.mutate { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }
        let settings = try TestDatabase.clientConfiguration()
        let logger = Logger(label: "app")

        // README: "A fleet that loses nothing: the event log"
        let postgres = PostgresClient(configuration: .init(host: "127.0.0.1", port: settings.port!, username: settings.username,
                                                           password: settings.password, database: settings.database, tls: .disable))
        let running = Task { await postgres.run() }                  // (an app runs it in its ServiceGroup)
        defer { running.cancel() }
        let log = PostgresEventLog(client: postgres)                  // makes its tables if missing (or: log.migrationSQL)
        try await postgres.query("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY, total float8)", logger: logger)
        try await postgres.query("DELETE FROM orders", logger: logger)
        let before = try await log.head(of: "orders")

        // The order and its event are committed together, or neither is.
        let id = try await log.withTransaction { connection in
            try await connection.query("INSERT INTO orders (id, total) VALUES (\(42), \(9.5))", logger: logger)
            return try await log.append(#"{"order":42}"#, to: "orders", on: connection)
        }
        print("event", id)                                            // event <epoch>-<position>, the same on every instance

        // Every instance: one listener, a feed per topic, served as Server-Sent Events.
        let listener = PostgresEventLogListener(log: log)            // a Service
        let feeds = PostgresTopicFeeds(listener: listener) { ServerSentEvent(data: $0) }   // a Service
        let streams = TopicEventStreams(feeds: { try await feeds.feed(of: $0) })
        let router = Router()
        router.get("events/:topic") { request, context in
            await streams.response(to: request, topic: try context.parameters.require("topic"))
        }

        // (The test: the commit, a rollback, and a browser-like client that resumes after the event.)
        #expect(printed.value == ["event \(id)"])
        #expect(id.position == before.position + 1 && (before.isOrigin || id.epoch == before.epoch))
        struct Declined: Error {}
        await #expect(throws: Declined.self) {   // the body's own error, after the rollback
            try await log.withTransaction { connection in
                try await connection.query("INSERT INTO orders (id, total) VALUES (\(43), \(1.0))", logger: logger)
                try await log.append(#"{"order":43}"#, to: "orders", on: connection)
                throw Declined()
            }
        }
        #expect(try await TestDatabase.run("SELECT id::text FROM orders") == ["42"])
        #expect(try await log.head(of: "orders") == id)
        let listening = Task { try await listener.run() }
        defer { listening.cancel() }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in printed.mutate { $0.append("port \(channel.localAddress!.port!)") } })
        let serving = Task { try await app.runService() }
        defer { serving.cancel() }
        await waitUntil { printed.value.count == 2 }
        let port = Int(printed.value[1].dropFirst(5))!
        let client = try await SSEClient.connect(port: port, path: "/events/orders", lastEventID: EventID(
            epoch: before.epoch, position: before.position).description)
        #expect(await client.wait { $0.contains(where: \.isEvent) })
        #expect(client.events.map(\.withoutEpoch) == [SSEFrame(id: id.position, data: [#"{"order":42}"#])])
        #expect(client.events.first?.eventID == id)
        await client.close()
    }

    @Test func idempotentProducerSnippet() async throws {
        let printed = Shared<[String]>([])
        func print(_ items: Any...) { printed.mutate { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }
        try await TestDatabase.withLog { log in
            // README: "A fleet that loses nothing: the event log" (the idempotent producer)
            // A producer that retries after an unknown outcome: one event, whatever the network did.
            let key = "order-42-created"
            let first = try await log.append(#"{"order":42}"#, to: "orders", idempotencyKey: key)
            let again = try await log.append(#"{"order":42}"#, to: "orders", idempotencyKey: key)
            print(again == first)                                         // true: the same id, no second event

            #expect(printed.value == ["true"])
            #expect(try await log.head(of: "orders") == first)
            let readme = try String(contentsOfFile: #filePath.replacingOccurrences(
                of: "Tests/SluicePostgresTests/ReadmeSnippetsTests.swift", with: "README.md"), encoding: .utf8)
            #expect(readme.contains("""
                let key = "order-42-created"
                let first = try await log.append(#"{"order":42}"#, to: "orders", idempotencyKey: key)
                let again = try await log.append(#"{"order":42}"#, to: "orders", idempotencyKey: key)
                print(again == first)                                         // true: the same id, no second event
                """))
        }
    }
}
