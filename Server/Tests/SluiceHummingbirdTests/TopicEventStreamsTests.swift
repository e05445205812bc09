import Hummingbird
import NIOConcurrencyHelpers
import NIOHTTP1
import Sluice
import SluiceHummingbird
import Testing

extension OverLoopback {
    /// Streams by topic over real sockets: 401 and 403 from the authorization hook before any stream
    /// starts, 503 with `Retry-After` when a topic's feed cannot be had, and a per-client filter
    /// that a resuming client passes through — served by a route's task, and from the event loop
    /// (`.eventStreams`).
    @Suite struct TopicEventStreamsTests {
        struct Unavailable: Error {}

        @Test(arguments: [false, true]) func authorizesEachRequestForItsTopicAndFiltersPerClient(fromTheEventLoop: Bool) async throws {
            let subjects = ["public": PassthroughSubject<ServerSentEvent, Never>(), "staff": PassthroughSubject<ServerSentEvent, Never>()]
            let feeds = subjects.mapValues { EventFeed($0) }
            let streams = TopicEventStreams(feeds: { topic in
                guard let feed = feeds[topic] else { throw Unavailable() }
                return feed
            }) { request, topic in
                // "Authorization: <user>": anybody may read public, only "boss" staff; "odd" sees odd events only.
                guard let user = request.headers[.authorization] else { return .unauthorized }
                if topic == "staff", user != "boss" { return .forbidden }
                if user == "odd" { return .allowed { Int($0.data)! % 2 == 1 } }
                return .allowed
            }
            let router = Router()
            router.get("events/:topic") { request, context in
                await streams.response(to: request, topic: try context.parameters.require("topic"))
            }
            try await withServer(router, server: fromTheEventLoop ? .eventStreams([.topics(streams, under: "events")]) : .http1()) { port, _ in
                func connect(_ topic: String, as user: String?, after id: String? = nil) async throws -> SSEClient {
                    try await SSEClient.connect(port: port, path: "/events/\(topic)", lastEventID: id,
                                                headers: user.map { [("Authorization", $0)] } ?? [])
                }
                let nobody = try await connect("public", as: nil)
                let clerk = try await connect("staff", as: "clerk")
                let missing = try await connect("nowhere", as: "boss")
                for client in [nobody, clerk, missing] { #expect(await client.wait { _ in client.ended }) }
                #expect(nobody.status == .unauthorized && clerk.status == .forbidden && missing.status == .serviceUnavailable)
                #expect(missing.headers?["Retry-After"] == ["1"])
                #expect(feeds.values.allSatisfy { $0.stats.connectedClients == 0 })   // no stream started

                let boss = try await connect("staff", as: "boss")
                let odd = try await connect("public", as: "odd")
                let everyone = try await connect("public", as: "anyone")
                #expect(await waitUntil { feeds["staff"]!.stats.connectedClients == 1 && feeds["public"]!.stats.connectedClients == 2 })
                for i in 1...6 { subjects["public"]!.send(ServerSentEvent(data: "\(i)")) }
                subjects["staff"]!.send(ServerSentEvent(data: "memo"))
                #expect(await everyone.wait { $0.filter(\.isEvent).count == 6 })
                #expect(await odd.wait { $0.filter(\.isEvent).count == 3 })
                #expect(await boss.wait { $0.filter(\.isEvent).count == 1 })
                #expect(odd.events.map(\.data) == [["1"], ["3"], ["5"]])
                #expect(boss.events.map(\.data) == [["memo"]])
                // The filtered client resumes after the last event it saw, and skips what it may not see.
                let lastSeen = try #require(odd.events.last?.eventID)
                await odd.close()
                for i in 7...9 { subjects["public"]!.send(ServerSentEvent(data: "\(i)")) }
                let resumed = try await connect("public", as: "odd", after: lastSeen.description)
                #expect(await resumed.wait { $0.filter(\.isEvent).count == 2 })
                #expect(resumed.events.map(\.data) == [["7"], ["9"]])
                for client in [boss, everyone, resumed] { await client.close() }
            }
        }
    }
}
