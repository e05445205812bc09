import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import Sluice
import SluiceFeed
import SluiceHummingbird
import Testing

extension OverLoopback {
    /// Several topics on one connection, over real sockets: served by a route's task and from the
    /// event loop (`.eventStreams`), each event named by its topic with the connection's cursor as
    /// its id; a reconnect with the cursor gets exactly what each topic missed; a cursor whose epoch
    /// is wrong for one topic resets that topic alone; every topic is authorized, and one refused
    /// topic refuses the request; the topic limit; WebSocket subscriptions while events flow.
    @Suite struct TopicListStreamTests {
        typealias Topics = TopicFeeds

        /// The events of `topic` a client got, as their data.
        private func data(_ frames: [SSEFrame], of topic: String) -> [String] {
            frames.filter { $0.isTopicEvent && $0.event == topic }.flatMap(\.data)
        }

        @Test(arguments: [false, true]) func oneConnectionFollowsSeveralTopicsAndResumesEachExactly(fromTheEventLoop: Bool) async throws {
            let topics = Topics(["a", "b", "c"])
            let streams = TopicEventStreams(feeds: { try topics.feed($0) })
            let router = Router()
            router.get("events") { request, _ in await streams.response(to: request, topics: TopicEventStreams<ServerSentEvent>.topics(of: request)) }
            let server: HTTPServerBuilder = fromTheEventLoop ? .eventStreams([.topicList(streams, at: "events")]) : .http1()
            try await withServer(router, server: server) { port, _ in
                let path = "/events?topic=a&topic=b&topic=c"
                let client = try await SSEClient.connect(port: port, path: path)
                #expect(await waitUntil { topics.feeds.values.allSatisfy { $0.stats.connectedClients == 1 } })
                for i in 1...3 {
                    for topic in ["a", "b", "c"] { topics.send(topic, "\(topic)\(i)") }
                }
                #expect(await client.wait { $0.filter(\.isTopicEvent).count == 9 })
                #expect(client.status == .ok)
                for topic in ["a", "b", "c"] { #expect(data(client.frames, of: topic) == ["\(topic)1", "\(topic)2", "\(topic)3"]) }
                // Every id is the cursor: where the connection stands in each topic.
                let last = try #require(client.frames.last(where: \.isTopicEvent)?.rawID)
                let cursor = try #require(TopicCursor(last, topics: ["a", "b", "c"]))
                #expect(cursor.positions.map(\.position) == [3, 3, 3])
                #expect(cursor.positions.map(\.epoch) == ["a", "b", "c"].map { topics.feeds[$0]!.lastEventID.epoch })
                await client.close()
                #expect(await waitUntil { topics.feeds.values.allSatisfy { $0.stats.connectedClients == 0 } })

                // Missed while away: two of a, none of b, one of c.
                topics.send("a", "a4")
                topics.send("a", "a5")
                topics.send("c", "c4")
                let back = try await SSEClient.connect(port: port, path: path, lastEventID: last)
                #expect(await back.wait { $0.filter(\.isTopicEvent).count == 3 })
                #expect(await waitUntil { topics.feeds.values.allSatisfy { $0.stats.connectedClients == 1 } })
                topics.send("b", "b4")
                #expect(await back.wait { $0.filter(\.isTopicEvent).count == 4 })
                #expect(data(back.frames, of: "a") == ["a4", "a5"])
                #expect(data(back.frames, of: "b") == ["b4"])
                #expect(data(back.frames, of: "c") == ["c4"])
                #expect(!back.frames.contains { $0.event == "reset" })
                let now = try #require(back.frames.last(where: \.isTopicEvent)?.rawID)
                await back.close()

                // A cursor whose epoch is wrong for b alone: b is reset (named), a and c resume exactly.
                var forged = try #require(TopicCursor(now, topics: ["a", "b", "c"]))
                forged.positions[1] = EventID(epoch: "elsewhere", position: 2)
                topics.send("c", "c5")
                let reset = try await SSEClient.connect(port: port, path: path, lastEventID: forged.description)
                #expect(await reset.wait { frames in frames.contains { $0.event == "reset" } && frames.contains(where: \.isTopicEvent) })
                #expect(reset.frames.filter { $0.event == "reset" }.map(\.data) == [["{\"topic\":\"b\",\"missed\":null}"]])
                #expect(data(reset.frames, of: "c") == ["c5"])
                #expect(data(reset.frames, of: "a").isEmpty && data(reset.frames, of: "b").isEmpty)
                // The reset's own id is the cursor with b where it now stands: a browser that
                // reconnects right after it is not reset again, and misses nothing of b.
                let afterReset = try #require(reset.frames.first { $0.event == "reset" }?.rawID)
                let resetCursor = try #require(TopicCursor(afterReset, topics: ["a", "b", "c"]))
                #expect(resetCursor.positions[1] == topics.feeds["b"]!.lastEventID)
                #expect(resetCursor.positions[0] == forged.positions[0])
                await reset.close()
                #expect(await waitUntil { topics.feeds.values.allSatisfy { $0.stats.connectedClients == 0 } })
                topics.send("b", "b5")
                let again = try await SSEClient.connect(port: port, path: path, lastEventID: afterReset)
                // c5 again only if the reset came before it on that connection (the cursor says where c stood).
                let cAgain = resetCursor.positions[2].position < topics.feeds["c"]!.lastEventID.position ? ["c5"] : []
                #expect(await again.wait { $0.filter(\.isTopicEvent).count == 1 + cAgain.count })
                #expect(data(again.frames, of: "b") == ["b5"])
                #expect(data(again.frames, of: "c") == cAgain)
                #expect(!again.frames.contains { $0.event == "reset" })
                await again.close()
            }
        }

        @Test(arguments: [false, true]) func everyTopicIsAuthorizedAndTheListIsBounded(fromTheEventLoop: Bool) async throws {
            let topics = Topics(["public", "staff", "odd"])
            let streams = TopicEventStreams(feeds: { try topics.feed($0) }, maximumTopics: 3) { request, topic in
                guard let user = request.headers[.authorization] else { return .unauthorized }
                if topic == "staff", user != "boss" { return .forbidden }
                if topic == "odd" { return .allowed { Int($0.data)! % 2 == 1 } }
                return .allowed
            }
            let router = Router()
            router.get("events") { request, _ in await streams.response(to: request, topics: TopicEventStreams<ServerSentEvent>.topics(of: request)) }
            let server: HTTPServerBuilder = fromTheEventLoop ? .eventStreams([.topicList(streams, at: "events")]) : .http1()
            try await withServer(router, server: server) { port, _ in
                func connect(_ query: String, as user: String?) async throws -> SSEClient {
                    try await SSEClient.connect(port: port, path: "/events?\(query)", headers: user.map { [("Authorization", $0)] } ?? [])
                }
                /// A refused request's status and text.
                func refusal(_ query: String, as user: String?) async throws -> (Int, String) {
                    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/events?\(query)")!)
                    if let user { request.setValue(user, forHTTPHeaderField: "Authorization") }
                    let (body, response) = try await URLSession.shared.data(for: request)
                    return ((response as! HTTPURLResponse).statusCode, String(decoding: body, as: UTF8.self))
                }
                #expect(try await refusal("topic=public&topic=odd", as: nil) == (401, "not authenticated\n"))
                #expect(try await refusal("topic=public&topic=staff", as: "clerk") == (403, "not allowed to read staff\n"))
                #expect(try await refusal("topic=public&topic=nowhere", as: "boss") == (503, "the events of nowhere are unavailable; try again\n"))
                #expect(try await refusal("topic=public&topic=staff&topic=odd&topic=more", as: "boss")
                        == (400, "4 topics asked for; a connection follows at most 3\n"))
                #expect(try await refusal("other=1", as: "boss") == (400, "name at least one topic: ?topic=<name>\n"))
                #expect(try await refusal("topic=public&topic=reset", as: "boss")
                        == (400, "a stream of several topics cannot follow a topic named reset\n"))
                #expect(topics.feeds.values.allSatisfy { $0.stats.connectedClients == 0 })   // no stream started

                // Allowed: each topic's own filter applies.
                let boss = try await connect("topic=staff&topic=odd&topic=public", as: "boss")
                #expect(await waitUntil { topics.feeds.values.allSatisfy { $0.stats.connectedClients == 1 } })
                for i in 1...4 { topics.send("odd", "\(i)") }
                topics.send("staff", "memo")
                topics.send("public", "news")
                #expect(await boss.wait { $0.filter(\.isTopicEvent).count == 4 })
                #expect(data(boss.frames, of: "odd") == ["1", "3"])
                #expect(data(boss.frames, of: "staff") == ["memo"])
                #expect(data(boss.frames, of: "public") == ["news"])
                await boss.close()
            }
        }

        @Test func theCursorRoundTripsAndRefusesAnotherList() throws {
            let ids = [EventID(epoch: "x1", position: 4), EventID(epoch: "x1", position: 9), EventID(epoch: "y", position: 0)]
            let cursor = TopicCursor(topics: ["a", "b", "c"], positions: ids)
            #expect(cursor.description.hasSuffix("/x1-4,9,y-0"))
            #expect(TopicCursor(cursor.description, topics: ["a", "b", "c"]) == cursor)
            #expect(TopicCursor(cursor.description, topics: ["b", "a", "c"]) == nil)   // another order
            #expect(TopicCursor(cursor.description, topics: ["a", "b"]) == nil)
            #expect(TopicCursor("x1-4", topics: ["a"])?.positions == [ids[0]])      // a plain id, for a list of one
            #expect(TopicCursor.resumePoints(lastEventID: "garbage", topics: ["a", "b"]) == [.unreadable("garbage"), .unreadable("garbage")])
            #expect(TopicCursor.resumePoints(lastEventID: nil, topics: ["a"]) == [.live])
            // The size at the limit, with the log's 12-character epochs and positions of 10 digits.
            let hundred = (0..<100).map { "topic\($0)" }
            let wide = TopicCursor(topics: hundred, positions: hundred.map { _ in EventID(epoch: EventID.randomEpoch(), position: 9_999_999_999) })
            #expect(wide.description.utf8.count <= 9 + 100 * 24)
            // Positions' digits at their bounds, written in place and read back.
            let edges: [UInt64] = [0, 9, 10, 99, 100, 999_999_999, 1_000_000_000, UInt64.max - 1, UInt64.max]
            let edgeCursor = TopicCursor(topics: edges.map { "t\($0)" }, positions: edges.map { EventID(epoch: "e", position: $0) })
            #expect(edgeCursor.description.split(separator: "/").last == Substring("e-" + edges.map(String.init).joined(separator: ",")))
            #expect(TopicCursor(edgeCursor.description, topics: edgeCursor.topics) == edgeCursor)
        }
    }
}
