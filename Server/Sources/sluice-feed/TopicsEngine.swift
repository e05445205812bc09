import Hummingbird
import NIOConcurrencyHelpers
import Sluice
import SluiceHummingbird

/// `--topics N`: Sluice's engine with `N` topics in memory, `t0` … `t<N-1>`, served as the event
/// log's topics are (`GET /events?topic=a&topic=b…`, one connection following several, through
/// ``TopicEventStreams``; `GET /events/{topic}`), for the fan-out benchmark of many topics.
///
/// Each topic is a feed over a log of its own (a subject of ``LogEntry``), all under one epoch,
/// each numbering its events from 1, as the PostgreSQL event log's topics are: a connection's
/// cursor then writes the epoch once and a position per topic. The benchmark's events go to topics
/// drawn by ``BenchTopics/topic(ofEvent:among:)``; a post to `POST /events` goes to `t0`.
final class TopicsEngine: FanOutEngine {
    /// The topics' names, in order.
    let names: [String]
    /// The topics' feeds, in the order of ``names``.
    let feeds: [EventFeed<ServerSentEvent>]
    /// The streams of the topics.
    let streams: TopicEventStreams<ServerSentEvent>
    private let subjects: [PassthroughSubject<LogEntry<ServerSentEvent>, Never>]
    private let epoch = EventID.randomEpoch()
    /// Each topic's last position; the lock also keeps each subject's sends one at a time.
    private let positions: NIOLockedValueBox<[UInt64]>

    init(topics: Int, policy: SlowClientPolicy) {
        names = (0..<topics).map { "t\($0)" }
        subjects = names.map { _ in PassthroughSubject<LogEntry<ServerSentEvent>, Never>() }
        let epoch = epoch
        feeds = zip(names, subjects).map { name, subject in
            EventFeed(log: subject, after: EventID(epoch: epoch, position: 0), history: nil,
                      options: .init(replay: 1_024, policy: policy, name: name))
        }
        positions = NIOLockedValueBox(Array(repeating: 0, count: topics))
        let byName = Dictionary(uniqueKeysWithValues: zip(names, feeds))
        streams = TopicEventStreams(feeds: { name in
            guard let feed = byName[name] else { throw UnknownTopic(name: name) }
            return feed
        })
    }

    /// Publishes `text` as the next event of topic number `topic`.
    func publish(_ text: String, toTopic topic: Int) {
        positions.withLockedValue { positions in
            positions[topic] += 1
            subjects[topic].send(.event(EventID(epoch: epoch, position: positions[topic]), ServerSentEvent(data: text)))
        }
    }

    func publish(_ event: NumberedEvent) {
        publish(event.text, toTopic: 0)
    }

    /// Served by ``FeedRoutes`` through ``streams``.
    func eventsResponse(to request: Request) -> Response {
        Response(status: .notFound)
    }

    /// The topics' counters summed: `clients` counts a connection once per topic it follows.
    var stats: EngineStats {
        var total = EngineStats()
        for feed in feeds {
            let stats = feed.stats
            total.clients += stats.connectedClients
            total.published += Int(stats.eventsPublished)
            total.delivered += stats.eventsDelivered
            total.dropped += stats.eventsDropped
            total.disconnected += stats.clientsDisconnected
        }
        return total
    }

    func finish() {
        for feed in feeds { feed.finish() }
    }

    /// A topic this server does not have: refused with 404.
    struct UnknownTopic: Error, CustomStringConvertible {
        let name: String
        var description: String { "no topic \(name)" }
    }
}

/// Which topic each of the benchmark's events goes to, with `--topics`: the same in `sluice-feed`,
/// `sluice-fanout-load` and `bench/nchan-shim.py`, so that the load generator knows which events
/// each of its clients must get.
enum BenchTopics {
    /// The topic (`0..<topics`) of event `seq` (from 0): SplitMix64 of `seq`, modulo `topics`.
    static func topic(ofEvent seq: Int, among topics: Int) -> Int {
        var z = UInt64(seq) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(topics))
    }
}
