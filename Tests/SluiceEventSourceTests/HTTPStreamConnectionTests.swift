// The module's own HTTP/1.1 client reads `http:` URLs off Apple's systems; EventSourceTests run
// most of their cases on it and on a data task alike. These are what only it does itself.
#if !canImport(Darwin)
import Foundation
import FoundationNetworking
@testable import SluiceEventSource
import Testing

/// `id: e-<id>\ndata: event <id>\n\n`.
private func frame(_ id: Int) -> String { "id: e-\(id)\ndata: event \(id)\n\n" }

/// Reconnects at once.
private let quick = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumBackoff: .milliseconds(50))

/// `text` as one chunk of a chunked body.
private func chunk(_ text: String) -> String {
    "\(String(text.utf8.count, radix: 16))\r\n\(text)\r\n"
}

@Suite("EventSource's own HTTP client", .serialized, .timeLimit(.minutes(1)))
struct HTTPStreamConnectionTests {
    @Test func aChunkedBodyIsReadAcrossItsChunksAndItsEndResumes() async throws {
        // Chunk boundaries inside events and inside a CRLF, an extension, a trailer; then the
        // last chunk while the connection stays open: the end of the body ends the connection.
        let server = try LoopbackServer { connection in
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            switch connection.request.headers["last-event-id"] {
            case nil:
                connection.write(head)
                let text = "retry: 10\n\n" + frame(1) + frame(2)
                let cut = text.index(text.startIndex, offsetBy: 15)
                connection.write(chunk(String(text[..<cut])))
                connection.write("\(String(text[cut...].utf8.count, radix: 16));name=value\r\n\(text[cut...])\r")
                connection.write("\n0\r\nX-Trailer: 1\r\n\r\n")
            case "e-2":
                connection.write(head + chunk(frame(3)) + "0\r\n\r\n")
            default:
                return connection.respond(status: 204, reason: "No Content")
            }
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.finished])
        #expect(subscriber.data == ["event 1", "event 2", "event 3"])
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "e-2", "e-3"])
    }

    @Test func aSizedBodyEndsAtItsLengthWhileTheConnectionStaysOpen() async throws {
        let server = try LoopbackServer { connection in
            let body: String
            switch connection.request.headers["last-event-id"] {
            case nil: body = "retry: 10\n\n" + frame(1)
            case "e-1": body = frame(2)
            default: return connection.respond(status: 204, reason: "No Content")
            }
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.finished])
        #expect(subscriber.data == ["event 1", "event 2"])
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "e-1", "e-2"])
        // The client closed the connections whose bodies had ended.
        #expect(await server.closed.wait { Set($0).isSuperset(of: [0, 1]) })
    }

    @Test func badChunkedFramingFailsWithAProtocolViolation() async throws {
        let server = try LoopbackServer { connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            connection.write(chunk(frame(1)) + "zz\r\n" + frame(2))
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.data == ["event 1"])
        #expect(subscriber.completions.values == [.failure(.protocolViolation("a chunk size of \"zz\""))])
        #expect(server.requests.values.count == 1)
    }

    @Test func redirectsAreFollowedAndCredentialsStayWithTheirOrigin() async throws {
        let elsewhere = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1))
            connection.waitForClientClose()
        }
        let target = elsewhere.url("/feed")
        let server = try LoopbackServer { connection in
            switch connection.request.path {
            case "/events": connection.respond(status: 307, reason: "Temporary Redirect", headers: "Location: /moved?x=1\r\n")
            default: connection.respond(status: 302, reason: "Found", headers: "Location: \(target.absoluteString)\r\n")
            }
        }
        var request = URLRequest(url: server.url())
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("kept", forHTTPHeaderField: "X-Other")
        let subscriber = RecordingSubscriber()
        EventSource(request: request, configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(subscriber.data == ["event 1"])
        // Same origin: the credentials go along; another origin: they do not, the rest does.
        #expect(server.requests.values.map(\.path) == ["/events", "/moved?x=1"])
        #expect(server.requests.values.map { $0.headers["authorization"] } == ["Bearer secret", "Bearer secret"])
        let moved = try #require(elsewhere.requests.values.first)
        #expect(moved.path == "/feed")
        #expect(moved.headers["authorization"] == nil)
        #expect(moved.headers["x-other"] == "kept")
        #expect(moved.headers["accept"] == "text/event-stream")
        subscriber.cancel()
    }

    @Test func moreThanTwentyRedirectsFail() async throws {
        let server = try LoopbackServer { connection in
            connection.respond(status: 302, reason: "Found", headers: "Location: /again\r\n")
        }
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.protocolViolation("more than 20 redirects"))])
        #expect(server.requests.values.count == 21)
    }

    @Test func aRedirectToHTTPSGoesOn() async throws {
        // Without the trait TLS, as a data task; with it, in the module's own client over TLS.
        // Nothing listens at the HTTPS URL: the data task's failure (a URLError, read as the
        // module's own client reads a refusal) is the last failure before the client gives up.
        let closed = try LoopbackServer { $0.close() }
        let target = URL(string: "https://127.0.0.1:\(closed.port)/feed")!
        closed.stop()
        let server = try LoopbackServer { connection in
            connection.respond(status: 308, reason: "Permanent Redirect", headers: "Location: \(target.absoluteString)\r\n")
        }
        let subscriber = RecordingSubscriber()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(5), maximumAttempts: 1)
        EventSource(url: server.url(), configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        guard case .failure(.gaveUp(let attempts, let lastFailure)) = subscriber.completions.values.first else {
            Issue.record("expected gaveUp, got \(subscriber.completions.values)")
            return
        }
        #expect(attempts == 1)
        #expect(lastFailure == .connectionRefused(address: "127.0.0.1:\(closed.port)"))
        #expect(server.requests.values.count == 1)
    }

    @Test func cookiesAreSentFromAndStoredInTheSharedStorage() async throws {
        let name = "sluice-test-\(UInt32.random(in: 0...UInt32.max))"
        let server = try LoopbackServer { connection in
            let value = connection.index == 0 ? "first" : "second"
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nSet-Cookie: \(name)=\(value); Path=/\r\n\r\n")
            connection.write(connection.index == 0 ? "retry: 10\n\n" + frame(1) : frame(2))
            if connection.index == 0 { connection.close() } else { connection.waitForClientClose() }
        }
        defer {
            for cookie in HTTPCookieStorage.shared.cookies ?? [] where cookie.name == name {
                HTTPCookieStorage.shared.deleteCookie(cookie)
            }
        }
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url(), configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 2))
        #expect(server.requests.values.first?.headers["cookie"] == nil)
        #expect(server.requests.values[1].headers["cookie"]?.contains("\(name)=first") == true)
        #expect(HTTPCookieStorage.shared.cookies(for: server.url())?.first { $0.name == name }?.value == "second")
        subscriber.cancel()
    }

    @Test func aSilentStreamIsReopenedAfterTheIdleTimeout() async throws {
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            // Event 1 on the first connection, event 2 on the second, nothing on later ones: each falls
            // silent, and a slow run may reopen the second too before the test has looked.
            if connection.index == 0 { connection.write("retry: 10\n\n" + frame(1)) } else if connection.index == 1 { connection.write(frame(2)) }
            connection.waitForClientClose()
        }
        let subscriber = RecordingSubscriber()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), idleTimeout: .milliseconds(300))
        EventSource(url: server.url(), configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 2))
        #expect(subscriber.data == ["event 1", "event 2"])
        #expect(server.requests.values[1].headers["last-event-id"] == "e-1")
        #expect(await server.closed.wait { $0.contains(0) })
        subscriber.cancel()
    }

    @Test func onlyAnHTTPGetWithoutABodyIsReadByTheOwnClient() throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:1/events")!)
        #expect(HTTPStreamConnection.serves(request))
        request.httpMethod = "POST"
        #expect(!HTTPStreamConnection.serves(request))
        request.httpMethod = "GET"
        request.httpBody = Data("x".utf8)
        #expect(!HTTPStreamConnection.serves(request))
        // https: with the trait TLS, which brings the TLS stack.
        #expect(HTTPStreamConnection.serves(URLRequest(url: URL(string: "https://127.0.0.1:1/events")!)) == PlainSocket.speaksTLS)
    }
}
#endif
