import Foundation
import NIOConcurrencyHelpers
import Sluice
import SluiceEventSource
import SluiceFeed

/// A Swift client of the fleet: SluiceEventSource's `EventSource` (or its WebSocket counterpart,
/// `EventSocket`) on one URL — a proxy that the fleet test moves between instances by dropping its
/// connections — reconnecting and resuming with `Last-Event-ID` (`lastEventId`) by itself, as a
/// browser does. Read through the `AsyncSequence` (`events`) or through the Combine publisher (a
/// subscriber of its own). With `topics`, its URL is a stream of several topics (`?topic=a&topic=b`):
/// the events of the first are ``received``, the others' ``side``, each placed by the connection's
/// cursor (its `id:`), and a reset of any topic counts.
final class SwiftFleetClient: Sendable {
    enum Surface: String, Sendable { case asyncSequence = "async", publisher, socket }

    let name: String
    let surface: Surface
    let url: URL
    let topics: [String]?
    private let state = NIOLockedValueBox((received: [FleetClient.Received](), side: [String: [FleetClient.Received]](), resets: 0, ended: ""))

    init(name: String, surface: Surface, url: URL, topics: [String]? = nil) {
        self.name = name
        self.surface = surface
        self.url = url
        self.topics = topics
    }

    var received: [FleetClient.Received] { state.withLockedValue { $0.received } }
    /// Of a stream of several topics, the events of the topics after the first, by topic.
    var side: [String: [FleetClient.Received]] { state.withLockedValue { $0.side } }
    var resets: Int { state.withLockedValue { $0.resets } }
    /// How its reading ended, if it did by itself (a failure).
    var ended: String { state.withLockedValue { $0.ended } }

    /// Reads until it has every event (`stop.last`, once known) or the deadline passes.
    func run(stop: ClientsStop) async {
        // Reconnect soon after a move (the server's `retry:` of 3 s would be slow for a test).
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(200), maximumBackoff: .seconds(1))
        let source = EventSource(url: url, configuration: configuration)
        let reading = Task { [self] in
            switch surface {
            case .asyncSequence, .socket:
                do {
                    if surface == .socket {
                        for try await event in EventSocket(url: url, configuration: configuration).events { if take(event, stop) { return } }
                    } else {
                        for try await event in source.events { if take(event, stop) { return } }
                    }
                    if !Task.isCancelled { state.withLockedValue { $0.ended = "finished" } }
                } catch {
                    state.withLockedValue { $0.ended = "\(error)" }
                }
            case .publisher:
                let done = AsyncStream<Void>.makeStream()
                let subscription = source.sink(receiveCompletion: { [self] completion in
                    state.withLockedValue { $0.ended = "\(completion)" }   // never, unless it failed
                    done.continuation.finish()
                }, receiveValue: { [self] event in
                    if take(event, stop) { done.continuation.finish() }
                })
                for await _ in done.stream {}
                subscription.cancel()
            }
        }
        // Done once it has the last event (it may have it before the last position is known), or
        // at the deadline.
        let watcher = Task { [self] in
            while ContinuousClock.now < stop.deadline {
                if let last = stop.last, let have = received.last?.position, have >= last { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            reading.cancel()
        }
        await withTaskCancellationHandler { await reading.value } onCancel: { reading.cancel() }
        watcher.cancel()
    }

    /// Records `event`; whether the client has every event.
    private func take(_ event: EventSource.Event, _ stop: ClientsStop) -> Bool {
        switch event {
        case .event(let message) where topics != nil:
            let topics = topics!
            if message.event == "reset" { state.withLockedValue { $0.resets += 1 } }
            guard let index = topics.firstIndex(of: message.event), let cursor = TopicCursor(message.id, topics: topics) else { return false }
            let id = cursor.positions[index]
            let event = FleetClient.Received(epoch: id.epoch, position: id.position, payload: message.data)
            if index > 0 { state.withLockedValue { $0.side[message.event, default: []].append(event) }; return false }
            state.withLockedValue { $0.received.append(event) }
            if let last = stop.last { return id.position >= last }
        case .event(let message):
            guard let id = EventID(message.id) else { return false }
            state.withLockedValue { $0.received.append(.init(epoch: id.epoch, position: id.position, payload: message.data)) }
            if let last = stop.last { return id.position >= last }
        case .reset, .topicReset:
            state.withLockedValue { $0.resets += 1 }
        case .dropped, .shutdown, .topicDropped, .topicRefused:
            break
        }
        return false
    }
}
