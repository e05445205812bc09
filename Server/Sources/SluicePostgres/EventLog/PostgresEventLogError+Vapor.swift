#if Server && Vapor
import Vapor

/// A route of a Vapor app that throws a ``PostgresEventLogError`` answers, through Vapor's
/// `ErrorMiddleware`, with its ``PostgresEventLogError/httpStatus``,
/// ``PostgresEventLogError/httpHeaders`` and ``PostgresEventLogError/httpReason``: 503 with
/// `Retry-After` when the database is unavailable, 400 for what can never be appended.
extension PostgresEventLogError: AbortError, AnswersInVapor {}

/// Vapor's answer to an error that knows its HTTP answer. (Its `status` is given here rather than
/// in the error's type: Hummingbird's `HTTPResponseError` asks for a `status` of another type.)
protocol AnswersInVapor: AbortError {
    var httpStatus: Int { get }
    var httpHeaders: [(name: String, value: String)] { get }
    var httpReason: String { get }
}

extension AnswersInVapor {
    /// The answer's status: `httpStatus`.
    public var status: HTTPResponseStatus { HTTPResponseStatus(statusCode: httpStatus) }

    /// The answer's text: `httpReason`.
    public var reason: String { httpReason }

    /// The answer's headers: `httpHeaders`.
    public var headers: HTTPHeaders { HTTPHeaders(httpHeaders) }
}
#endif
