#if Server
import PostgresNIO

/// What a ``PostgresNotifications`` publisher delivers: the notifications on its channel, and what
/// a subscriber must know to trust them.
public enum PostgresNotificationEvent<Payload> {
    /// `LISTEN` is in place: every notification sent on the channel from now on will be delivered
    /// (or reported missing by a ``gap(_:)``). Delivered once, first.
    case listening
    /// A notification's payload.
    case notification(Payload)
    /// Notifications may have been missed here: the listening connection was lost and is listening
    /// again (whatever was sent meanwhile is gone — PostgreSQL keeps nothing for a listener that is
    /// not connected), or the subscriber fell behind and the buffer dropped its oldest entries.
    case gap(PostgresNotificationGap)
    /// A notification whose payload could not be decoded: its text and the decoder's error. The
    /// stream goes on.
    case undecodable(String, any Error)
}

extension PostgresNotificationEvent: Sendable where Payload: Sendable {}

extension PostgresNotificationEvent: CustomStringConvertible {
    /// The event, for logs and tests.
    public var description: String {
        switch self {
        case .listening: "listening"
        case .notification(let payload): "notification(\(payload))"
        case .gap(let gap): "gap(\(gap))"
        case .undecodable(let text, let error): "undecodable(\(text), \(error))"
        }
    }
}

/// Why notifications may be missing at a ``PostgresNotificationEvent/gap(_:)``.
public enum PostgresNotificationGap: Sendable, CustomStringConvertible {
    /// The connection was lost (with the error that ended it) and, after `attempts` connection
    /// attempts, is listening again.
    case reconnected(after: any Error, attempts: Int)
    /// The subscriber fell behind: this many of the oldest buffered events were dropped.
    case dropped(count: Int)

    /// The gap, for logs and tests.
    public var description: String {
        switch self {
        case .reconnected(let error, let attempts): "reconnected after \(PostgresFailure.describe(error)) in \(attempts) attempt(s)"
        case .dropped(let count): "dropped \(count)"
        }
    }
}
#endif
