/// A publisher that eventually produces a single value and then finishes or fails.
///
/// The closure given to ``init(_:)`` runs at once, during initialization, and receives a
/// ``Promise`` to call — now or later, from any thread — with the result. Only the first call
/// counts; later calls are ignored. The result is kept and replayed to every subscriber, including
/// those that subscribe after it arrived:
///
/// - a value is delivered once the subscriber has requested demand (any non-zero amount), and is
///   immediately followed by `.finished`;
/// - a failure is delivered without waiting for demand.
///
/// Nothing is delivered after a subscriber cancels. Subscribing, cancelling and fulfilling the
/// promise are thread-safe and may happen concurrently. Wrap a `Future` in ``Deferred`` to run the
/// closure only when a subscriber arrives.
///
/// The promise keeps the future alive until the promise itself is released; the future releases
/// its waiting subscribers once it has delivered the result or they have cancelled.
public final class Future<Output, Failure: Error>: Publisher {
    /// A type that represents a closure to invoke in the future, when an element or error is
    /// available.
    ///
    /// The promise closure receives one parameter: a `Result` that contains either a single element
    /// published by a ``Future``, or an error.
    public typealias Promise = (Result<Output, Failure>) -> Void

    @usableFromInline
    let lock = Lock()

    /// The result, once the promise has been fulfilled. Guarded by `lock`.
    @usableFromInline
    var result: Result<Output, Failure>?

    /// Subscriptions attached before the result arrived, in subscription order; subscribing and
    /// cancelling cost O(1) amortised however many wait (see ``SlotList``). Guarded by `lock`;
    /// emptied on fulfilment.
    @usableFromInline
    var waiting = SlotList<FutureConduit<Output, Failure>>()

    /// Creates a publisher that invokes a promise closure when the publisher emits an element.
    ///
    /// - Parameter attemptToFulfill: A closure that the future runs immediately, passing it the
    ///   ``Promise`` to call when the publisher emits an element or terminates with an error.
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        attemptToFulfill { result in self.fulfill(result) }
    }

    /// Keeps the first result and hands it to every subscription waiting for it. Later calls are
    /// ignored.
    @usableFromInline
    func fulfill(_ result: Result<Output, Failure>) {
        let waiting = lock.withLock { () -> ContiguousArray<FutureConduit<Output, Failure>?>? in
            guard self.result == nil else { return nil }
            self.result = result
            return self.waiting.removeAll()
        }
        guard let waiting else { return }
        for conduit in waiting {
            conduit?.fulfill(result)
        }
    }

    /// Attaches a subscriber. It receives the value after requesting demand once the promise is
    /// fulfilled (at once if it already was), or the failure as soon as it is known.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = lock.withLock { () -> FutureSubscription<S> in
            if let result {
                return FutureSubscription(downstream: subscriber, future: self, result: result)
            }
            let conduit = FutureSubscription(downstream: subscriber, future: self, result: nil)
            waiting.append(conduit)
            return conduit
        }
        subscriber.receive(subscription: conduit)
        conduit.subscriptionDelivered()
    }

    /// Forgets a cancelled subscription that was waiting for the result, in O(1) amortised.
    @usableFromInline
    func remove(_ conduit: FutureConduit<Output, Failure>) {
        lock.withLock { _ = waiting.remove(conduit) }
        // The caller still holds `conduit`: nothing is released under the lock.
    }
}

/// A future's view of one subscription: the erased interface it hands the result through.
@usableFromInline
class FutureConduit<Output, Failure: Error>: SlotListElement, @unchecked Sendable {
    /// The conduit's slot in its future's ``Future/waiting`` list while it waits there. Guarded by
    /// the future's lock.
    @usableFromInline
    var slot: UInt32 = 0

    @inlinable
    init() {}

    /// Receives the future's result.
    @usableFromInline
    func fulfill(_ result: Result<Output, Failure>) { fatalError("abstract") }
}

/// One subscriber's subscription to a ``Future``.
///
/// It delivers when it knows the result and the subscriber is ready for it: a value once demand
/// was requested, a failure once `receive(subscription:)` has returned (or demand was requested).
/// Every event (result, request, end of `receive(subscription:)`) re-checks that condition under
/// the lock; the one that meets it takes the downstream, so delivery happens exactly once and
/// outside the lock.
@usableFromInline
final class FutureSubscription<S: Subscriber>: FutureConduit<S.Input, S.Failure>, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Output = S.Input
    @usableFromInline typealias Failure = S.Failure

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var downstream: S?
    /// The future, until the result is delivered or the subscription cancelled (so a cancel can
    /// leave its list; the mirror shows it as `parent`).
    @exclusivity(unchecked) @usableFromInline var future: Future<Output, Failure>?
    @exclusivity(unchecked) @usableFromInline var result: Result<Output, Failure>?
    @exclusivity(unchecked) @usableFromInline var hasDemand = false
    /// `receive(subscription:)` has returned.
    @exclusivity(unchecked) @usableFromInline var isReady = false
    /// `cancel()` was called (possibly from inside `receive(_:)`, between value and completion).
    @exclusivity(unchecked) @usableFromInline var isCancelled = false

    /// What to deliver, decided under the lock and done outside it.
    @usableFromInline
    enum Delivery {
        case nothing
        case value(Output, S)
        case failure(Failure, S)
    }

    /// Where a request enters: made in `init`, where `S` is concrete, so that a value sent from
    /// inside the request (which arrives through `any Subscription`) and whatever it sets off
    /// downstream run specialised (see `SingleValueSubscription`).
    @usableFromInline let requestEntry: (FutureSubscription) -> Void

    @inlinable
    init(downstream: S, future: Future<Output, Failure>?, result: Result<Output, Failure>?) {
        self.downstream = downstream
        self.future = future
        self.result = result
        requestEntry = { $0.requested() }
        super.init()
    }

    @usableFromInline
    override func fulfill(_ result: Result<Output, Failure>) {
        deliver(lock.withLock { () -> Delivery in
            guard downstream != nil else { return .nothing }
            self.result = result
            return decide()
        })
    }

    /// Called by the future once `receive(subscription:)` has returned.
    @inlinable
    func subscriptionDelivered() {
        deliver(lock.withLock { () -> Delivery in
            isReady = true
            return decide()
        })
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        requestEntry(self)
    }

    /// The downstream asked: delivers the result if it is known.
    @inlinable
    func requested() {
        deliver(lock.withLock { () -> Delivery in
            hasDemand = true
            return decide()
        }, keepingParent: true)
    }

    @inlinable
    func cancel() {
        let released = lock.withLock { () -> (Future<Output, Failure>?, S?, Result<Output, Failure>?) in
            defer {
                isCancelled = true
                future = nil
                downstream = nil
                result = nil
            }
            return (future, downstream, result)
        }
        released.0?.remove(self)
    }

    /// With the lock held: if the result can be delivered now, ends the subscription and returns
    /// the delivery.
    @inlinable
    func decide() -> Delivery {
        guard let downstream, let result else { return .nothing }
        let delivery: Delivery
        switch result {
        case .success(let value):
            guard hasDemand else { return .nothing }
            delivery = .value(value, downstream)
        case .failure(let error):
            guard hasDemand || isReady else { return .nothing }
            delivery = .failure(error, downstream)
        }
        self.downstream = nil
        self.result = nil
        return delivery
    }

    /// Performs a delivery, then — unless it was triggered by a request (`keepingParent`) — lets
    /// go of the future, which the mirror shows as `parent` until then. As Apple's: a result that
    /// waited for demand leaves the future in place. Called without the lock.
    @inlinable
    func deliver(_ delivery: Delivery, keepingParent: Bool = false) {
        switch delivery {
        case .nothing:
            return
        case .value(let value, let downstream):
            _ = downstream.receive(value)
            // A subscriber that cancelled from inside `receive(_:)` gets no completion.
            if !lock.withLock({ isCancelled }) {
                downstream.receive(completion: .finished)
            }
        case .failure(let error, let downstream):
            downstream.receive(completion: .failure(error))
        }
        if keepingParent { return }
        let released = lock.withLock { () -> Future<Output, Failure>? in
            defer { future = nil }
            return future
        }
        _ = released
    }

    /// `"Future"`.
    @usableFromInline var description: String { "Future" }
    /// As Apple's: `parent` and `subject` (the future, `nil` once it has delivered or the
    /// subscription is cancelled), `downstream` and `hasAnyDemand`.
    @usableFromInline var customMirror: Mirror {
        let (future, downstream, hasDemand) = lock.withLock { (self.future, self.downstream, self.hasDemand) }
        return Mirror(self, children: [
            "parent": future as Any, "downstream": downstream as Any, "hasAnyDemand": hasDemand,
            "subject": future as Any,
        ])
    }
    @usableFromInline var playgroundDescription: Any { description }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Future: @unchecked Sendable {}
#endif
