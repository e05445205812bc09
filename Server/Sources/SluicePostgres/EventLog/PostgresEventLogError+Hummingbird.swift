#if Server && Hummingbird
import HTTPTypes
import Hummingbird

/// A route of a Hummingbird app that throws a ``PostgresEventLogError`` answers with its
/// ``PostgresEventLogError/httpStatus``, ``PostgresEventLogError/httpHeaders`` and
/// ``PostgresEventLogError/httpReason`` (as plain text): 503 with `Retry-After` when the database is
/// unavailable, 400 for what can never be appended.
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

    /// The answer: `httpStatus`, `httpHeaders`, and `httpReason` as plain text.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        for (name, value) in httpHeaders {
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: httpReason + "\n")))
    }
}
#endif
