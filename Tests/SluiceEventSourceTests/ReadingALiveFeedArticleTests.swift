import Foundation
import SluiceEventSource
import Testing
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

/// The code of the article "Reading a live feed from Swift", run as the article shows it: each
/// snippet below sits between `// Article: begin` and `// Article: end`, and the article has it
/// as written (less the indentation).
@Suite("Reading a live feed from Swift", .serialized, .timeLimit(.minutes(1)))
struct ReadingALiveFeedArticleTests {
    /// A feed of prices that goes through a restart: a price, a `reset`, another price.
    private func pricesServer() throws -> LoopbackServer {
        try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.writeStreamHead()
                connection.write("retry: 10\n\nid: a-1\nevent: price\ndata: 101\n\nid: a-2\nevent: volume\ndata: 7\n\n"
                                 + "event: shutdown\ndata: restarting\n\n")
                connection.close()
            case 1:
                connection.writeStreamHead()
                connection.write("event: reset\ndata: {\"missed\":null}\n\nid: b-1\nevent: price\ndata: 102\n\n")
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
    }

    @Test func theCombinePipelineRuns() async throws {
        let server = try pricesServer()
        let url = server.url("/events/prices")
        let shown = Recorder<String>()
        let reloads = Recorder<Int>()
        func show(_ text: String) { shown.append(text) }
        func reloadPrices() { reloads.append(1) }

        // Article: begin
        let cancellable = EventSource(url: url)
            .compactMap { event -> String? in
                switch event {
                case .event(let message) where message.event == "price":
                    return message.data
                case .reset, .dropped:
                    reloadPrices()   // events were lost: fetch the state again
                    return nil
                default:
                    return nil
                }
            }
            .sink(receiveCompletion: { completion in show("ended: \(completion)") },
                  receiveValue: { price in show(price) })
        // Article: end

        #expect(await shown.wait(forCount: 3))
        #expect(shown.values == ["101", "102", "ended: finished"])
        #expect(reloads.values.count == 1)
        cancellable.cancel()
    }

    @Test func theForAwaitLoopRuns() async throws {
        let server = try pricesServer()
        let url = server.url("/events/prices")
        let shown = Recorder<String>()
        let reloads = Recorder<Int>()
        func show(_ text: String) { shown.append(text) }
        func reloadPrices() { reloads.append(1) }

        // Article: begin
        for try await event in EventSource(url: url).events {
            switch event {
            case .event(let message):
                show("\(message.id) \(message.event): \(message.data)")
            case .reset, .dropped, .topicReset, .topicDropped:
                reloadPrices()
            default:
                break   // shutdown: the server is restarting; the sequence reconnects by itself
            }
        }
        // Article: end

        #expect(shown.values == ["a-1 price: 101", "a-2 volume: 7", "b-1 price: 102"])
        #expect(reloads.values.count == 1)
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "a-2", "b-1"])
    }

    @Test func theWebSocketLoopRuns() async throws {
        // The same feed over WebSocket: two prices, the server going away, a third after resuming.
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.acceptWebSocket()
                connection.write(LoopbackServer.Connection.text(#"{"id":"a-1","data":"101"}"#)
                                 + LoopbackServer.Connection.text(#"{"id":"a-2","data":"102"}"#) + LoopbackServer.Connection.close(1001))
                _ = connection.readFrame()
                connection.close()
            case 1:
                connection.acceptWebSocket()
                connection.write(LoopbackServer.Connection.text(#"{"id":"a-3","data":"103"}"#) + LoopbackServer.Connection.close(1000))
                _ = connection.readFrame()
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
        let url = server.webSocketURL("/ws/prices")
        let shown = Recorder<String>()
        func show(_ text: String) { shown.append(text) }

        // Article: begin
        for try await event in EventSocket(url: url).events {
            if let message = event.message { show("\(message.id): \(message.data)") }
        }
        // Article: end

        #expect(shown.values == ["a-1: 101", "a-2: 102", "a-3: 103"])
        #expect(server.requests.values.map(\.lastEventId) == [nil, "a-2", "a-3"])
    }

    @Test func theFailuresAreTold() async throws {
        // A port nothing listens on.
        let closed = try LoopbackServer { $0.close() }
        let url = closed.url()
        closed.stop()
        let reports = Recorder<EventSource.ConnectionEvent>()
        @Sendable func log(_ connection: EventSource.ConnectionEvent) { reports.append(connection) }

        // Article: begin
        let feed = EventSource(url: url, configuration: .init(maximumAttempts: 5)) { connection in
            log(connection)   // "Attempt 1 failed: The connection to 127.0.0.1:9 was refused: …"
        }
        // Article: end

        let cancellable = feed.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(await reports.wait(forCount: 2))
        #expect(reports.values.dropFirst().first?.description
                .hasPrefix("Attempt 1 failed: The connection to 127.0.0.1:\(closed.port) was refused: ") == true)
        cancellable.cancel()
    }

    @Test func theArticleShowsTheCodeAsItRuns() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: here.appendingPathComponent("ReadingALiveFeedArticleTests.swift"), encoding: .utf8)
        let article = try String(contentsOf: here.appendingPathComponent(
            "../../Sources/SluiceEventSource/SluiceEventSource.docc/ReadingALiveFeedFromSwift.md"), encoding: .utf8)
        let blocks = article.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let snippets = source.components(separatedBy: "// Article: begin\n").dropFirst().map { part -> String in
            let lines = part.components(separatedBy: "// Article: end")[0].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
            return lines.map { $0.dropFirst(min(indent, $0.count)) }.joined(separator: "\n") + "\n"
        }
        #expect(snippets.count == 4)
        for snippet in snippets {
            #expect(blocks.contains(snippet), "the article does not show this code as it runs:\n\(snippet)")
        }
        // ConnectionEvent's documentation shows the last one.
        let reference = try String(contentsOf: here.appendingPathComponent(
            "../../Sources/SluiceEventSource/EventSource.ConnectionEvent.swift"), encoding: .utf8)
        let commented = snippets.last.map { $0.split(separator: "\n").map { "    /// " + $0 }.joined(separator: "\n") }
        #expect(commented.map { reference.contains("    /// ```swift\n" + $0 + "\n    /// ```") } == true,
                "EventSource.ConnectionEvent's documentation does not show the article's code")
    }
}
