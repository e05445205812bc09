// The value-type half of the engine behind `combineLatest` and `zip` (and their 3- and 4-ary
// forms): what each upstream's slot keeps, the slots of one subscription, and the state machine
// that decides — under the owner's lock — what to deliver, request and cancel. The thin class that
// performs those decisions is `CombiningSubscription`.

// MARK: Slots

/// What a combining operator keeps of one upstream's values.
///
/// The two families differ only here: `combineLatest` keeps the latest value (``LatestSlot``),
/// `zip` a FIFO queue of the values not yet paired (``QueueSlot``).
@usableFromInline
package protocol CombiningSlot {
    /// The upstream's output.
    associatedtype Value
    /// `true` for the latest-value family: a value is reused by every output until replaced, and
    /// an output is owed only when some value arrived since the last output.
    static var keepsLatest: Bool { get }
    /// An empty slot.
    init()
    /// Whether the slot can contribute to an output.
    var hasValue: Bool { get }
    /// Keeps a value that arrived.
    mutating func put(_ value: Value)
    /// The slot's contribution to an output (the latest value, or the oldest queued one, which is
    /// removed). Only called when ``hasValue``.
    mutating func take() -> Value
    /// Forgets every value.
    mutating func removeAll()
}

/// `combineLatest`'s slot: the latest value, reused until replaced.
@usableFromInline
package struct LatestSlot<Value>: CombiningSlot {
    @usableFromInline var value: Value?

    @inlinable package static var keepsLatest: Bool { true }

    @inlinable package init() {}

    @inlinable package var hasValue: Bool { value != nil }

    @inlinable package mutating func put(_ value: Value) { self.value = value }

    @inlinable package mutating func take() -> Value { value.unsafelyUnwrapped }

    @inlinable package mutating func removeAll() { value = nil }
}

/// `zip`'s slot: the values not yet paired, oldest first.
@usableFromInline
package struct QueueSlot<Value>: CombiningSlot {
    /// The queue is `buffer[head...]`; the consumed prefix is dropped once it is large.
    @usableFromInline var buffer = ContiguousArray<Value>()
    @usableFromInline var head = 0

    @inlinable package static var keepsLatest: Bool { false }

    @inlinable package init() {}

    @inlinable package var hasValue: Bool { head < buffer.count }

    /// How many values wait to be paired.
    @inlinable package var count: Int { buffer.count - head }

    @inlinable package mutating func put(_ value: Value) { buffer.append(value) }

    @inlinable
    package mutating func take() -> Value {
        let value = buffer[head]
        head += 1
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 16 && head &* 2 >= buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
        return value
    }

    @inlinable
    package mutating func removeAll() {
        buffer = []
        head = 0
    }
}

// MARK: Storage

/// The slots of one subscription, one per upstream, and the tuple they combine into.
@usableFromInline
package protocol CombiningStorage {
    /// The tuple published downstream.
    associatedtype Output
    /// How many upstreams (2 to 4).
    static var arity: Int { get }
    /// `true` for `combineLatest`, `false` for `zip` (see ``CombiningSlot/keepsLatest``).
    static var keepsLatest: Bool { get }
    /// Empty slots.
    init()
    /// Whether every slot can contribute to an output.
    var isComplete: Bool { get }
    /// Whether the slot of upstream `index` has nothing to contribute.
    func isEmpty(at index: Int) -> Bool
    /// Takes one contribution from every slot. Only called when ``isComplete``.
    mutating func take() -> Output
    /// Forgets every value.
    mutating func removeAll()
}

/// One upstream's entrance into a ``CombiningStorage``: which slot its values go to.
@usableFromInline
package protocol CombiningLane {
    /// The storage the lane belongs to.
    associatedtype Storage: CombiningStorage
    /// The upstream's output.
    associatedtype Value
    /// The upstream's position, from 0.
    static var index: Int { get }
    /// Puts a value into the lane's slot.
    static func put(_ value: Value, into storage: inout Storage)
}

/// The slots of a two-upstream operator.
@usableFromInline
package struct CombiningStorage2<S0: CombiningSlot, S1: CombiningSlot>: CombiningStorage {
    @usableFromInline var s0 = S0()
    @usableFromInline var s1 = S1()

    @inlinable package init() {}
    @inlinable package static var arity: Int { 2 }
    @inlinable package static var keepsLatest: Bool { S0.keepsLatest }
    @inlinable package var isComplete: Bool { s0.hasValue && s1.hasValue }

    @inlinable
    package func isEmpty(at index: Int) -> Bool {
        index == 0 ? !s0.hasValue : !s1.hasValue
    }

    @inlinable
    package mutating func take() -> (S0.Value, S1.Value) { (s0.take(), s1.take()) }

    @inlinable
    package mutating func removeAll() {
        s0.removeAll()
        s1.removeAll()
    }

    /// The first upstream's lane.
    @usableFromInline
    package enum Lane0: CombiningLane {
        @inlinable package static var index: Int { 0 }
        @inlinable package static func put(_ value: S0.Value, into storage: inout CombiningStorage2) {
            storage.s0.put(value)
        }
    }

    /// The second upstream's lane.
    @usableFromInline
    package enum Lane1: CombiningLane {
        @inlinable package static var index: Int { 1 }
        @inlinable package static func put(_ value: S1.Value, into storage: inout CombiningStorage2) {
            storage.s1.put(value)
        }
    }
}

/// The slots of a three-upstream operator.
@usableFromInline
package struct CombiningStorage3<S0: CombiningSlot, S1: CombiningSlot, S2: CombiningSlot>: CombiningStorage {
    @usableFromInline var s0 = S0()
    @usableFromInline var s1 = S1()
    @usableFromInline var s2 = S2()

    @inlinable package init() {}
    @inlinable package static var arity: Int { 3 }
    @inlinable package static var keepsLatest: Bool { S0.keepsLatest }
    @inlinable package var isComplete: Bool { s0.hasValue && s1.hasValue && s2.hasValue }

    @inlinable
    package func isEmpty(at index: Int) -> Bool {
        switch index {
        case 0: return !s0.hasValue
        case 1: return !s1.hasValue
        default: return !s2.hasValue
        }
    }

    @inlinable
    package mutating func take() -> (S0.Value, S1.Value, S2.Value) { (s0.take(), s1.take(), s2.take()) }

    @inlinable
    package mutating func removeAll() {
        s0.removeAll()
        s1.removeAll()
        s2.removeAll()
    }

    /// The first upstream's lane.
    @usableFromInline
    package enum Lane0: CombiningLane {
        @inlinable package static var index: Int { 0 }
        @inlinable package static func put(_ value: S0.Value, into storage: inout CombiningStorage3) {
            storage.s0.put(value)
        }
    }

    /// The second upstream's lane.
    @usableFromInline
    package enum Lane1: CombiningLane {
        @inlinable package static var index: Int { 1 }
        @inlinable package static func put(_ value: S1.Value, into storage: inout CombiningStorage3) {
            storage.s1.put(value)
        }
    }

    /// The third upstream's lane.
    @usableFromInline
    package enum Lane2: CombiningLane {
        @inlinable package static var index: Int { 2 }
        @inlinable package static func put(_ value: S2.Value, into storage: inout CombiningStorage3) {
            storage.s2.put(value)
        }
    }
}

/// The slots of a four-upstream operator.
@usableFromInline
package struct CombiningStorage4<S0: CombiningSlot, S1: CombiningSlot, S2: CombiningSlot, S3: CombiningSlot>:
    CombiningStorage
{
    @usableFromInline var s0 = S0()
    @usableFromInline var s1 = S1()
    @usableFromInline var s2 = S2()
    @usableFromInline var s3 = S3()

    @inlinable package init() {}
    @inlinable package static var arity: Int { 4 }
    @inlinable package static var keepsLatest: Bool { S0.keepsLatest }
    @inlinable package var isComplete: Bool { s0.hasValue && s1.hasValue && s2.hasValue && s3.hasValue }

    @inlinable
    package func isEmpty(at index: Int) -> Bool {
        switch index {
        case 0: return !s0.hasValue
        case 1: return !s1.hasValue
        case 2: return !s2.hasValue
        default: return !s3.hasValue
        }
    }

    @inlinable
    package mutating func take() -> (S0.Value, S1.Value, S2.Value, S3.Value) {
        (s0.take(), s1.take(), s2.take(), s3.take())
    }

    @inlinable
    package mutating func removeAll() {
        s0.removeAll()
        s1.removeAll()
        s2.removeAll()
        s3.removeAll()
    }

    /// The first upstream's lane.
    @usableFromInline
    package enum Lane0: CombiningLane {
        @inlinable package static var index: Int { 0 }
        @inlinable package static func put(_ value: S0.Value, into storage: inout CombiningStorage4) {
            storage.s0.put(value)
        }
    }

    /// The second upstream's lane.
    @usableFromInline
    package enum Lane1: CombiningLane {
        @inlinable package static var index: Int { 1 }
        @inlinable package static func put(_ value: S1.Value, into storage: inout CombiningStorage4) {
            storage.s1.put(value)
        }
    }

    /// The third upstream's lane.
    @usableFromInline
    package enum Lane2: CombiningLane {
        @inlinable package static var index: Int { 2 }
        @inlinable package static func put(_ value: S2.Value, into storage: inout CombiningStorage4) {
            storage.s2.put(value)
        }
    }

    /// The fourth upstream's lane.
    @usableFromInline
    package enum Lane3: CombiningLane {
        @inlinable package static var index: Int { 3 }
        @inlinable package static func put(_ value: S3.Value, into storage: inout CombiningStorage4) {
            storage.s3.put(value)
        }
    }
}

// MARK: Upstream bookkeeping

/// The upstream subscriptions of one combining subscription, by position (at most four), without
/// an array: the state machine stays free of allocations.
@usableFromInline
package struct CombiningUpstreams {
    @usableFromInline var u0 = UpstreamStatus()
    @usableFromInline var u1 = UpstreamStatus()
    @usableFromInline var u2 = UpstreamStatus()
    @usableFromInline var u3 = UpstreamStatus()

    @inlinable package init() {}

    @inlinable
    package subscript(index: Int) -> UpstreamStatus {
        get {
            switch index {
            case 0: return u0
            case 1: return u1
            case 2: return u2
            default: return u3
            }
        }
        set {
            switch index {
            case 0: u0 = newValue
            case 1: u1 = newValue
            case 2: u2 = newValue
            default: u3 = newValue
            }
        }
    }
}

/// Calls to make on upstream subscriptions once the lock is released: cancel them all, or request
/// the same demand from each. Holds at most four, inline.
@usableFromInline
package struct CombiningCalls {
    @usableFromInline var s0: (any Subscription)?
    @usableFromInline var s1: (any Subscription)?
    @usableFromInline var s2: (any Subscription)?
    @usableFromInline var s3: (any Subscription)?
    /// How many subscriptions are held.
    @usableFromInline package private(set) var count = 0
    /// `.none`: cancel the subscriptions; otherwise request this much from each.
    @usableFromInline package var demand = Subscribers.Demand.none
    /// `zip`: the demand to return from the upstream's `receive(_:)` whose value started the
    /// delivery that just ended (see ``CombiningState``).
    @usableFromInline package var returned = Subscribers.Demand.none

    @inlinable package init() {}

    @inlinable
    package mutating func append(_ subscription: any Subscription) {
        switch count {
        case 0: s0 = subscription
        case 1: s1 = subscription
        case 2: s2 = subscription
        default: s3 = subscription
        }
        count += 1
    }

    /// The subscriptions held, in upstream order.
    @inlinable
    package var subscriptions: [any Subscription] {
        [s0, s1, s2, s3].prefix(count).map { $0! }
    }

    /// Makes the calls. Call without holding any lock.
    @inlinable
    package func perform() {
        guard count > 0 else { return }
        call(s0)
        if count > 1 { call(s1) }
        if count > 2 { call(s2) }
        if count > 3 { call(s3) }
    }

    @inlinable
    func call(_ subscription: (any Subscription)?) {
        guard let subscription else { return }
        if demand == .none {
            subscription.cancel()
        } else {
            subscription.request(demand)
        }
    }
}

// MARK: State machine

/// What the delivering thread does next, decided under the lock and done outside it.
@usableFromInline
package enum CombiningStep<Output, Failure: Error, Target> {
    /// Nothing (more) to deliver now.
    case idle
    /// Deliver a value, then ask the state for the next step (``CombiningState/delivered(_:_:)``).
    case value(Output, Target)
    /// Deliver the completion; the subscription is over.
    case completion(Subscribers.Completion<Failure>, Target)
}

/// What to do with a subscription an upstream sends.
@usableFromInline
package enum CombiningAttachment: Equatable {
    /// Keep it; request nothing yet.
    case keep
    /// Keep it and request the demand already forwarded to the other upstreams.
    case request(Subscribers.Demand)
    /// Cancel it: the subscription is over, or the upstream had already sent one.
    case cancel
}

/// The state of one `combineLatest`/`zip` subscription: the slots, the downstream demand, the
/// upstream subscriptions, and the serialisation of deliveries.
///
/// Kept behind the owner's lock; no method calls out. Each transition returns the step the
/// calling thread must take once the lock is released, and fills `calls` with what to cancel or
/// request upstream.
///
/// - Outputs: `zip` emits when every slot holds a value (consuming the oldest of each);
///   `combineLatest` when every slot holds a value and one arrived since the last output.
///   `combineLatest`'s output needs downstream demand; without it the values wait in the slots
///   (the latest one replacing the previous). `zip` emits without looking at the demand, as
///   Apple's does: its upstreams are asked for as many values as the downstream wants, so only an
///   upstream that sends beyond its demand makes it exceed the downstream's.
/// - Serialisation: one thread at a time delivers (`isDelivering`). An output that becomes due
///   while another thread delivers waits — in the slots for `zip`, in `queue` as a snapshot for
///   `combineLatest` (a later value would overwrite it otherwise) — and that thread delivers it.
///   The window during which the downstream is inside `receive(subscription:)` counts as a
///   delivery, so nothing reaches it before its subscription.
/// - Demand: every downstream request, and the demand the downstream returns from `receive(_:)`,
///   is requested from every upstream that has not finished (Apple: "passes through any requests
///   to all upstream publishers"). `zip`, as Apple's, makes one exception: while it delivers an
///   output that a value of upstream `i` completed, from inside that upstream's `receive(_:)`,
///   the demand meant for upstream `i` is summed up and returned from that `receive(_:)` when the
///   delivery ends (``CombiningCalls/returned``) instead of being requested.
/// - Ending: a failure cancels the other upstreams and fails once. `zip` finishes as soon as an
///   upstream has finished and its slot is empty (nothing more can be paired), cancelling the
///   others; `combineLatest` finishes when every upstream has finished (after an owed output,
///   if any). Outputs already accepted are delivered before the completion.
@usableFromInline
package struct CombiningState<Storage: CombiningStorage, Failure: Error, Target> {
    @usableFromInline package typealias Step = CombiningStep<Storage.Output, Failure, Target>

    @usableFromInline var storage = Storage()
    @usableFromInline var upstreams = CombiningUpstreams()
    /// Bit `i` set: upstream `i` has finished.
    @usableFromInline var finishedMask: UInt8 = 0
    /// The downstream; `nil` once cancelled or completed.
    @usableFromInline package private(set) var target: Target?
    /// The downstream demand not yet used by an output.
    @usableFromInline package private(set) var demand = Subscribers.Demand.none
    /// All demand requested from the upstreams so far (for an upstream that subscribes late).
    @usableFromInline var forwarded = Subscribers.Demand.none
    /// `combineLatest`: a value arrived since the last output.
    @usableFromInline var hasFreshValue = false
    /// `combineLatest`: outputs that became due during a delivery, `queue[queueHead...]`.
    @usableFromInline var queue = ContiguousArray<Storage.Output>()
    @usableFromInline var queueHead = 0
    /// A thread is delivering (or the downstream is inside `receive(subscription:)`).
    @usableFromInline package private(set) var isDelivering = true
    /// `zip`: the upstream whose value started the delivery in progress, from inside its
    /// `receive(_:)`; -1 when none.
    @usableFromInline var trigger = -1
    /// `zip`: the demand for upstream ``trigger`` gathered during the delivery, returned from its
    /// `receive(_:)` when the delivery ends.
    @usableFromInline var triggerDemand = Subscribers.Demand.none
    /// The completion to deliver once the outputs already accepted are delivered.
    @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
    /// Cancelled, or the ending is decided: no more values accepted.
    @usableFromInline package private(set) var isTerminated = false

    /// A state delivering to `target`, which has yet to receive its subscription (call
    /// ``subscriptionDelivered(_:)`` once it has).
    @inlinable
    package init(target: Target) {
        self.target = target
    }

    // MARK: Queries

    /// Whether an output is due (given demand, for `combineLatest`).
    @inlinable
    package var canEmit: Bool {
        storage.isComplete && (!Storage.keepsLatest || hasFreshValue)
    }

    /// Whether an output is to be delivered now: due, and (`combineLatest` only) asked for.
    @inlinable
    var canDeliver: Bool {
        if Storage.keepsLatest { return demand > 0 && canEmit }
        return storage.isComplete
    }

    /// Whether the stream must finish now (see the type's discussion).
    @inlinable
    var shouldFinish: Bool {
        if Storage.keepsLatest {
            return finishedMask == UInt8(1 << Storage.arity) - 1 && !canEmit
        }
        for index in 0..<Storage.arity where finishedMask & (1 << index) != 0 && storage.isEmpty(at: index) {
            return true
        }
        return false
    }

    /// How many outputs wait in the queue.
    @inlinable
    package var queuedCount: Int { queue.count - queueHead }

    // MARK: Transitions

    /// Upstream `index` sent its subscription.
    @inlinable
    package mutating func attach(_ subscription: any Subscription, at index: Int) -> CombiningAttachment {
        guard !isTerminated, upstreams[index].attach(subscription) else { return .cancel }
        return forwarded == .none ? .keep : .request(forwarded)
    }

    /// Upstream `L.index` sent a value.
    @inlinable
    package mutating func receive<L: CombiningLane>(_ value: L.Value, lane: L.Type) -> Step
    where L.Storage == Storage {
        guard !isTerminated, upstreams[L.index].subscription != nil else { return .idle }
        L.put(value, into: &storage)
        if Storage.keepsLatest { hasFreshValue = true }
        guard canDeliver, let target else { return .idle }
        if isDelivering {
            // zip's due output waits in the slots; combineLatest's must be taken now.
            if Storage.keepsLatest { queue.append(takeOutput()) }
            return .idle
        }
        isDelivering = true
        if !Storage.keepsLatest { trigger = L.index }
        return .value(takeOutput(), target)
    }

    /// Upstream `index` completed.
    @inlinable
    package mutating func complete(_ completion: Subscribers.Completion<Failure>, at index: Int,
                                   _ calls: inout CombiningCalls) -> Step
    {
        guard !isTerminated else { return .idle }
        // `zip` cancels the failing upstream too, as Apple's Combine does.
        let failing = Storage.keepsLatest ? nil : upstreams[index].subscription
        guard upstreams[index].finish() else { return .idle }
        switch completion {
        case .finished:
            finishedMask |= 1 << index
        case .failure:
            terminate(with: completion, &calls)
            if let failing { calls.append(failing) }
        }
        if isDelivering { return .idle }
        isDelivering = true
        return nextStep(&calls)
    }

    /// The downstream requested more.
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand, _ calls: inout CombiningCalls) -> Step {
        guard target != nil, !isTerminated else { return .idle }
        self.demand += demand
        forward(demand, &calls)
        if isDelivering { return .idle }
        isDelivering = true
        return nextStep(&calls)
    }

    /// The live upstream subscriptions, for a request of `demand` (after an owed output was
    /// delivered by ``request(_:_:)``).
    @inlinable
    package mutating func liveUpstreams(requesting demand: Subscribers.Demand, _ calls: inout CombiningCalls) {
        guard target != nil, !isTerminated else { return }
        calls.demand = demand
        for index in 0..<Storage.arity {
            guard let subscription = upstreams[index].subscription else { continue }
            if !Storage.keepsLatest && index == trigger {
                triggerDemand += demand
            } else {
                calls.append(subscription)
            }
        }
    }

    /// The downstream returned from `receive(_:)` with `more` demand: the next step of the
    /// delivery.
    @inlinable
    package mutating func delivered(_ more: Subscribers.Demand, _ calls: inout CombiningCalls) -> Step {
        if more != .none, target != nil, !isTerminated {
            demand += more
            forward(more, &calls)
        }
        return nextStep(&calls)
    }

    /// The downstream has returned from `receive(subscription:)`: ends the initial "delivery".
    @inlinable
    package mutating func subscriptionDelivered(_ calls: inout CombiningCalls) -> Step {
        nextStep(&calls)
    }

    /// The downstream cancelled: returns what to release outside the lock.
    @inlinable
    package mutating func cancel(_ calls: inout CombiningCalls)
        -> (Target?, Storage, ContiguousArray<Storage.Output>)
    {
        isTerminated = true
        pendingCompletion = nil
        triggerDemand = .none
        calls = CombiningCalls()
        for index in 0..<Storage.arity {
            if let subscription = upstreams[index].detach() { calls.append(subscription) }
        }
        defer {
            target = nil
            storage = Storage()
            queue = []
            queueHead = 0
        }
        return (target, storage, queue)
    }

    // MARK: Helpers

    /// Requests `demand` from every live upstream.
    @inlinable
    mutating func forward(_ demand: Subscribers.Demand, _ calls: inout CombiningCalls) {
        forwarded += demand
        liveUpstreams(requesting: demand, &calls)
    }

    /// Takes the next output, using one demand.
    @inlinable
    mutating func takeOutput() -> Storage.Output {
        demand -= 1
        hasFreshValue = false
        return storage.take()
    }

    /// Decides the ending: no more values accepted, every other upstream cancelled, `completion`
    /// delivered after the outputs already accepted.
    @inlinable
    mutating func terminate(with completion: Subscribers.Completion<Failure>, _ calls: inout CombiningCalls) {
        isTerminated = true
        pendingCompletion = completion
        triggerDemand = .none
        calls = CombiningCalls()
        for index in 0..<Storage.arity {
            if let subscription = upstreams[index].detach() { calls.append(subscription) }
        }
        storage.removeAll()
        hasFreshValue = false
    }

    /// Decides the next step of a delivery in progress. Called with `isDelivering` set; clears it
    /// when there is nothing left to do.
    @inlinable
    mutating func nextStep(_ calls: inout CombiningCalls) -> Step {
        guard let target else {
            endDelivery(&calls)
            return .idle
        }
        if queueHead < queue.count {
            let output = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            return .value(output, target)
        }
        if !isTerminated {
            if canDeliver { return .value(takeOutput(), target) }
            if shouldFinish { terminate(with: .finished, &calls) }
        }
        endDelivery(&calls)
        guard let completion = pendingCompletion else { return .idle }
        pendingCompletion = nil
        self.target = nil
        queue = []
        return .completion(completion, target)
    }

    /// Ends the delivery in progress; for `zip`, hands the demand gathered for the upstream that
    /// started it to `calls.returned`.
    @inlinable
    mutating func endDelivery(_ calls: inout CombiningCalls) {
        isDelivering = false
        if !Storage.keepsLatest && trigger >= 0 {
            calls.returned = triggerDemand
            triggerDemand = .none
            trigger = -1
        }
    }
}
