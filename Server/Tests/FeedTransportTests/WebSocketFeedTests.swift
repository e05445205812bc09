import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Sluice
import SluiceFeed
import Testing

/// A feed over WebSocket (Hummingbird's or Vapor's) with hummingbird-websocket's own client, on loopback: events out as
/// messages, resume after an id, the client's messages in as a publisher, the last message and
/// the close on finish.
extension OverLoopback {
@Suite(.timeLimit(.minutes(2)))
struct WebSocketFeedTests {
    /// A client connection run in a task, recording the text messages it receives.
    final class Client: Sendable {
        let received: NIOLockedValueBox<[String]>
        let close: NIOLockedValueBox<WebSocketCloseFrame?>
        let done: NIOLockedValueBox<Bool>
        private let task: Task<Void, Never>

        init(port: Int, query: String = "", send: [String] = []) {
            let received = NIOLockedValueBox<[String]>([])
            let close = NIOLockedValueBox<WebSocketCloseFrame?>(nil)
            let done = NIOLockedValueBox(false)
            var logger = Logger(label: "ws-client")
            logger.logLevel = .warning
            self.received = received
            self.close = close
            self.done = done
            task = Task { [logger] in
                let frame = try? await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/ws\(query)", logger: logger) { inbound, outbound, _ in
                    for text in send { try await outbound.write(.text(text)) }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { received.withLockedValue { $0.append(text) } }
                    }
                }
                close.withLockedValue { $0 = frame }
                done.withLockedValue { $0 = true }
            }
        }

        var messages: [String] { received.withLockedValue { $0 } }
        func cancel() { task.cancel() }
    }

    @Test(arguments: Transport.allCases) func sendsEventsResumesAndReceivesTheClientsMessages(transport: Transport) async throws {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject)
        let socket = FeedSocketStream(feed: feed) { _, text in .text(text) }
        let heard = NIOLockedValueBox<[String]>([])
        try await withFeedServer(transport, Endpoints(socket: socket, heard: heard)) { port, _ in
            let first = Client(port: port, send: ["hello", "there"])
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            for text in ["a", "b", "c"] { subject.send(text) }
            #expect(await waitUntil { first.messages.count == 3 })
            #expect(first.messages == ["a", "b", "c"])
            #expect(await waitUntil { heard.withLockedValue { $0 } == ["hello", "there"] })

            let resumed = Client(port: port, query: "?lastEventId=\(feed.id(1))")
            #expect(await waitUntil { resumed.messages.count == 2 })
            subject.send("d")
            #expect(await waitUntil { resumed.messages.count == 3 && first.messages.count == 4 })
            #expect(resumed.messages == ["b", "c", "d"])

            feed.finish(reason: "maintenance")
            let last = #"{"event":"shutdown","reason":"maintenance"}"#
            #expect(await waitUntil { first.done.withLockedValue { $0 } && resumed.done.withLockedValue { $0 } })
            #expect(first.messages.last == last && resumed.messages.last == last)
            #expect(first.close.withLockedValue { $0 }?.closeCode == .goingAway)
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }

    @Test(arguments: Transport.allCases) func aResetSaysWhereTheClientStandsAndResumingThereIsNotResetAgain(transport: Transport) async throws {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject, options: .init(replay: 4))
        let socket = FeedSocketStream(feed: feed) { _, text in .text(text) }
        try await withFeedServer(transport, Endpoints(socket: socket)) { port, _ in
            for i in 1...20 { subject.send("e\(i)") }   // 17...20 kept
            let old = Client(port: port, query: "?lastEventId=\(feed.id(3))")
            #expect(await waitUntil { old.messages.count == 5 })
            // Before 17, the first replayed: 16 events from 4 on were missed.
            #expect(old.messages == [#"{"event":"reset","id":"\#(feed.id(16))","missed":13}"#, "e17", "e18", "e19", "e20"])
            let unknown = Client(port: port, query: "?lastEventId=\(feed.id(99))")
            #expect(await waitUntil { unknown.messages.count == 1 })
            #expect(unknown.messages == [#"{"event":"reset","id":"\#(feed.id(20))","missed":null}"#])
            // Resuming at the reset's id: what followed it, no second reset.
            let again = Client(port: port, query: "?lastEventId=\(feed.id(16))")
            #expect(await waitUntil { again.messages.count == 4 })
            #expect(again.messages == ["e17", "e18", "e19", "e20"])
            for client in [old, unknown, again] { client.cancel() }
        }
    }

    /// The socket is served after its upgrade has been answered: an event sent in between (here,
    /// as the upgrade is decided) still reaches the new client, whose start the upgrade fixed.
    @Test(arguments: Transport.allCases) func aNewClientGetsWhatTheFeedSentBetweenItsUpgradeAndItsConnection(transport: Transport) async throws {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject)
        subject.send("before")
        let socket = FeedSocketStream(feed: feed) { _, text in .text(text) }
        let upgrading: @Sendable () -> Void = { subject.send("during the upgrade") }
        try await withFeedServer(transport, Endpoints(socket: socket, upgrading: upgrading)) { port, _ in
            let client = Client(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            subject.send("after")
            #expect(await waitUntil { client.messages.count == 2 })
            #expect(client.messages == ["during the upgrade", "after"])
            client.cancel()
            #expect(await waitUntil { feed.stats.connectedClients == 0 })
        }
    }

    @Test(arguments: Transport.allCases) func aClientThatLeavesIsGoneFromTheFeed(transport: Transport) async throws {
        let subject = PassthroughSubject<String, Never>()
        let feed = EventFeed(subject)
        let socket = FeedSocketStream(feed: feed) { _, text in .text(text) }
        // Nobody subscribes to the client's messages: the server still sees it leave.
        try await withFeedServer(transport, Endpoints(socket: socket)) { port, _ in
            let client = Client(port: port)
            #expect(await waitUntil { feed.stats.connectedClients == 1 })
            subject.send("x")
            #expect(await waitUntil { client.messages == ["x"] })
            client.cancel()   // the client's handler ends: it closes the connection
            #expect(await waitUntil { feed.stats.connectedClients == 0 }, "\(feed.stats)")
        }
    }
}
}
