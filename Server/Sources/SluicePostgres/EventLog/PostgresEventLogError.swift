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
        case .limitReached: .limitReached
        case .idempotencyKeyReused, .outcomeUnknown, .unavailable: .unavailable
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
