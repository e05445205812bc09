import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why an attempt of an ``EventSource`` or an ``EventSocket`` failed, or why the stream ended with
/// a failure.
///
/// The network failures (``connectionRefused(address:)``, ``hostNotFound(host:detail:)``,
/// ``tlsFailed(_:)``, ``timedOut``, ``connectionLost(_:)``) and the statuses 408, 429 and 5xx are
/// retried: a subscriber sees them only in ``gaveUp(attempts:lastFailure:)``, when the
/// configuration bounds the attempts, and the handler of ``EventSource/ConnectionEvent`` values
/// sees each of them as it happens. The other cases end the stream.
///
/// Each value reads as a sentence (its `description`, and its `errorDescription` as a
/// `LocalizedError`): `print(error)` shows what happened.
public indirect enum EventSourceError: Error, Sendable, Hashable {
    /// The server answered with a status other than the one that opens the stream. 408, 429 and
    /// 5xx are retried; another 4xx (401 and 403: the credentials), or another status than 200
    /// and 204, ends the stream.
    case status(Int)
    /// The server answered 200 with another content type than `text/event-stream` (the header's
    /// value, or `nil` if there was none).
    case contentType(String?)
    /// The request cannot be made (no URL, or a scheme other than HTTP and HTTPS for an
    /// ``EventSource``, WS and WSS for an ``EventSocket``).
    case invalidRequest
    /// An event grew beyond ``EventSource/Configuration/maximumEventSize`` bytes (`limit`)
    /// without ending.
    case eventTooLarge(limit: Int)
    /// The subscriber took events too slowly from a stream that the client could not stop
    /// reading (with FoundationNetworking's data tasks, a stream that has sent no event ID, so
    /// that a new connection would start it over): the bytes held behind the full buffer passed
    /// ``EventSource/Configuration/maximumEventSize`` (`limit`).
    case subscriberTooSlow(limit: Int)
    /// An ``EventSocket``'s server closed the connection with `code` and `reason`. 1000, 1001,
    /// 1005 and 1006 reconnect, 1011–1014 are retried as failed attempts; another code ends the
    /// stream.
    case closed(code: Int, reason: String)
    /// The server broke the HTTP or WebSocket protocol: what it did.
    case protocolViolation(String)
    /// An ``EventSocket`` on a `wss:` URL off Apple's systems in a build without the package
    /// trait `TLS`, where FoundationNetworking's `URLSessionWebSocketTask` cannot run: its
    /// libcurl was built without WebSocket support. The trait `TLS` reads `wss:` with the
    /// module's own WebSocket client over SwiftNIO SSL.
    case webSocketUnavailable
    /// The configuration's ``EventSource/Configuration/tls`` options (trust roots, a client
    /// certificate, a proxy) are not the defaults, and the connection is not made by the module's
    /// TLS stack, which applies them: a build without the package trait `TLS`, or Apple's
    /// systems, where URLSession makes every connection (its session's delegate decides trust
    /// there).
    case tlsOptionsUnavailable
    /// Nothing accepts connections at `address` (`host:port`): the connection was refused.
    /// Retried.
    case connectionRefused(address: String)
    /// The name `host` could not be resolved (DNS), and what the resolver said. Retried.
    case hostNotFound(host: String, detail: String)
    /// The TLS handshake failed — a certificate that is not trusted, a server that does not speak
    /// TLS on that port — and what the TLS stack said. Retried.
    case tlsFailed(String)
    /// The connection or the server's answer took longer than
    /// ``EventSource/Configuration/idleTimeout``. Retried.
    case timedOut
    /// The connection failed or was lost, and what the system said. Retried.
    case connectionLost(String)
    /// The attempts ran out: ``EventSource/Configuration/maximumAttempts`` consecutive attempts
    /// failed, or the next would have started after ``EventSource/Configuration/maximumRetryTime``
    /// of failures; `attempts` failed, the last one with `lastFailure`.
    case gaveUp(attempts: Int, lastFailure: EventSourceError)

    /// Whether a new attempt can help: the network failures and the statuses 408, 429 and 5xx.
    public var isRetried: Bool {
        switch self {
        case .connectionRefused, .hostNotFound, .tlsFailed, .timedOut, .connectionLost: true
        case .status(let status): status == 408 || status == 429 || (500...599).contains(status)
        case .closed(let code, _): (1011...1014).contains(code)
        default: false
        }
    }
}

extension EventSourceError: CustomStringConvertible {
    /// What happened, as a sentence.
    public var description: String {
        /// `text` ended with a period, unless it ends with one already.
        func sentence(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }
        switch self {
        case .status(let status):
            let phrase = HTTPURLResponse.localizedString(forStatusCode: status).lowercased()
            return "The server answered with HTTP status \(status) (\(phrase))."
        case .contentType(let type?):
            return "The server answered with content type \"\(type)\", not text/event-stream."
        case .contentType(nil):
            return "The server answered without a content type, not with text/event-stream."
        case .invalidRequest:
            return "The request cannot be made: an EventSource needs an http or https URL, an EventSocket a ws or wss URL."
        case .eventTooLarge(let limit):
            return "An event grew past \(limit) bytes without ending (the configuration's maximumEventSize)."
        case .subscriberTooSlow(let limit):
            return "The subscriber took events too slowly: more than \(limit) bytes waited behind the full buffer "
                + "on a stream that could neither be paused nor resumed."
        case .closed(let code, let reason):
            return sentence("The server closed the WebSocket with code \(code)" + (reason.isEmpty ? "" : ": \(reason)"))
        case .protocolViolation(let what):
            return sentence("The server broke the protocol: \(what)")
        case .webSocketUnavailable:
            return "wss: is not available here: this system's URLSessionWebSocketTask needs a libcurl built with "
                + "WebSocket support. Build with the package trait TLS (swift build --traits TLS), which reads wss: "
                + "over SwiftNIO SSL, or read the feed's Server-Sent Events over https: instead."
        case .tlsOptionsUnavailable:
            return "The configuration's TLS options (trust roots, a client certificate, a proxy) are applied only by the "
                + "TLS stack of the package trait TLS, off Apple's systems: build with --traits TLS, or, on Apple's "
                + "systems, decide trust in the URLSession's delegate."
        case .connectionRefused(let address):
            return "The connection to \(address) was refused: nothing listens on that port."
        case .hostNotFound(let host, let detail):
            return sentence("The host \(host) was not found" + (detail.isEmpty ? "" : ": \(detail)"))
        case .tlsFailed(let detail):
            return sentence("The TLS connection failed: \(detail)")
        case .timedOut:
            return "The connection timed out: the server sent nothing for the idle timeout."
        case .connectionLost(let detail):
            return sentence("The connection failed: \(detail)")
        case .gaveUp(let attempts, let lastFailure):
            return "Gave up after \(attempts) failed attempt\(attempts == 1 ? "" : "s"). The last: \(lastFailure)"
        }
    }
}

extension EventSourceError: LocalizedError {
    /// The ``description``.
    public var errorDescription: String? { description }
}

extension EventSourceError {
    /// A transport's error (a `URLError` of a data task or a WebSocket task, or a POSIX error) as
    /// the failure of an attempt to reach `url`.
    init(transportError error: any Error, url: URL?) {
        if let error = error as? EventSourceError {
            self = error
            return
        }
        let detail = Self.detail(of: error)
        guard let urlError = error as? URLError else {
            self = .connectionLost(detail)
            return
        }
        let url = urlError.failingURL ?? url
        switch urlError.code {
        case .cannotConnectToHost:
            if let url, let host = url.host {
                let port = url.port ?? (["https", "wss"].contains(url.scheme?.lowercased() ?? "") ? 443 : 80)
                self = .connectionRefused(address: "\(host):\(port)")
            } else {
                self = .connectionLost(detail)
            }
        case .cannotFindHost, .dnsLookupFailed:
            self = .hostNotFound(host: url?.host ?? "", detail: detail)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired:
            self = .tlsFailed(detail)
        case .timedOut:
            self = .timedOut
        default:
            // FoundationNetworking gives some of libcurl's TLS failures (a handshake with a server
            // that does not speak TLS, say) no code of their own: only its message tells.
            let words = detail.lowercased()
            self = ["ssl", "tls", "certificate"].contains(where: words.contains) ? .tlsFailed(detail) : .connectionLost(detail)
        }
    }

    /// What an error says, without a trailing period.
    private static func detail(of error: any Error) -> String {
        var text = (error as NSError).localizedDescription
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
           !text.contains(underlying.localizedDescription) {
            text += " (\(underlying.localizedDescription))"
        }
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
