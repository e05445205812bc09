import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import Sluice
import SluiceNIO
import SluicePostgres
import Testing

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
}
