/// Why an ``EventSource`` ended with a failure. An event source reconnects after network errors,
/// after the end of a stream, and after the statuses 408, 429 and 5xx; it fails only for these.
public enum EventSourceError: Error, Sendable, Hashable {
    /// The server answered with a status that retrying will not change: a 4xx other than 408 and
    /// 429 (401 and 403: the credentials), or another status than 200 and 204.
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
    /// An ``EventSocket``'s server closed the connection with a code that retrying will not
    /// change (not 1000, 1001, 1005, 1006 or 1011–1014), and the reason it gave.
    case closed(code: Int, reason: String)
    /// An ``EventSocket``'s server broke the WebSocket protocol: what it did.
    case protocolViolation(String)
    /// An ``EventSocket`` on a `wss:` URL where FoundationNetworking's `URLSessionWebSocketTask`
    /// cannot run: its libcurl was built without WebSocket support.
    case webSocketUnavailable
    /// ``EventSource/Configuration/maximumAttempts`` consecutive attempts failed; the last
    /// failure's description.
    case gaveUp(attempts: Int, lastFailure: String)
}
