#if Server
/// What a request may see of a topic: decided per request and topic before any stream starts.
public enum TopicAccess<Output>: Sendable {
    /// The stream may start; with `filter`, the client gets only the events it accepts.
    case allowed(filter: (@Sendable (Output) -> Bool)?)
    /// 401: the request says nobody (or nobody known).
    case unauthorized
    /// 403: the request's somebody may not see this topic.
    case forbidden

    /// The stream may start, every event shown.
    public static var allowed: TopicAccess { .allowed(filter: nil) }
}
#endif
