#if Server
import PostgresNIO
import SluiceFeed

/// Why a ``PostgresEventLog`` call failed, told so that a caller knows whether trying again can
/// help and whether what it appended may exist.
public struct PostgresEventLogError: Error, Sendable, CustomStringConvertible, FeedRefusing {
    /// What kind of failure, and so what a retry does.
    public enum Kind: Sendable, Hashable {
        /// The request can never succeed as it is: a topic name outside ``PostgresEventLog/isValidTopic(_:)``,
        /// a payload PostgreSQL's `text` refuses (a NUL character), an idempotency key outside
        /// ``PostgresEventLog/isValidIdempotencyKey(_:)``. Checked before any query: nothing was
        /// appended, and a retry fails the same way (an HTTP route answers 4xx).
        case invalid
        /// The idempotency key was used before for another topic or other payloads: nothing was
        /// appended, the first append stands (an HTTP route answers 422).
        case idempotencyKeyReused
        /// The database did not answer in time, or the connection was lost while the call ran: an
        /// append **may have been committed**. Retry with the same idempotency key to be sure of
        /// one event; without a key a retry may append it twice.
        case outcomeUnknown
        /// The database could not be reached, or refused the statement: nothing was appended, and
        /// a retry later may succeed (an HTTP route answers 503 with `Retry-After`).
        case unavailable
        /// A bound of the process was reached (feeds per process, say): nothing was done; a retry
        /// later may succeed once the bound has room.
        case limitReached
        /// Too many appends wait for the database already (``GroupCommit/maximumWaiting``): this one
        /// was not appended — the database is slower than its producers; try again after a moment
        /// (an HTTP route answers 429 with `Retry-After`).
        case busy
    }

    /// What kind of failure.
    public let kind: Kind
    /// What happened.
    public let message: String

    /// A failure of `kind`, told by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A failure whose outcome is not known (``Kind/outcomeUnknown``), told by `message`.
    public init(message: String) {
        self.init(.outcomeUnknown, message)
    }

    /// The message.
    public var description: String { message }

    /// How an HTTP request for a feed is refused on this error: ``Kind/invalid`` as
    /// ``/SluiceFeed/FeedRefusal/invalid``, ``Kind/limitReached`` as ``/SluiceFeed/FeedRefusal/limitReached``,
    /// anything else as ``/SluiceFeed/FeedRefusal/unavailable``.
    public var feedRefusal: FeedRefusal {
        switch kind {
        case .invalid: .invalid
        case .limitReached, .busy: .limitReached
        case .idempotencyKeyReused, .outcomeUnknown, .unavailable: .unavailable
        }
    }

    /// The HTTP status an answer to a request that failed this way has: 400 for ``Kind/invalid``,
    /// 422 for ``Kind/idempotencyKeyReused``, 429 for ``Kind/busy``, 503 for the others (a retry
    /// later may succeed).
    /// Hummingbird and Vapor answer a thrown `PostgresEventLogError` with it (the `Hummingbird`
    /// and `Vapor` traits), with ``httpHeaders`` and ``httpReason``.
    public var httpStatus: Int {
        switch kind {
        case .invalid: 400
        case .idempotencyKeyReused: 422
        case .busy: 429
        case .outcomeUnknown, .unavailable, .limitReached: 503
        }
    }

    /// The headers of that answer: for a 503 or a 429, `Retry-After: 1` and `Sluice-Outcome`, which
    /// tells a producer whether what it sent may have been stored — `unknown` (retry with the same
    /// idempotency key to store it once) or `not-stored`.
    public var httpHeaders: [(name: String, value: String)] {
        switch kind {
        case .invalid, .idempotencyKeyReused: []
        case .outcomeUnknown: [("Retry-After", "1"), ("Sluice-Outcome", "unknown")]
        case .unavailable, .limitReached, .busy: [("Retry-After", "1"), ("Sluice-Outcome", "not-stored")]
        }
    }

    /// The text of that answer, for the client: ``message`` where it is about the request itself
    /// (what is refused and why); otherwise what happened to the request, without the server's
    /// details (those are in ``message``, for the server's log).
    public var httpReason: String {
        switch kind {
        case .invalid, .idempotencyKeyReused: message
        case .outcomeUnknown: "the outcome is unknown: it may have been stored; retry with the same Idempotency-Key to store it once"
        case .unavailable: "the event log is unavailable and nothing was stored; try again"
        case .limitReached: "a limit of the server was reached and nothing was stored; try again"
        case .busy: "too many events wait for the event log and nothing was stored; try again in a moment"
        }
    }

    /// `error` as the log tells it: its own errors as they are — except that one thrown before
    /// anything was `sent` (no connection within the limit) is ``Kind/unavailable``; PostgreSQL
    /// refusing the statement (the server answered: the statement, and so its transaction, did
    /// nothing) as ``Kind/unavailable``; any other failure as `broken`.
    static func classify(_ error: any Error, broken: Kind, sent: Bool = true) -> PostgresEventLogError {
        if let error = error as? PostgresEventLogError {
            return error.kind == .outcomeUnknown && !sent ? PostgresEventLogError(.unavailable, error.message) : error
        }
        if let error = error as? PSQLError, error.code == .server {
            return PostgresEventLogError(.unavailable, "PostgreSQL refused the statement: \(error.serverInfo?[.sqlState] ?? "?") \(error.serverInfo?[.message] ?? "")")
        }
        if let error = error as? PSQLError {
            return PostgresEventLogError(broken, "the connection to PostgreSQL failed: \(String(reflecting: error))")
        }
        return PostgresEventLogError(broken, "\(error)")
    }
}
#endif
