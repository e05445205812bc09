import Foundation
import NIOConcurrencyHelpers
import ServerTestSupport
import Sluice
import SluiceEventSource
import Testing

/// SluiceEventSource's clients following three topics on one connection through a move between two
/// `sluice-feed --postgres` instances (on Hummingbird, and on Vapor) over the real PostgreSQL: an `EventSource` read as a
/// publisher and as an `AsyncSequence`, and an `EventSocket` of topics that subscribes to a topic
/// while connected and leaves one and joins it again after its last event. A proxy carries their
/// connections to instance A, then drops them all and carries the reconnections to B, then back to
/// A. Every client counts every event of every topic: all of them, in order, none twice, no reset.
@Suite(.timeLimit(.minutes(5))) struct SwiftClientTopicsTests {
    /// One client's events, per topic: the numbers of the measured events (`<topic>:<n>`); warm-up
    /// events (`<topic>:warm`) are only seen.
    final class Counts: Sendable {
        private let state = NIOLockedValueBox((numbers: [String: [Int]](), warm: Set<String>(), lastID: [String: String](),
                                               resets: 0, ended: ""))

        func take(_ event: EventSource.Event) {
            state.withLockedValue { state in
                switch event {
                case .event(let message):
                    guard let topic = message.topic else { return }
                    state.lastID[topic] = message.topicEventID
                    if message.data == "\(topic):warm" { state.warm.insert(topic); return }
                    state.numbers[topic, default: []].append(Int(message.data.split(separator: ":").last ?? "") ?? -1)
                case .reset, .topicReset: state.resets += 1
                default: break
                }
            }
        }

        func ended(_ how: String) { state.withLockedValue { $0.ended = how } }
        func numbers(_ topic: String) -> [Int] { state.withLockedValue { $0.numbers[topic] ?? [] } }
        func sawWarmUp(_ topic: String) -> Bool { state.withLockedValue { $0.warm.contains(topic) } }
        func lastID(_ topic: String) -> String? { state.withLockedValue { $0.lastID[topic] } }
        var resets: Int { state.withLockedValue { $0.resets } }
        var ending: String { state.withLockedValue { $0.ended } }
    }

    /// On Hummingbird (its event-loop path for the streams) and on Vapor.
    @Test(arguments: ["hummingbird", "vapor"])
    func threeTopicsOnOneConnectionMoveBetweenInstancesAndEachTopicGetsEveryEventOnce(framework: String) async throws {
        let run = UUID().uuidString.prefix(8).lowercased()
        let topics = ["orders-\(run)", "chat-\(run)", "prices-\(run)"]
        let a = try await Instance.start("SA-\(framework)", arguments: ["--framework", framework])
        let b: Instance
        do { b = try await Instance.start("SB-\(framework)", arguments: ["--framework", framework]) } catch {
            await a.stop()
            throw error
        }
        let target = NIOLockedValueBox(a.port)
        let proxy: FreezingProxy
        do { proxy = try await FreezingProxy { target.withLockedValue { $0 } } } catch {
            await a.stop()
            await b.stop()
            throw error
        }
        // Reconnect soon after a move (the server's `retry:` of 3 s would be slow for a test).
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(200), maximumBackoff: .seconds(1))
        let events = URL(string: "http://127.0.0.1:\(proxy.port)/events")!
        let source = EventSource(url: events, topics: topics, configuration: configuration)
        // The socket starts with two topics and subscribes to the third once it is connected.
        let socket = EventSocket(url: URL(string: "ws://127.0.0.1:\(proxy.port)/ws")!, topics: Array(topics.prefix(2)),
                                 configuration: configuration)
        let (published, sequence, socketed) = (Counts(), Counts(), Counts())
        let clients = [("publisher", published), ("async", sequence), ("socket", socketed)]

        let cancellable = source.sink(receiveCompletion: { published.ended("\($0)") }, receiveValue: { published.take($0) })
        let reading = Task {
            do {
                for try await event in source.events { sequence.take(event) }
                sequence.ended("finished")
            } catch {
                sequence.ended("\(error)")
            }
        }
        let socketReading = Task {
            do {
                for try await event in socket.events { socketed.take(event) }
                socketed.ended("finished")
            } catch {
                socketed.ended("\(error)")
            }
        }
        func post(_ text: String, to topic: String, port: Int) async throws {
            _ = try await TopicListFleetTests.post(text, to: topic, port: port)
        }
        /// Posts `numbers` of every topic, alternately through A and B.
        func post(_ numbers: ClosedRange<Int>) async throws {
            for n in numbers {
                for (index, topic) in topics.enumerated() {
                    try await post("\(topic):\(n)", to: topic, port: (n + index) % 2 == 0 ? a.port : b.port)
                }
            }
        }
        func everyoneHas(_ count: Int) async -> Bool {
            await waitUntil { clients.allSatisfy { _, counts in topics.allSatisfy { counts.numbers($0).count >= count } } }
        }

        do {
            // Warm-up: each topic's events until every client has one of each, so that each
            // client's subscriptions are in place before the measured events; the socket subscribes
            // to the third topic once it has an event of the first (it is connected).
            var subscribed = false
            let warm = await waitUntil {
                if !subscribed, socketed.sawWarmUp(topics[0]) {
                    socket.subscribe(topics[2])
                    subscribed = true
                }
                return clients.allSatisfy { _, counts in topics.allSatisfy(counts.sawWarmUp) }
            } orEach: {
                for topic in topics { try? await post("\(topic):warm", to: topic, port: a.port) }
            }
            #expect(warm, "the clients did not all follow the three topics")
            #expect(socket.topics == topics)

            // On A.
            try await post(1...4)
            #expect(await everyoneHas(4))
            // Moved to B: what was posted meanwhile is each topic's to resume.
            target.withLockedValue { $0 = b.port }
            proxy.dropAll()
            try await post(5...8)
            #expect(await everyoneHas(8))
            // The socket leaves the second topic while its events are posted, then joins it again
            // after its last event: it gets what it missed, once.
            let last = try #require(socketed.lastID(topics[1]))
            socket.unsubscribe(topics[1])
            try await post(9...10)
            socket.subscribe(topics[1], after: last)
            #expect(await everyoneHas(10))
            // Back to A.
            target.withLockedValue { $0 = a.port }
            proxy.dropAll()
            try await post(11...13)
            #expect(await everyoneHas(13))

            for (name, counts) in clients {
                for topic in topics {
                    #expect(counts.numbers(topic) == Array(1...13), "\(name), \(topic): \(counts.numbers(topic))")
                }
                #expect(counts.resets == 0, "\(name) was reset")
                #expect(counts.ending.isEmpty, "\(name) ended: \(counts.ending)")
            }
            // Moved: connections were carried to both instances.
            #expect(Set(proxy.connectionTargets) == [a.port, b.port])
        } catch {
            cancellable.cancel()
            reading.cancel()
            socketReading.cancel()
            await proxy.close()
            await a.stop()
            await b.stop()
            throw error
        }
        cancellable.cancel()
        reading.cancel()
        socketReading.cancel()
        await proxy.close()
        await a.stop()
        await b.stop()
    }
}

/// Whether `condition` becomes true within `timeout` seconds, running `step` between checks (every
/// 200 ms).
private func waitUntil(timeout: Double = 60, _ condition: () -> Bool, orEach step: () async -> Void) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        await step()
        try? await Task.sleep(for: .milliseconds(200))
    }
    return true
}
