#if Server
/// Why a feed cannot be had, as an HTTP answer should tell it: an error that says so conforms to
/// ``FeedRefusing`` (SluicePostgres's `PostgresEventLogError` does), and the transports' topic
/// routes answer with its ``status`` — any other error as ``unavailable``.
public enum FeedRefusal: Sendable, Hashable {
    /// The request can never be served as it is (a topic name outside the rule): 400.
    case invalid
    /// A bound of the server was reached (feeds per process): 503 with `Retry-After`.
    case limitReached
    /// What the feed needs is unreachable (its log's database): 503 with `Retry-After`.
    case unavailable

    /// The HTTP status code of the answer.
    public var status: Int {
        switch self {
        case .invalid: 400
        case .limitReached, .unavailable: 503
        }
    }

    /// Whether the answer carries `Retry-After` (a retry later may succeed).
    public var isRetriable: Bool { self != .invalid }

    /// The refusal `error` says, or ``unavailable``.
    public init(_ error: any Error) {
        self = (error as? any FeedRefusing)?.feedRefusal ?? .unavailable
    }
}

/// An error that tells how a request for a feed is refused.
public protocol FeedRefusing: Error {
    /// How the request is refused.
    var feedRefusal: FeedRefusal { get }
}
#endif
