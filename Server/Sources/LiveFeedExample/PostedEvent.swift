/// The text of a posted event, as the examples take it: the body, UTF-8 (checked, not decoded
/// lossily) and not empty. What the event log refuses besides (a NUL character, a topic name
/// outside its rule, a malformed `Idempotency-Key`) it answers itself, with 400.
public enum PostedEvent {
    /// The largest body a post may have (1 MiB): larger ones are answered 413 by the framework.
    public static let largestBody = 1 << 20

    /// The event's text, or why the body cannot be one (to answer with 400).
    public static func text<Bytes: Collection<UInt8>>(of body: Bytes) -> Result<String, Refusal> {
        guard !body.isEmpty, let text = String(validating: body, as: UTF8.self) else {
            return .failure(Refusal())
        }
        return .success(text)
    }

    /// A body that is not an event's text.
    public struct Refusal: Error, CustomStringConvertible {
        /// What the answer says.
        public var description: String { "the body must be UTF-8 text, not empty" }
    }

    /// The answer's body for an event appended (or appended before, under the same key): its id.
    public static func accepted(_ id: some CustomStringConvertible) -> String {
        "{\"id\":\"\(id)\"}\n"
    }
}
