#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SluiceCore

/// The task a `.currentTask` timeline records for: set around `Timeline.record`'s body.
enum TimelineTask {
    @TaskLocal static var recorder: ObjectIdentifier?
}

/// The `_Introspection` a ``Timeline`` enables while it records: turns each report into a lane or
/// an event, kept in a ring of `capacity` events (the oldest dropped, and counted, once it is
/// full). Reports come on any thread; everything is kept behind one lock, taken once per event;
/// descriptions and identifiers are read before it is taken, so nothing is called out under it.
final class TimelineTap: _Introspection, @unchecked Sendable {
    private let lock = Lock()
    private let capacity: Int
    private let scope: Timeline.Scope
    // Guarded by `lock`.
    private var origin = ContinuousClock.now
    private var ring: [TimelineEvent] = []
    private var next = 0
    private var dropped = 0
    private var lanes: [TimelineLane] = []
    private var laneOfSubscriber: [CombineIdentifier: Int] = [:]
    private var laneOfSubscription: [CombineIdentifier: Int] = [:]
    /// Lanes whose subscription completed or was cancelled: a subscriber that comes with one of
    /// their identifiers is a new one at a reused address, with a lane of its own.
    private var endedLanes: Set<Int> = []
    private var threadNumbers: [UInt64: Int] = [:]

    init(capacity: Int, scope: Timeline.Scope) {
        precondition(capacity > 0, "Timeline: capacity must be at least 1")
        self.capacity = capacity
        self.scope = scope
        ring.reserveCapacity(min(capacity, 4_096))
    }

    /// Forgets everything recorded and restarts the clock.
    func reset() {
        lock.withLock {
            origin = .now
            ring.removeAll(keepingCapacity: true)
            next = 0
            dropped = 0
            lanes = []
            laneOfSubscriber = [:]
            laneOfSubscription = [:]
            endedLanes = []
            threadNumbers = [:]
        }
    }

    /// What has been recorded so far, oldest event first.
    var recording: TimelineRecording {
        lock.withLock {
            let events = ring.count < capacity ? ring : Array(ring[next...] + ring[..<next])
            return TimelineRecording(lanes: lanes, events: events, dropped: dropped)
        }
    }

    // MARK: - Recording (lock held)

    private func append(_ kind: TimelineEvent.Kind, lane: Int, thread: UInt64) {
        let number = threadNumbers[thread] ?? {
            let number = threadNumbers.count + 1
            threadNumbers[thread] = number
            return number
        }()
        let event = TimelineEvent(lane: lane, kind: kind, thread: number, time: .now - origin)
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[next] = event
            next = (next + 1) % capacity
            dropped += 1
        }
    }

    private func record(_ kind: TimelineEvent.Kind, subscriber: CombineIdentifier) {
        let thread = Self.currentThread()
        lock.withLock {
            guard let lane = laneOfSubscriber[subscriber] else { return }
            append(kind, lane: lane, thread: thread)
            if case .completion = kind { endedLanes.insert(lane) }
        }
    }

    private func record(_ kind: TimelineEvent.Kind, subscription: CombineIdentifier) {
        let thread = Self.currentThread()
        lock.withLock {
            guard let lane = laneOfSubscription[subscription] else { return }
            append(kind, lane: lane, thread: thread)
            if case .cancel = kind { endedLanes.insert(lane) }
        }
    }

    private static func currentThread() -> UInt64 {
        #if canImport(Darwin)
        UInt64(UInt(bitPattern: pthread_self()))
        #else
        UInt64(pthread_self())
        #endif
    }

    /// A type's name without its module or generic arguments: `Map` for `Publishers.Map<…>`.
    private static func shortName(of type: Any.Type) -> String {
        let name = _typeName(type, qualified: false)
        return String(name.prefix { $0 != "<" })
    }

    private static func describe(_ value: Any) -> String {
        let text = String(describing: value)
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }

    // MARK: - _Introspection

    func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
        if scope == .currentTask && TimelineTask.recorder != ObjectIdentifier(self) { return }
        // A subscriber that does not describe itself is described by its full generic type: its
        // type's name is shorter, and says as much.
        let described = String(describing: subscriber)
        let name = described.contains("<") ? Self.shortName(of: Downstream.self) : described
        let publisherName = Self.shortName(of: Upstream.self)
        let thread = Self.currentThread()
        let identifier = subscriber.combineIdentifier
        lock.withLock {
            // A subscriber passed on by an operator already has its lane (unless that lane ended:
            // then this is another subscriber at the same address).
            if let lane = laneOfSubscriber[identifier], !endedLanes.contains(lane) { return }
            let lane = lanes.count + 1
            lanes.append(TimelineLane(id: lane, subscriber: name, publisher: publisherName))
            laneOfSubscriber[identifier] = lane
            append(.subscribe, lane: lane, thread: thread)
        }
    }

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {
        let (subscriberID, subscriptionID) = (subscriber.combineIdentifier, subscription.combineIdentifier)
        lock.withLock {
            guard let lane = laneOfSubscriber[subscriberID] else { return }
            laneOfSubscription[subscriptionID] = lane
        }
    }

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        record(.value(Self.describe(input)), subscriber: subscriber.combineIdentifier)
    }

    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {
        guard resultingDemand != .none else { return }
        record(.returnedDemand(resultingDemand), subscriber: subscriber.combineIdentifier)
    }

    func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        let text: String
        switch completion {
        case .finished: text = "finished"
        case .failure(let error): text = "failure(\(Self.describe(error)))"
        }
        record(.completion(text), subscriber: subscriber.combineIdentifier)
    }

    func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {
        record(.request(demand), subscription: subscription.combineIdentifier)
    }

    func willCancel(subscription: any Subscription) {
        record(.cancel, subscription: subscription.combineIdentifier)
    }
}
