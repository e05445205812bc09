#if Server
import PostgresNIO

/// A failure of PostgreSQL that a ``PostgresNotifications`` subscriber or a ``PostgresNotifier``
/// is told of, with what the server said (PostgresNIO's own errors print no detail, on purpose).
public struct PostgresFailure: Error, Sendable, CustomStringConvertible {
    /// The SQLSTATE the server sent, if it sent one (`28P01`: wrong password, `3D000`: no such
    /// database, `57P01`: the backend was terminated…).
    public let sqlState: String?
    /// What the server or the connection said.
    public let message: String
    /// The error as PostgresNIO reported it.
    public let underlying: any Error

    init(_ error: any Error) {
        underlying = error
        if let psql = error as? PSQLError {
            sqlState = psql.serverInfo?[.sqlState]
            message = psql.serverInfo?[.message] ?? "\(psql.code)"
        } else {
            sqlState = nil
            message = "\(error)"
        }
    }

    init(message: String) {
        sqlState = nil
        self.message = message
        underlying = ConnectionEnded()
    }

    /// The listening connection ended without an error.
    struct ConnectionEnded: Error {}

    /// "SQLSTATE: message", or the message alone.
    public var description: String {
        sqlState.map { "PostgreSQL refused (\($0)): \(message)" } ?? "PostgreSQL connection failed: \(message)"
    }

    /// Whether the server refused for a reason that trying again will not cure: authentication
    /// (SQLSTATE class 28), a missing database (3D), no right or a bad name (42), a protocol or
    /// authentication method PostgresNIO cannot speak.
    var isRefusal: Bool {
        if let sqlState {
            return sqlState.hasPrefix("28") || sqlState.hasPrefix("3D") || sqlState.hasPrefix("42")
        }
        guard let psql = underlying as? PSQLError else { return false }
        return [.unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError, .sslUnsupported]
            .contains(psql.code)
    }

    static func describe(_ error: any Error) -> String {
        (error as? PostgresFailure)?.description ?? PostgresFailure(error).description
    }
}
#endif
