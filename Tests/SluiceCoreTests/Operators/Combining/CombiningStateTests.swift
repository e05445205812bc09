@testable import SluiceCore
import Testing

private typealias Latest2 = CombiningStorage2<LatestSlot<Int>, LatestSlot<String>>
private typealias Zip2 = CombiningStorage2<QueueSlot<Int>, QueueSlot<String>>
private typealias Latest3 = CombiningStorage3<LatestSlot<Int>, LatestSlot<Int>, LatestSlot<Int>>
private typealias Upstream = ManualPublisher<Int, TestError>.Subscription

/// A step as a string: `idle`, `value((1, "a"))`, `finished`, `failure(2)`.
private func describe<Output>(_ step: CombiningStep<Output, TestError, String>) -> String {
    switch step {
    case .idle: return "idle"
    case .value(let output, _): return "value(\(output))"
    case .completion(.finished, _): return "finished"
    case .completion(.failure(let error), _): return "failure(\(error.code))"
    }
}

/// The identities of the subscriptions a `CombiningCalls` holds.
private func upstreams(_ calls: CombiningCalls) -> [ObjectIdentifier] {
    calls.subscriptions.map { ObjectIdentifier($0 as! Upstream) }
}

/// The identities of the test's upstream subscriptions.
private func ids(_ subscriptions: [Upstream]) -> [ObjectIdentifier] {
    subscriptions.map { ObjectIdentifier($0) }
}

/// A state for `Storage` whose upstreams have all subscribed and whose downstream has received its
/// subscription.
private func started<Storage: CombiningStorage>(_: Storage.Type)
    -> (CombiningState<Storage, TestError, String>, [Upstream])
{
    var state = CombiningState<Storage, TestError, String>(target: "down")
    let subscriptions = (0..<Storage.arity).map { _ in Upstream() }
    for (index, subscription) in subscriptions.enumerated() {
        #expect(state.attach(subscription, at: index) == .keep)
    }
    var calls = CombiningCalls()
    #expect(describe(state.subscriptionDelivered(&calls)) == "idle")
    #expect(!state.isDelivering)
    return (state, subscriptions)
}

@Suite("CombiningState")
struct CombiningStateTests {
    // MARK: Outputs

    @Test func latestEmitsOnlyOnceEverySlotHasAValueThenOnEveryValue() {
        let (initial, subscriptions) = started(Latest2.self)
        var state = initial
        var calls = CombiningCalls()
        #expect(describe(state.request(.unlimited, &calls)) == "idle")
        #expect(upstreams(calls) == ids(subscriptions))
        #expect(calls.demand == .unlimited)
        #expect(describe(state.receive(1, lane: Latest2.Lane0.self)) == "idle")
        #expect(describe(state.receive(2, lane: Latest2.Lane0.self)) == "idle")
        #expect(describe(state.receive("a", lane: Latest2.Lane1.self)) == #"value((2, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive(3, lane: Latest2.Lane0.self)) == #"value((3, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive("b", lane: Latest2.Lane1.self)) == #"value((3, "b"))"#)
    }

    @Test func zipPairsTheOldestValueOfEachUpstream() {
        var (state, _) = started(Zip2.self)
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        for value in 1...3 {
            #expect(describe(state.receive(value, lane: Zip2.Lane0.self)) == "idle")
        }
        #expect(describe(state.receive("a", lane: Zip2.Lane1.self)) == #"value((1, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive("b", lane: Zip2.Lane1.self)) == #"value((2, "b"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive("c", lane: Zip2.Lane1.self)) == #"value((3, "c"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive("d", lane: Zip2.Lane1.self)) == "idle")
    }

    @Test func nothingIsDeliveredBeforeTheDownstreamHasItsSubscription() {
        var state = CombiningState<Latest2, TestError, String>(target: "down")
        _ = state.attach(Upstream(), at: 0)
        _ = state.attach(Upstream(), at: 1)
        var calls = CombiningCalls()
        #expect(describe(state.request(.max(5), &calls)) == "idle")
        #expect(calls.count == 2)
        #expect(describe(state.receive(1, lane: Latest2.Lane0.self)) == "idle")
        #expect(describe(state.receive("a", lane: Latest2.Lane1.self)) == "idle")
        #expect(state.queuedCount == 1)
        #expect(describe(state.subscriptionDelivered(&calls)) == #"value((1, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(!state.isDelivering)
    }

    // MARK: Demand

    @Test func latestKeepsOnlyTheLatestValuesWithoutDemandAndSendsThemWhenDemandArrives() {
        var (state, _) = started(Latest2.self)
        var calls = CombiningCalls()
        _ = state.request(.max(1), &calls)
        _ = state.receive(1, lane: Latest2.Lane0.self)
        #expect(describe(state.receive("a", lane: Latest2.Lane1.self)) == #"value((1, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive(2, lane: Latest2.Lane0.self)) == "idle")
        #expect(describe(state.receive(3, lane: Latest2.Lane0.self)) == "idle")
        #expect(describe(state.receive("b", lane: Latest2.Lane1.self)) == "idle")
        calls = CombiningCalls()
        #expect(describe(state.request(.max(1), &calls)) == #"value((3, "b"))"#)
        calls = CombiningCalls()
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        // Nothing new since: a request publishes nothing.
        #expect(describe(state.request(.max(1), &calls)) == "idle")
        #expect(state.demand == .max(1))
    }

    /// As Apple's, zip delivers a tuple as soon as it is complete, whatever the demand (only an
    /// upstream sending beyond its demand can make it exceed the downstream's).
    @Test func zipDeliversEveryCompleteTupleWithoutLookingAtTheDemand() {
        var (state, _) = started(Zip2.self)
        var calls = CombiningCalls()
        _ = state.request(.max(1), &calls)
        _ = state.receive(1, lane: Zip2.Lane0.self)
        #expect(describe(state.receive("a", lane: Zip2.Lane1.self)) == #"value((1, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        for value in [2, 3] { _ = state.receive(value, lane: Zip2.Lane0.self) }
        #expect(describe(state.receive("b", lane: Zip2.Lane1.self)) == #"value((2, "b"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive("c", lane: Zip2.Lane1.self)) == #"value((3, "c"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(state.demand == .none)
        #expect(describe(state.request(.max(2), &calls)) == "idle")
    }

    /// As Apple's, the demand the downstream adds while receiving a tuple that a value of upstream
    /// `i` completed — returned from `receive(_:)` or requested from inside it — is handed back
    /// for upstream `i` (to return from its `receive(_:)`), and requested from the others.
    @Test func zipGivesTheDemandAddedDuringADeliveryBackToTheUpstreamThatStartedIt() {
        let (initial, subscriptions) = started(Zip2.self)
        var state = initial
        var calls = CombiningCalls()
        _ = state.request(.max(1), &calls)
        _ = state.receive(1, lane: Zip2.Lane0.self)
        #expect(describe(state.receive("a", lane: Zip2.Lane1.self)) == #"value((1, "a"))"#)
        calls = CombiningCalls()
        #expect(describe(state.request(.max(5), &calls)) == "idle")  // from inside receive(_:)
        #expect(upstreams(calls) == ids([subscriptions[0]]))
        #expect(calls.demand == .max(5))
        calls = CombiningCalls()
        #expect(describe(state.delivered(.max(2), &calls)) == "idle")
        #expect(upstreams(calls) == ids([subscriptions[0]]))
        #expect(calls.demand == .max(2))
        #expect(calls.returned == .max(7))
        #expect(state.demand == .max(7))
        // The delivery is over: a request goes to every upstream again.
        calls = CombiningCalls()
        _ = state.request(.max(1), &calls)
        #expect(upstreams(calls) == ids(subscriptions))
        #expect(calls.returned == .none)
    }

    /// Nothing is handed back when the delivery was not started by a value (a request, here), and
    /// combineLatest never hands anything back.
    @Test func onlyZipsValueStartedDeliveriesHandDemandBack() {
        let (zipInitial, zipSubscriptions) = started(Zip2.self)
        var zip = zipInitial
        var calls = CombiningCalls()
        _ = zip.receive(1, lane: Zip2.Lane0.self)
        #expect(describe(zip.receive("a", lane: Zip2.Lane1.self)) == #"value((1, "a"))"#)
        calls = CombiningCalls()
        #expect(describe(zip.delivered(.max(1), &calls)) == "idle")
        #expect(upstreams(calls) == ids([zipSubscriptions[0]]))
        #expect(calls.returned == .max(1))

        let (initial, subscriptions) = started(Latest2.self)
        var latest = initial
        calls = CombiningCalls()
        _ = latest.request(.max(1), &calls)
        _ = latest.receive(1, lane: Latest2.Lane0.self)
        #expect(describe(latest.receive("a", lane: Latest2.Lane1.self)) == #"value((1, "a"))"#)
        calls = CombiningCalls()
        #expect(describe(latest.delivered(.max(1), &calls)) == "idle")
        #expect(upstreams(calls) == ids(subscriptions))
        #expect(calls.returned == .none)
    }

    @Test func requestsAndReturnedDemandGoToEveryLiveUpstream() {
        let (initial, subscriptions) = started(Latest3.self)
        var state = initial
        var calls = CombiningCalls()
        _ = state.receive(2, lane: Latest3.Lane1.self)
        #expect(describe(state.complete(.finished, at: 1, &calls)) == "idle")
        #expect(calls.count == 0)
        _ = state.request(.max(2), &calls)
        #expect(upstreams(calls) == ids([subscriptions[0], subscriptions[2]]))
        #expect(calls.demand == .max(2))
        _ = state.receive(1, lane: Latest3.Lane0.self)
        #expect(describe(state.receive(3, lane: Latest3.Lane2.self)) == "value((1, 2, 3))")
        calls = CombiningCalls()
        #expect(describe(state.delivered(.max(4), &calls)) == "idle")
        #expect(upstreams(calls) == ids([subscriptions[0], subscriptions[2]]))
        #expect(calls.demand == .max(4))
        #expect(state.demand == .max(5))
    }

    @Test func aLateSubscriptionIsAskedForEverythingRequestedSoFar() {
        var state = CombiningState<Zip2, TestError, String>(target: "down")
        #expect(state.attach(Upstream(), at: 0) == .keep)
        var calls = CombiningCalls()
        _ = state.subscriptionDelivered(&calls)
        _ = state.request(.max(3), &calls)
        _ = state.request(.max(2), &calls)
        #expect(state.attach(Upstream(), at: 1) == .request(.max(5)))
    }

    @Test func aSecondSubscriptionOrOneAfterTheEndIsCancelled() {
        var (state, _) = started(Zip2.self)
        #expect(state.attach(Upstream(), at: 0) == .cancel)
        var fresh = CombiningState<Zip2, TestError, String>(target: "down")
        var calls = CombiningCalls()
        _ = fresh.attach(Upstream(), at: 0)
        _ = fresh.complete(.failure(TestError(code: 1)), at: 0, &calls)
        #expect(fresh.attach(Upstream(), at: 1) == .cancel)
    }

    // MARK: Serialisation

    @Test func latestSnapshotsOutputsThatBecomeDueDuringADelivery() {
        var (state, _) = started(Latest2.self)
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Latest2.Lane0.self)
        #expect(describe(state.receive("a", lane: Latest2.Lane1.self)) == #"value((1, "a"))"#)
        #expect(state.isDelivering)
        #expect(describe(state.receive(2, lane: Latest2.Lane0.self)) == "idle")
        #expect(describe(state.receive("b", lane: Latest2.Lane1.self)) == "idle")
        #expect(state.queuedCount == 2)
        #expect(describe(state.delivered(.none, &calls)) == #"value((2, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == #"value((2, "b"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(!state.isDelivering)
    }

    @Test func zipLeavesValuesInTheSlotsDuringADelivery() {
        var (state, _) = started(Zip2.self)
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Zip2.Lane0.self)
        #expect(describe(state.receive("a", lane: Zip2.Lane1.self)) == #"value((1, "a"))"#)
        #expect(describe(state.receive(2, lane: Zip2.Lane0.self)) == "idle")
        #expect(describe(state.receive("b", lane: Zip2.Lane1.self)) == "idle")
        #expect(state.queuedCount == 0)
        #expect(describe(state.delivered(.none, &calls)) == #"value((2, "b"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
    }

    // MARK: Ending

    @Test func aFailureCancelsTheOtherUpstreamsAndFailsOnce() {
        let (initial, subscriptions) = started(Latest3.self)
        var state = initial
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        calls = CombiningCalls()
        #expect(describe(state.complete(.failure(TestError(code: 2)), at: 1, &calls)) == "failure(2)")
        #expect(upstreams(calls) == ids([subscriptions[0], subscriptions[2]]))
        #expect(calls.demand == .none)
        #expect(state.target == nil)
        calls = CombiningCalls()
        #expect(describe(state.receive(1, lane: Latest3.Lane0.self)) == "idle")
        #expect(describe(state.complete(.failure(TestError(code: 3)), at: 0, &calls)) == "idle")
        #expect(describe(state.complete(.finished, at: 2, &calls)) == "idle")
        #expect(describe(state.request(.max(1), &calls)) == "idle")
        #expect(calls.count == 0)
    }

    @Test func aFailureDuringADeliveryFollowsTheOutputsAlreadyAccepted() {
        let (initial, subscriptions) = started(Latest2.self)
        var state = initial
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Latest2.Lane0.self)
        #expect(describe(state.receive("a", lane: Latest2.Lane1.self)) == #"value((1, "a"))"#)
        _ = state.receive(2, lane: Latest2.Lane0.self)
        calls = CombiningCalls()
        #expect(describe(state.complete(.failure(TestError(code: 4)), at: 1, &calls)) == "idle")
        #expect(upstreams(calls) == ids([subscriptions[0]]))
        calls = CombiningCalls()
        #expect(describe(state.delivered(.none, &calls)) == #"value((2, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "failure(4)")
        #expect(calls.count == 0)
    }

    @Test func zipFinishesOnceAFinishedUpstreamHasNothingLeftToPair() {
        let (initial, subscriptions) = started(Zip2.self)
        var state = initial
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Zip2.Lane0.self)
        _ = state.receive(2, lane: Zip2.Lane0.self)
        calls = CombiningCalls()
        #expect(describe(state.complete(.finished, at: 0, &calls)) == "idle")
        #expect(calls.count == 0)
        #expect(describe(state.receive("a", lane: Zip2.Lane1.self)) == #"value((1, "a"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.receive("b", lane: Zip2.Lane1.self)) == #"value((2, "b"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "finished")
        #expect(upstreams(calls) == ids([subscriptions[1]]))
        #expect(calls.demand == .none)
    }

    @Test func zipFinishesAtOnceWhenAnUpstreamFinishesEmpty() {
        let (initial, subscriptions) = started(Zip2.self)
        var state = initial
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Zip2.Lane0.self)
        calls = CombiningCalls()
        #expect(describe(state.complete(.finished, at: 1, &calls)) == "finished")
        #expect(upstreams(calls) == ids([subscriptions[0]]))
    }

    @Test func latestFinishesWhenEveryUpstreamHasFinished() {
        var (state, _) = started(Latest2.self)
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Latest2.Lane0.self)
        _ = state.receive("a", lane: Latest2.Lane1.self)
        _ = state.delivered(.none, &calls)
        calls = CombiningCalls()
        #expect(describe(state.complete(.finished, at: 0, &calls)) == "idle")
        #expect(describe(state.receive("b", lane: Latest2.Lane1.self)) == #"value((1, "b"))"#)
        #expect(describe(state.delivered(.none, &calls)) == "idle")
        #expect(describe(state.complete(.finished, at: 1, &calls)) == "finished")
        #expect(calls.count == 0)
    }

    @Test func latestDeliversAnOwedOutputBeforeFinishing() {
        var (state, _) = started(Latest2.self)
        var calls = CombiningCalls()
        _ = state.request(.max(1), &calls)
        _ = state.receive(1, lane: Latest2.Lane0.self)
        _ = state.receive("a", lane: Latest2.Lane1.self)
        _ = state.delivered(.none, &calls)
        _ = state.receive(2, lane: Latest2.Lane0.self)
        #expect(describe(state.complete(.finished, at: 0, &calls)) == "idle")
        #expect(describe(state.complete(.finished, at: 1, &calls)) == "idle")
        calls = CombiningCalls()
        #expect(describe(state.request(.max(1), &calls)) == #"value((2, "a"))"#)
        #expect(calls.count == 0)  // every upstream has finished
        #expect(describe(state.delivered(.none, &calls)) == "finished")
    }

    @Test func latestWaitsForEveryUpstreamEvenIfOneFinishedWithoutAValue() {
        var (state, _) = started(Latest2.self)
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        #expect(describe(state.complete(.finished, at: 0, &calls)) == "idle")
        #expect(describe(state.receive("a", lane: Latest2.Lane1.self)) == "idle")
        #expect(describe(state.complete(.finished, at: 1, &calls)) == "finished")
    }

    @Test func cancelDetachesEveryUpstreamReleasesTheTargetAndIgnoresWhatFollows() {
        let (initial, subscriptions) = started(Zip2.self)
        var state = initial
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Zip2.Lane0.self)
        calls = CombiningCalls()
        let released = state.cancel(&calls)
        #expect(released.0 == "down")
        #expect(upstreams(calls) == ids(subscriptions))
        #expect(calls.demand == .none)
        #expect(state.target == nil)
        calls = CombiningCalls()
        #expect(describe(state.receive("a", lane: Zip2.Lane1.self)) == "idle")
        #expect(describe(state.request(.max(1), &calls)) == "idle")
        #expect(describe(state.complete(.finished, at: 0, &calls)) == "idle")
        #expect(calls.count == 0)
        _ = state.cancel(&calls)
        #expect(calls.count == 0)
    }

    @Test func cancelDuringADeliveryEndsIt() {
        var (state, _) = started(Latest2.self)
        var calls = CombiningCalls()
        _ = state.request(.unlimited, &calls)
        _ = state.receive(1, lane: Latest2.Lane0.self)
        _ = state.receive("a", lane: Latest2.Lane1.self)
        _ = state.receive(2, lane: Latest2.Lane0.self)
        #expect(state.queuedCount == 1)
        _ = state.cancel(&calls)
        #expect(describe(state.delivered(.max(3), &calls)) == "idle")
        #expect(!state.isDelivering)
        #expect(state.queuedCount == 0)
    }

    // MARK: Pieces

    @Test func queueSlotKeepsOrderAcrossCompaction() {
        var slot = QueueSlot<Int>()
        var taken: [Int] = []
        for value in 0..<100 { slot.put(value) }
        for _ in 0..<70 { taken.append(slot.take()) }
        for value in 100..<200 { slot.put(value) }
        #expect(slot.count == 130)
        while slot.hasValue { taken.append(slot.take()) }
        #expect(taken == Array(0..<200))
        #expect(slot.count == 0)
    }

    @Test func latestSlotKeepsTheLatestValue() {
        var slot = LatestSlot<Int>()
        #expect(!slot.hasValue)
        slot.put(1)
        slot.put(2)
        #expect(slot.take() == 2)
        #expect(slot.take() == 2)
        slot.removeAll()
        #expect(!slot.hasValue)
    }

    @Test func callsCancelOrRequest() {
        let first = Upstream()
        let second = Upstream()
        var cancels = CombiningCalls()
        cancels.append(first)
        cancels.append(second)
        cancels.perform()
        #expect(first.cancelCount == 1 && second.cancelCount == 1)
        var requests = CombiningCalls()
        requests.demand = .max(2)
        requests.append(second)
        requests.perform()
        #expect(second.requests == [.max(2)])
        #expect(first.requests.isEmpty)
    }
}
