/// Who may read and post a topic, in the examples: anyone, except topics named `private.…`, which
/// take `Authorization: Bearer <token>` with the app's token (none set: they stay closed).
public struct TopicRule: Sendable {
    /// What a request may do with a topic.
    public enum Decision: Sendable, Equatable {
        /// It may read and post.
        case allowed
        /// 401: it names nobody (no token where one is needed).
        case unauthorized
        /// 403: its token does not open the topic.
        case forbidden
    }

    /// The token of `private.…` topics.
    let token: String?

    /// A rule with `token` for `private.…` topics.
    public init(token: String?) {
        self.token = token
    }

    /// What a request with the `authorization` header may do with `topic`.
    public func decide(topic: String, authorization: String?) -> Decision {
        guard topic.hasPrefix("private.") else { return .allowed }
        guard let authorization, authorization.hasPrefix("Bearer ") else { return .unauthorized }
        guard let token, authorization.dropFirst("Bearer ".count) == token else { return .forbidden }
        return .allowed
    }
}
