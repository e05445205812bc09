import Foundation
import Testing

/// `sluice-tail`, the executable beside the test bundle in the build folder (`swift build
/// --build-tests` builds it), run against a loopback server.
private let sluiceTail = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("sluice-tail")

/// Runs `sluice-tail` with `arguments` until it exits; its status and the lines it printed.
private func tail(_ arguments: [String]) throws -> (status: Int32, lines: [Substring]) {
    let result = try tailWithErrors(arguments)
    return (result.status, result.lines)
}

/// Runs `sluice-tail` with `arguments` until it exits; its status, and the lines it printed on
/// stdout and on stderr.
private func tailWithErrors(_ arguments: [String]) throws -> (status: Int32, lines: [Substring], errors: [Substring]) {
    let process = Process()
    process.executableURL = sluiceTail
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let written = Recorder<Data>()
    let reader = Thread { written.append(errors.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let printed = output.fileHandleForReading.readDataToEndOfFile()   // until it exits (at a 204)
    process.waitUntilExit()
    _ = written.wait(forCountBlocking: 1)
    return (process.terminationStatus, String(decoding: printed, as: UTF8.self).split(separator: "\n"),
            String(decoding: written.values.first ?? Data(), as: UTF8.self).split(separator: "\n"))
}

/// A loopback address at a port nothing listens on.
private func closedAddress() throws -> String {
    let server = try LoopbackServer { $0.close() }
    server.stop()
    return "127.0.0.1:\(server.port)"
}

private let built = FileManager.default.isExecutableFile(atPath: sluiceTail.path)

@Suite("sluice-tail", .timeLimit(.minutes(1)))
struct SluiceTailTests {
    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
    func followsSeveralTopicsAndNamesEachEventsTopic() async throws {
        // The check of the list ["a", "b"] (SluiceFeed's TopicCursor), and a resume of both topics.
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.writeStreamHead()
                connection.write("retry: 10\nid: 81977b96/e-1,e-0\nevent: a\ndata: one\n\n"
                                 + "event: reset\ndata: {\"topic\":\"b\",\"missed\":2}\n\n"
                                 + "id: 81977b96/e-1,f-3\nevent: b\ndata: three\n\n")
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
        let (status, lines) = try tail(["--topic", "a", "-t", "b", server.url("/events").absoluteString])
        #expect(status == 0)
        #expect(lines == ["topic: a\tid: e-1\tdata: one", "-- reset of b: 2 events missed; refetch its state",
                          "topic: b\tid: f-3\tdata: three"])
        #expect(server.requests.values.map(\.path) == ["/events?topic=a&topic=b", "/events?topic=a&topic=b"])
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "81977b96/e-1,f-3"])
    }

    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
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
        let (status, lines, errors) = try tailWithErrors(["-v", "--header", "Authorization: Bearer t", server.url().absoluteString])
        #expect(status == 0)
        // -v: each connection and resume on stderr; a resume is after the last whole event.
        #expect(errors.map(String.init) == [
            "sluice-tail: Connecting (attempt 1), from the start.",
            "sluice-tail: Connected: the stream is open.",
            "sluice-tail: The server closed the stream. Reconnecting in 10 ms.",
            "sluice-tail: Connecting (attempt 1), resuming after event e-1.",
            "sluice-tail: Connected: the stream is open.",
            "sluice-tail: The server closed the stream. Reconnecting in 10 ms.",
            "sluice-tail: Connecting (attempt 1), resuming after event e-6.",
        ])
        #expect(lines == [
            "id: e-1\tevent: price\tdata: 101\\n102",
            "-- reset: 4 events missed; refetch the state",
            "id: e-6\tevent: message\tdata: six",
        ])
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "e-1", "e-6"])
        #expect(server.requests.values.map { $0.headers["authorization"] } == ["Bearer t", "Bearer t", "Bearer t"])
    }

    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
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

    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
    func aRefusedConnectionIsWrittenToStderrWhileItRetries() async throws {
        let address = try closedAddress()
        let process = Process()
        process.executableURL = sluiceTail
        process.arguments = ["http://\(address)/events"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        let lines = Recorder<String>()
        errors.fileHandleForReading.readabilityHandler = { handle in
            for line in String(decoding: handle.availableData, as: UTF8.self).split(separator: "\n") { lines.append(String(line)) }
        }
        try process.run()
        defer {
            errors.fileHandleForReading.readabilityHandler = nil
            process.terminate()
            process.waitUntilExit()
        }
        // The first attempt's failure is written as it happens, before the next attempt (seconds
        // away with the default backoff), while the tool goes on.
        #expect(await lines.wait(forCount: 1))
        #expect(process.isRunning)
        let line = try #require(lines.values.first)
        #expect(line.hasPrefix("sluice-tail: Attempt 1 failed: The connection to \(address) was refused: nothing listens on that port. Retrying in "))
    }

    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
    func maxAttemptsEndsWithTheFailure() throws {
        let address = try closedAddress()
        let (status, lines, errors) = try tailWithErrors(["--max-attempts", "1", "http://\(address)/events"])
        #expect(status == 1)
        #expect(lines.isEmpty)
        let refusal = "The connection to \(address) was refused: nothing listens on that port."
        #expect(errors.map(String.init) == [
            "sluice-tail: Attempt 1 failed: \(refusal) No more attempts.",
            "sluice-tail: Gave up after 1 failed attempt. The last: \(refusal)",
        ])
    }

    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
    func helpPrintsTheUsageAndExitsZero() throws {
        let (status, lines, errors) = try tailWithErrors(["--help"])
        #expect(status == 0)
        #expect(lines.first?.hasPrefix("usage: sluice-tail [-v] [--max-attempts N]") == true)
        #expect(lines.contains { $0.contains("--verbose") })
        #expect(errors.isEmpty)
    }

    #if TLS && !canImport(Darwin)
    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
    func followsHTTPSAndWSSFeedsTrustingACAFileAndResumesAfterADrop() throws {
        let certificates = try TestCertificates.shared.get()
        let feed = try TLSFront(LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.writeStreamHead()
                connection.write("retry: 10\n\nid: e-1\ndata: one\n\nid: e-2\ndata: tw")
                connection.close()   // mid-event
            case 1:
                connection.writeStreamHead()
                connection.write("id: e-2\ndata: two\n\n")
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        })
        defer { feed.stop() }
        let (status, lines) = try tail(["--cacert", certificates.caFile, "--no-system-roots", feed.url().absoluteString])
        #expect(status == 0)
        #expect(lines == ["id: e-1\tevent: message\tdata: one", "id: e-2\tevent: message\tdata: two"])
        #expect(feed.behind.requests.values.map { $0.headers["last-event-id"] } == [nil, "e-1", "e-2"])

        let socket = try TLSFront(LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.acceptWebSocket()
                connection.write(LoopbackServer.Connection.event(1))
                connection.close()   // dropped
            case 1:
                connection.acceptWebSocket()
                connection.write(LoopbackServer.Connection.event(2) + LoopbackServer.Connection.close(1000))
                _ = connection.readFrame()
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        })
        defer { socket.stop() }
        let (socketStatus, socketLines) = try tail(["--cacert", certificates.caFile, socket.webSocketURL().absoluteString])
        #expect(socketStatus == 0)
        #expect(socketLines == ["id: e-1\tevent: message\tdata: event 1", "id: e-2\tevent: message\tdata: event 2"])
        #expect(socket.behind.requests.values.map(\.lastEventId) == [nil, "e-1", "e-2"])
    }

    @Test(.enabled(if: built, "sluice-tail is built beside the tests"))
    func anUntrustedCertificateIsWrittenAsAFailedAttemptAndAClientCertificateIsPresented() throws {
        let certificates = try TestCertificates.shared.get()
        let feed = try TLSFront(LoopbackServer { connection in
            if connection.index == 0 {
                connection.writeStreamHead()
                connection.write("retry: 10\n\nid: e-1\ndata: one\n\n")
                connection.close()
            } else {
                connection.respond(status: 204, reason: "No Content")
            }
        }, requiringClientCertificate: true)
        defer { feed.stop() }
        // Another server with the same certificate: each TLS connection is a connection of the server behind.
        let other = try TLSFront(LoopbackServer { $0.respond(status: 204, reason: "No Content") })
        defer { other.stop() }
        let untrusted = try tailWithErrors(["--max-attempts", "1", other.url().absoluteString])
        #expect(untrusted.status == 1)
        #expect(untrusted.lines.isEmpty)
        #expect(untrusted.errors.first?.hasPrefix("sluice-tail: Attempt 1 failed: The TLS connection failed: the certificate of 127.0.0.1:\(other.port) is not trusted") == true,
                "\(untrusted.errors)")
        let (status, lines) = try tail(["--cacert", certificates.caFile, "--cert", certificates.clientFile, "--key", certificates.clientKeyFile,
                                        feed.url().absoluteString])
        #expect(status == 0)
        #expect(lines == ["id: e-1\tevent: message\tdata: one"])
    }
    #endif
}
