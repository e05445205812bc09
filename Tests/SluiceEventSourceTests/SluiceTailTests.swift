import Foundation
import Testing

/// `sluice-tail`, the executable beside the test bundle in the build folder (`swift build
/// --build-tests` builds it), run against a loopback server.
private let sluiceTail = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("sluice-tail")

/// Runs `sluice-tail` with `arguments` until it exits; its status and the lines it printed.
private func tail(_ arguments: [String]) throws -> (status: Int32, lines: [Substring]) {
    let process = Process()
    process.executableURL = sluiceTail
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()   // until it exits (at a 204)
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: printed, as: UTF8.self).split(separator: "\n"))
}

@Suite("sluice-tail", .timeLimit(.minutes(1)))
struct SluiceTailTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sluiceTail.path), "sluice-tail is built beside the tests"))
    func printsEachEventAndResumesAfterADrop() async throws {
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.writeStreamHead()
                connection.write("retry: 10\n\nid: e-1\nevent: price\ndata: 101\ndata: 102\n\nid: e-2\ndata: half")
                connection.close()
            case 1:
                connection.writeStreamHead()
                connection.write("event: reset\ndata: {\"missed\":4}\n\nid: e-6\ndata: six\n\n")
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
        let (status, lines) = try tail(["--header", "Authorization: Bearer t", server.url().absoluteString])
        #expect(status == 0)
        #expect(lines == [
            "id: e-1\tevent: price\tdata: 101\\n102",
            "-- reset: 4 events missed; refetch the state",
            "id: e-6\tevent: message\tdata: six",
        ])
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "e-1", "e-6"])
        #expect(server.requests.values.map { $0.headers["authorization"] } == ["Bearer t", "Bearer t", "Bearer t"])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sluiceTail.path), "sluice-tail is built beside the tests"))
    func readsAFeedsWebSocketStreamAndResumesWithLastEventId() async throws {
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.acceptWebSocket()
                connection.write(LoopbackServer.Connection.event(6) + Array(LoopbackServer.Connection.event(7).prefix(5)))
                connection.close()
            case 1:
                connection.acceptWebSocket()
                connection.write(LoopbackServer.Connection.text(#"{"event":"dropped","dropped":2}"#)
                                 + LoopbackServer.Connection.event(9) + LoopbackServer.Connection.close(1000))
                _ = connection.readFrame()
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
        let (status, lines) = try tail(["--last-event-id", "e-5", server.webSocketURL("/ws/prices").absoluteString])
        #expect(status == 0)
        #expect(lines == [
            "id: e-6\tevent: message\tdata: event 6",
            "-- dropped: the server dropped 2 events for this client",
            "id: e-9\tevent: message\tdata: event 9",
        ])
        #expect(server.requests.values.map(\.lastEventId) == ["e-5", "e-6", "e-9"])
    }
}
