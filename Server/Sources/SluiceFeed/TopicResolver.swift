#if Server
/// A stream refused before it began, as every transport answers it: its status, its text, and,
/// when trying again later may succeed, `Retry-After` in seconds. SluiceHummingbird and
/// SluiceVapor render it; the texts are made here once.
package struct FeedStreamRefusal: Error, Sendable, Hashable {
    package let status: Int
    package let text: String
    package let retryAfter: Int?

    package init(status: Int, text: String, retryAfter: Int?) {
        self.status = status
        self.text = text
        self.retryAfter = retryAfter
    }

    /// 503: the feed serves as many clients as it may (``EventFeed/Options/maximumClients``).
    package static let full = FeedStreamRefusal(status: 503, text: "the feed serves as many clients as it may; try again later\n",
                                                retryAfter: 5)
    /// 401: the request names nobody (``TopicAccess/unauthorized``).
    package static let unauthorized = FeedStreamRefusal(status: 401, text: "not authenticated\n", retryAfter: nil)

    /// 403: the request may not read `topic` (``TopicAccess/forbidden``).
    package static func forbidden(_ topic: String) -> FeedStreamRefusal {
        FeedStreamRefusal(status: 403, text: "not allowed to read \(topic)\n", retryAfter: nil)
    }

    /// The feed of `topic` could not be had for `error`: as its ``FeedRefusal`` says.
    package static func unavailable(_ topic: String, _ error: any Error) -> FeedStreamRefusal {
        let refusal = FeedRefusal(error)
        return refusal.isRetriable
            ? FeedStreamRefusal(status: refusal.status, text: "the events of \(topic) are unavailable; try again\n", retryAfter: 1)
            : FeedStreamRefusal(status: refusal.status, text: "\(error)\n", retryAfter: nil)
    }

    /// A list of topics refused (``TopicList/validated(_:maximum:)``).
    package static func list(_ refusal: TopicList.Refusal) -> FeedStreamRefusal {
        FeedStreamRefusal(status: refusal.status, text: "\(refusal)\n", retryAfter: nil)
    }
}

/// How a request for one topic or a list of topics is decided, the same for every transport:
/// each topic authorized, its feed found, the list checked, every topic's start taken from the
/// request's last event id — or the refusal.
package struct TopicResolver<Output: Sendable>: Sendable {
    package let feeds: @Sendable (String) async throws -> EventFeed<Output>
    package let maximumTopics: Int

    package init(feeds: @escaping @Sendable (String) async throws -> EventFeed<Output>, maximumTopics: Int) {
        self.feeds = feeds
        self.maximumTopics = maximumTopics
    }

    /// `topic`'s feed and filter, or why the request may not follow it: 401 or 403 from `access`,
    /// or the refusal the feeds' error tells.
    package func topic(_ topic: String, access: TopicAccess<Output>)
        async -> Result<(feed: EventFeed<Output>, filter: (@Sendable (Output) -> Bool)?), FeedStreamRefusal> {
        let filter: (@Sendable (Output) -> Bool)?
        switch access {
        case .unauthorized: return .failure(.unauthorized)
        case .forbidden: return .failure(.forbidden(topic))
        case .allowed(let accepted): filter = accepted
        }
        do {
            return .success((try await feeds(topic), filter))
        } catch {
            return .failure(.unavailable(topic, error))
        }
    }

    /// The topics `names` asks for, each from where `lastEventID` (a ``TopicCursor``) puts it, or
    /// the refusal of the list, of one of its topics (the first refused), or of a full feed.
    package func topics(_ names: [String], lastEventID: String?, access: (String) async -> TopicAccess<Output>)
        async -> Result<[FeedTopic<Output>], FeedStreamRefusal> {
        let list: [String]
        do {
            list = try TopicList.validated(names, maximum: maximumTopics)
        } catch {
            return .failure(.list(error))
        }
        let starts = TopicCursor.resumePoints(lastEventID: lastEventID, topics: list)
        var topics: [FeedTopic<Output>] = []
        topics.reserveCapacity(list.count)
        for (name, start) in zip(list, starts) {
            switch await topic(name, access: await access(name)) {
            case .failure(let refusal):
                return .failure(refusal)
            case .success(let (feed, filter)):
                if feed.isFull { return .failure(.full) }
                topics.append(FeedTopic(name, feed: feed, from: feed.fixing(start), filter: filter))
            }
        }
        return .success(topics)
    }
}
#endif
