import Foundation
@testable import SluiceEventSource
import Testing

@Suite("EventSourceError")
struct EventSourceErrorTests {
    /// One value of each case.
    static let errors: [EventSourceError] = [
        .status(404), .status(503), .contentType("text/html"), .contentType(nil), .invalidRequest,
        .eventTooLarge(limit: 4_194_304), .subscriberTooSlow(limit: 4_194_304), .closed(code: 1008, reason: "policy"),
        .closed(code: 4000, reason: ""), .protocolViolation("a chunk size of \"zz\""), .webSocketUnavailable, .tlsOptionsUnavailable,
        .connectionRefused(address: "127.0.0.1:9"), .hostNotFound(host: "feed.invalid", detail: "Name or service not known"),
        .tlsFailed("the certificate is not trusted"), .timedOut, .connectionLost("Connection reset by peer"),
        .gaveUp(attempts: 3, lastFailure: .connectionRefused(address: "127.0.0.1:9")),
    ]

    @Test(arguments: errors)
    func eachErrorReadsAsASentence(error: EventSourceError) {
        let text = String(describing: error)
        #expect(text.first?.isUppercase == true || text.hasPrefix("wss:"), "\(text)")
        #expect(text.hasSuffix("."), "\(text)")
        #expect(text.contains(" "), "\(text)")
        #expect(error.localizedDescription == text)
        #expect((error as any LocalizedError).errorDescription == text)
    }

    @Test func theSentencesSayWhatHappened() {
        #expect(EventSourceError.status(404).description == "The server answered with HTTP status 404 (not found).")
        #expect(EventSourceError.connectionRefused(address: "127.0.0.1:9").description
                == "The connection to 127.0.0.1:9 was refused: nothing listens on that port.")
        #expect(EventSourceError.hostNotFound(host: "feed.invalid", detail: "Name or service not known").description
                == "The host feed.invalid was not found: Name or service not known.")
        #expect(EventSourceError.closed(code: 1008, reason: "policy").description == "The server closed the WebSocket with code 1008: policy.")
        #expect(EventSourceError.gaveUp(attempts: 3, lastFailure: .timedOut).description
                == "Gave up after 3 failed attempts. The last: The connection timed out: the server sent nothing for the idle timeout.")
        #expect(EventSourceError.gaveUp(attempts: 1, lastFailure: .status(503)).description
                == "Gave up after 1 failed attempt. The last: The server answered with HTTP status 503 (service unavailable).")
    }

    @Test func connectionEventsReadAsSentences() {
        let refused = EventSourceError.connectionRefused(address: "127.0.0.1:9")
        #expect(EventSource.ConnectionEvent.connecting(attempt: 1, lastEventID: "").description == "Connecting (attempt 1), from the start.")
        #expect(EventSource.ConnectionEvent.connecting(attempt: 2, lastEventID: "e-5").description
                == "Connecting (attempt 2), resuming after event e-5.")
        #expect(EventSource.ConnectionEvent.connected.description == "Connected: the stream is open.")
        #expect(EventSource.ConnectionEvent.attemptFailed(attempt: 1, error: refused, retryIn: .milliseconds(4_230)).description
                == "Attempt 1 failed: The connection to 127.0.0.1:9 was refused: nothing listens on that port. Retrying in 4.2 s.")
        #expect(EventSource.ConnectionEvent.attemptFailed(attempt: 3, error: .status(403), retryIn: nil).description
                == "Attempt 3 failed: The server answered with HTTP status 403 (forbidden). No more attempts.")
        #expect(EventSource.ConnectionEvent.disconnected(error: nil, reconnectIn: .seconds(3)).description
                == "The server closed the stream. Reconnecting in 3 s.")
        #expect(EventSource.ConnectionEvent.disconnected(error: .timedOut, reconnectIn: .milliseconds(10)).description
                == "The stream ended: The connection timed out: the server sent nothing for the idle timeout. Reconnecting in 10 ms.")
    }

    @Test func transportErrorsAreClassified() {
        let url = URL(string: "https://feed.example:8443/events")!
        #expect(EventSourceError(transportError: URLError(.cannotConnectToHost), url: url) == .connectionRefused(address: "feed.example:8443"))
        #expect(EventSourceError(transportError: URLError(.timedOut), url: url) == .timedOut)
        guard case .hostNotFound(let host, _) = EventSourceError(transportError: URLError(.cannotFindHost), url: url) else {
            Issue.record("expected hostNotFound")
            return
        }
        #expect(host == "feed.example")
        guard case .tlsFailed = EventSourceError(transportError: URLError(.serverCertificateUntrusted), url: url) else {
            Issue.record("expected tlsFailed")
            return
        }
        let handshake = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number"])
        #expect(EventSourceError(transportError: handshake, url: url)
                == .tlsFailed("OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number"))
        guard case .connectionLost = EventSourceError(transportError: URLError(.networkConnectionLost), url: url) else {
            Issue.record("expected connectionLost")
            return
        }
    }
}
