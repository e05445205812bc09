#if Server && Hummingbird
import HTTPTypes
import Hummingbird

/// A route of a Hummingbird app that throws a ``PostgresEventLogError`` answers with its
/// ``PostgresEventLogError/httpStatus``, ``PostgresEventLogError/httpHeaders`` and
/// ``PostgresEventLogError/httpReason``, in the body Hummingbird gives its own `HTTPError`s
/// (`{"error":{"message":"…"}}`): 503 with `Retry-After` when the database is unavailable, 400 for
/// what can never be appended.
extension PostgresEventLogError: HTTPResponseError, AnswersInHummingbird {}

/// Hummingbird's answer to an error that knows its HTTP answer. (Its `status` is given here rather
/// than in the error's type: Vapor's `AbortError` asks for a `status` of another type.)
protocol AnswersInHummingbird: HTTPResponseError {
    var httpStatus: Int { get }
    var httpHeaders: [(name: String, value: String)] { get }
    var httpReason: String { get }
}

extension AnswersInHummingbird {
    /// The answer's status: `httpStatus`.
    public var status: HTTPResponse.Status { .init(code: httpStatus) }

    /// The answer: `httpStatus`, `httpHeaders`, and `httpReason` as Hummingbird's `HTTPError`
    /// gives its message.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [:]
        for (name, value) in httpHeaders {
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
        return try HTTPError(status, headers: headers, message: httpReason).response(from: request, context: context)
    }
}
#endif
