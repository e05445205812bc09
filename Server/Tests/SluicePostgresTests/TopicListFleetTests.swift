import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import ServerTestSupport
import SluiceFeed
import Testing

/// Several topics on one connection across two `sluice-feed --postgres` instances over the real
/// PostgreSQL: events posted to each topic on both instances reach one SSE connection on one of
/// them, named by topic; the connection moves to the other instance with the browser's
/// `Last-Event-ID` (the cursor) and gets exactly what each topic missed — counted per topic; a
/// cursor with one topic's epoch unknown resets that topic alone; a WebSocket subscribes and
/// unsubscribes while events flow.
@Suite(.timeLimit(.minutes(5))) struct TopicListFleetTests {
    /// Appends `text` to `topic` through `port`'s `POST /events/{topic}`; its id.
    static func post(_ text: String, to topic: String, port: Int) async throws -> String {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/events/\(topic)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(text.utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode
        guard status == 202 else { throw FleetFailure("POST /events/\(topic): \(status ?? 0) \(String(decoding: body, as: UTF8.self))") }
        return String(decoding: body, as: UTF8.self)
    }

    private func data(_ frames: [SSEFrame], of topic: String) -> [String] {
        frames.filter { $0.isTopicEvent && $0.event == topic }.flatMap(\.data)
    }

    @Test func oneConnectionOfThreeTopicsMovesBetweenInstancesAndGetsExactlyWhatEachMissed() async throws {
        let run = UUID().uuidString.prefix(8).lowercased()
        let names = ["orders-\(run)", "chat-\(run)", "prices-\(run)"]
        let a = try await Instance.start("TA")
        let b: Instance
        do { b = try await Instance.start("TB") } catch {
            await a.stop()
            throw error
        }
        do {
            let path = "/events?" + names.map { "topic=\($0)" }.joined(separator: "&")
            let first = try await SSEClient.connect(port: a.port, path: path)
            #expect(await first.wait { _ in first.status != nil })
            #expect(first.status == .ok)
            // Three events of each topic, posted alternately to A and B.
            for i in 1...3 {
                for (index, name) in names.enumerated() {
                    _ = try await Self.post("\(name):\(i)", to: name, port: (index + i) % 2 == 0 ? a.port : b.port)
                }
            }
            #expect(await first.wait { $0.filter(\.isTopicEvent).count == 9 })
            for name in names { #expect(data(first.frames, of: name) == (1...3).map { "\(name):\($0)" }) }
            let cursor = try #require(first.frames.last(where: \.isTopicEvent)?.rawID)
            await first.close()

            // Missed while moving: two of the first topic, none of the second, one of the third.
            _ = try await Self.post("\(names[0]):4", to: names[0], port: b.port)
            _ = try await Self.post("\(names[0]):5", to: names[0], port: a.port)
            _ = try await Self.post("\(names[2]):4", to: names[2], port: a.port)
            let moved = try await SSEClient.connect(port: b.port, path: path, lastEventID: cursor)
            #expect(await moved.wait { $0.filter(\.isTopicEvent).count == 3 })
            _ = try await Self.post("\(names[1]):4", to: names[1], port: a.port)
            #expect(await moved.wait { $0.filter(\.isTopicEvent).count == 4 })
            #expect(data(moved.frames, of: names[0]) == ["\(names[0]):4", "\(names[0]):5"])
            #expect(data(moved.frames, of: names[1]) == ["\(names[1]):4"])
            #expect(data(moved.frames, of: names[2]) == ["\(names[2]):4"])
            #expect(!moved.frames.contains { $0.event == "reset" })
            let now = try #require(moved.frames.last(where: \.isTopicEvent)?.rawID)
            await moved.close()

            // Back on A with the second topic's epoch unknown: that topic is reset, the others resume.
            var forged = try #require(TopicCursor(now, topics: names))
            forged.positions[1] = EventID(epoch: "gone", position: 4)
            _ = try await Self.post("\(names[0]):6", to: names[0], port: b.port)
            let reset = try await SSEClient.connect(port: a.port, path: path, lastEventID: forged.description)
            #expect(await reset.wait { frames in frames.contains { $0.event == "reset" } && frames.contains(where: \.isTopicEvent) })
            #expect(reset.frames.filter { $0.event == "reset" }.count == 1)
            #expect(reset.frames.first { $0.event == "reset" }?.data.first?.contains("\"topic\":\"\(names[1])\"") == true)
            #expect(data(reset.frames, of: names[0]) == ["\(names[0]):6"])
            #expect(data(reset.frames, of: names[2]).isEmpty)
            await reset.close()

            // Over the topic limit, a 400 naming the limit; a topic outside the rule, a 400.
            let many = "/events?" + (0...100).map { "topic=t\($0)-\(run)" }.joined(separator: "&")
            let tooMany = try await get("http://127.0.0.1:\(a.port)\(many)")
            #expect(tooMany.status == 400 && tooMany.body.contains("at most 100"))
            let invalid = try await get("http://127.0.0.1:\(b.port)/events?topic=\(names[0])&topic=a%20b")
            #expect(invalid.status == 400)
        } catch {
            await a.stop()
            await b.stop()
            throw error
        }
        await a.stop()
        await b.stop()
    }

    @Test func aSocketOfTopicsSubscribesAndUnsubscribesWhileEventsFlowOnBothInstances() async throws {
        let run = UUID().uuidString.prefix(8).lowercased()
        let (x, y) = ("x-\(run)", "y-\(run)")
        let a = try await Instance.start("WA")
        let b: Instance
        do { b = try await Instance.start("WB") } catch {
            await a.stop()
            throw error
        }
        let received = NIOLockedValueBox<[String]>([])
        let (outgoing, send) = AsyncStream<String>.makeStream()
        var logger = Logger(label: "ws-client")
        logger.logLevel = .warning
        let socket = Task { [logger] in
            _ = try? await WebSocketClient.connect(url: "ws://127.0.0.1:\(a.port)/ws?topic=\(x)", logger: logger) { inbound, outbound, _ in
                let sending = Task { for await text in outgoing { try? await outbound.write(.text(text)) } }
                defer { sending.cancel() }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { received.withLockedValue { $0.append(text) } }
                }
            }
        }
        func data(of topic: String) -> [String] {
            received.withLockedValue { $0 }.compactMap { text in
                guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      object["topic"] as? String == topic, let data = object["data"] as? String else { return nil }
                return data
            }
        }
        do {
            #expect(await waitUntil { received.withLockedValue { $0 }.contains { $0.contains("\"subscribed\"") } })
            for i in 1...3 { _ = try await Self.post("x\(i)", to: x, port: i % 2 == 0 ? a.port : b.port) }
            #expect(await waitUntil { data(of: x).count == 3 })
            send.yield("{\"subscribe\":\"\(y)\"}")
            #expect(await waitUntil { received.withLockedValue { $0 }.filter { $0.contains("\"subscribed\"") }.count == 2 })
            for i in 4...6 {
                _ = try await Self.post("x\(i)", to: x, port: b.port)
                _ = try await Self.post("y\(i)", to: y, port: a.port)
            }
            #expect(await waitUntil { data(of: x).count == 6 && data(of: y).count == 3 })
            send.yield("{\"unsubscribe\":\"\(x)\"}")
            #expect(await waitUntil { received.withLockedValue { $0 }.contains { $0.contains("\"unsubscribed\"") } })
            _ = try await Self.post("x7", to: x, port: b.port)
            _ = try await Self.post("y7", to: y, port: b.port)
            #expect(await waitUntil { data(of: y).count == 4 })
            #expect(data(of: x) == (1...6).map { "x\($0)" })
            #expect(data(of: y) == (4...7).map { "y\($0)" })
        } catch {
            socket.cancel()
            send.finish()
            await a.stop()
            await b.stop()
            throw error
        }
        socket.cancel()
        send.finish()
        await a.stop()
        await b.stop()
    }
}
