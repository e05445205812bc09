@testable import SluiceCore
import Testing

private typealias Sub = ManualPublisher<Int, Never>.Subscription
private typealias State = FlatMapState<Int, TestError>

private func same(_ subscription: (any Subscription)?, _ expected: Sub) -> Bool {
    (subscription as? Sub) === expected
}

/// What an action asks for, spelled out for the assertions.
extension FlatMapState.Action {
    fileprivate var completion: Subscribers.Completion<Failure>? {
        if case .complete(let completion, _) = self { completion } else { nil }
    }
    fileprivate var cancel: ContiguousArray<any Subscription> {
        switch self {
        case .complete(_, let cancelling): cancelling
        case .cancel(let subscriptions): subscriptions
        case .none, .requestUpstream: []
        }
    }
    fileprivate var requestsUpstream: Bool {
        if case .requestUpstream = self { true } else { false }
    }
}

private func subscribed(maxPublishers: Subscribers.Demand = .unlimited) -> (State, Sub) {
    var state = State(maxPublishers: maxPublishers)
    let upstream = Sub()
    _ = state.attachUpstream(upstream)
    return (state, upstream)
}

@Suite("FlatMapState")
struct FlatMapStateTests {
    @Test func acceptsOneUpstreamAndRequestsItAfterwards() {
        var state = State(maxPublishers: .max(2))
        let first = Sub()
        let r1 = state.attachUpstream(first)
        #expect(r1)
        let r2 = state.attachUpstream(Sub())
        #expect(!r2)
        #expect(same(state.upstreamToRequest(), first))
        _ = state.cancel()
        #expect(state.upstreamToRequest() == nil)
    }

    @Test func innersAskForOneValueUnderLimitedDemandAndUnlimitedOtherwise() {
        var (state, _) = subscribed()
        let first = state.addInner()!
        let r3 = state.attachInner(first, Sub())
        #expect(r3 == .max(1))
        let r4 = state.attachInner(first, Sub())
        #expect(r4 == nil)  // a second subscription is refused
        _ = state.request(.unlimited)
        let second = state.addInner()!
        let r5 = state.attachInner(second, Sub())
        #expect(r5 == .unlimited)
        #expect(second != first)
    }

    @Test func becomingUnlimitedRaisesTheInners() {
        var (state, _) = subscribed()
        let inner = Sub()
        _ = state.attachInner(state.addInner()!, inner)
        let (raiseLimited, _) = state.request(.max(3))
        #expect(raiseLimited.isEmpty)
        let (raise, _) = state.request(.unlimited)
        #expect(raise.count == 1 && same(raise.first, inner))
    }

    @Test func finishedInnersFreeTheirSlotsAndOldIdentifiersMatchNothing() {
        var (state, _) = subscribed()
        let first = state.addInner()!
        let firstSubscription = Sub()
        _ = state.attachInner(first, firstSubscription)
        let (_, released) = state.innerCompleted(first, .finished)
        #expect(same(released, firstSubscription))  // handed back, for the caller to drop
        #expect(state.liveInners == 0)
        let second = state.addInner()!
        #expect(second.slot == first.slot && second != first)  // the slot is reused
        #expect(state.slots.count == 1)
        let secondSubscription = Sub()
        let r1 = state.attachInner(first, Sub())
        #expect(r1 == nil)  // a stale identifier cannot attach...
        let r2 = state.attachInner(second, secondSubscription)
        #expect(r2 == .max(1))
        let (stale, _) = state.innerCompleted(first, .failure(TestError(code: 1)))
        #expect(stale.completion == nil && stale.cancel.isEmpty)  // ...nor complete
        #expect(state.isLive(second) && !state.isTerminal)
        #expect(same(state.subscription(of: second), secondSubscription))
        #expect(state.subscription(of: first) == nil)
        let third = state.addInner()!
        #expect(third.slot != second.slot && state.slots.count == 2)
        #expect(state.liveInners == 2)
    }

    @Test func demandReturnedAsUnlimitedRaisesTheInners() {
        var (state, _) = subscribed()
        let (a, b) = (state.addInner()!, state.addInner()!)
        let (first, second) = (Sub(), Sub())
        _ = state.attachInner(a, first)
        _ = state.attachInner(b, second)
        _ = state.request(.max(1))
        let r1 = state.receiveInner(1, from: a)
        #expect(r1 == .deliver)
        let (replenish, raise, next) = state.delivered(adding: .unlimited, from: a)
        #expect(!replenish)  // raised instead
        #expect(raise?.count == 2 && raise?.contains { same($0, first) } == true
            && raise?.contains { same($0, second) } == true)
        guard case .idle = next else { Issue.record("expected idle"); return }
        let (again, raiseAgain, _) = state.delivered(adding: .max(1), from: b)
        #expect(!again && raiseAgain == nil)  // already unlimited
    }

    @Test func valueWithDemandIsDeliveredAndTheInnerReplenished() {
        var (state, _) = subscribed()
        let inner = Sub()
        let id = state.addInner()!
        _ = state.attachInner(id, inner)
        _ = state.request(.max(2))
        let r6 = state.receiveInner(1, from: id)
        #expect(r6 == .deliver)
        #expect(state.isDelivering)
        let (replenish, raise, next) = state.delivered(adding: .none, from: id)
        #expect(replenish && raise == nil)
        #expect(same(state.subscription(of: id), inner))
        guard case .idle = next else { Issue.record("expected idle"); return }
        #expect(!state.isDelivering)
        #expect(state.demand == .max(1))
    }

    @Test func valueWithoutDemandWaitsForARequest() {
        var (state, _) = subscribed()
        let id = state.addInner()!
        _ = state.attachInner(id, Sub())
        let r7 = state.receiveInner(7, from: id)
        #expect(r7 == .wait)
        #expect(state.buffer.count == 1)
        let (_, start) = state.request(.max(1))
        #expect(start?.value == 7 && start?.inner == id)
        #expect(state.isDelivering)
        #expect(state.demand == .none)
    }

    @Test func valueDuringADeliveryIsQueuedAndHandedToTheDeliveringThread() {
        var (state, _) = subscribed()
        _ = state.request(.unlimited)
        let a = state.addInner()!
        let b = state.addInner()!
        _ = state.attachInner(a, Sub())
        _ = state.attachInner(b, Sub())
        let r8 = state.receiveInner(1, from: a)
        #expect(r8 == .deliver)
        let r9 = state.receiveInner(2, from: b)
        #expect(r9 == .wait)
        let r10 = state.receiveInner(3, from: b)
        #expect(r10 == .wait)
        let (replenish, raise, next) = state.delivered(adding: .none, from: a)
        #expect(!replenish && raise == nil)  // unlimited: inners are never asked again
        guard case .deliver(2, inner: b, replenished: false) = next else { Issue.record("expected 2 from b"); return }
        let r11 = state.delivered(adding: .none, from: b)
        guard case .deliver(3, inner: b, replenished: false) = r11.next else {
            Issue.record("expected 3 from b")
            return
        }
        let r12 = state.delivered(adding: .none, from: b)
        guard case .idle = r12.next else { Issue.record("expected idle"); return }
    }

    @Test func finishesOnlyWhenUpstreamAndInnersAreDoneAndNothingWaits() {
        var (state, _) = subscribed()
        let id = state.addInner()!
        _ = state.attachInner(id, Sub())
        let r13 = state.receiveInner(5, from: id)
        #expect(r13 == .wait)  // no demand: waits
        let r14 = state.upstreamCompleted(.finished)
        #expect(r14.completion == nil)
        let r15 = state.innerCompleted(id, .finished)
        #expect(r15.action.completion == nil)  // a value still waits
        let (_, start) = state.request(.max(1))
        #expect(start?.value == 5)
        let r16 = state.delivered(adding: .none, from: id)
        guard case .complete(.finished) = r16.next else {
            Issue.record("expected the finish after the last value")
            return
        }
        #expect(state.isTerminal)
    }

    @Test func finishedInnerAsksUpstreamForAnotherWhenLimited() {
        var (state, upstream) = subscribed(maxPublishers: .max(1))
        let id = state.addInner()!
        _ = state.attachInner(id, Sub())
        let r17 = state.innerCompleted(id, .finished)
        #expect(r17.action.requestsUpstream)
        #expect(same(state.upstreamToReplenish(), upstream))
        var (unlimited, _) = subscribed()
        let other = unlimited.addInner()!
        let r18 = unlimited.innerCompleted(other, .finished)
        #expect(!r18.action.requestsUpstream)
    }

    @Test func anInnerFinishingAgainAsksTheUpstreamForAnotherAgainWhenLimited() {
        var (state, _) = subscribed(maxPublishers: .max(1))
        let id = state.addInner()!
        _ = state.attachInner(id, Sub())
        let r30 = state.innerCompleted(id, .finished)
        #expect(r30.action.requestsUpstream)
        // As Apple's Combine: each further `.finished` from it asks again.
        let r31 = state.innerCompleted(id, .finished)
        #expect(r31.action.requestsUpstream)
        let r32 = state.innerCompleted(id, .finished)
        #expect(r32.action.requestsUpstream)
        #expect(state.liveInners == 0)
        // A failure from it is ignored.
        let r33 = state.innerCompleted(id, .failure(TestError()))
        #expect(r33.action.completion == nil && !r33.action.requestsUpstream && !state.isTerminal)
        // Unlimited maxPublishers never asks again.
        var (unlimited, _) = subscribed()
        let other = unlimited.addInner()!
        _ = unlimited.innerCompleted(other, .finished)
        let r34 = unlimited.innerCompleted(other, .finished)
        #expect(!r34.action.requestsUpstream)
    }

    @Test func aValueWaitingBehindADeliveryWithinTheDemandReplenishesItsInnerAtOnce() {
        var (state, _) = subscribed()
        let (a, b) = (state.addInner()!, state.addInner()!)
        _ = state.attachInner(a, Sub())
        _ = state.attachInner(b, Sub())
        _ = state.request(.max(2))
        let r35 = state.receiveInner(1, from: a)
        #expect(r35 == .deliver)
        // Sent during that delivery, within the demand: the inner gets its `.max(1)` now.
        let r36 = state.receiveInner(2, from: b)
        #expect(r36 == .waitReplenished)
        // Beyond the demand: waits, and its inner is asked again only once it is delivered.
        let r37 = state.receiveInner(3, from: a)
        #expect(r37 == .wait)
        let (replenishA, _, next) = state.delivered(adding: .none, from: a)
        #expect(replenishA)
        guard case .deliver(2, inner: b, replenished: true) = next else {
            Issue.record("expected 2 from b, already replenished")
            return
        }
        let (replenishB, _, following) = state.delivered(adding: .none, from: b, replenished: true)
        #expect(!replenishB)
        guard case .idle = following else { Issue.record("expected idle: no demand left"); return }
        let (_, start) = state.request(.max(1))
        #expect(start?.value == 3 && start?.replenished == false)
    }

    @Test func anotherUpstreamCompletionWhileItsFailureCancelsTheInnersIsFlagged() {
        var (state, _) = subscribed()
        let id = state.addInner()!
        _ = state.attachInner(id, Sub())
        let action = state.upstreamCompleted(.failure(TestError()))
        #expect(action.cancel.count == 1)
        #expect(state.isCancellingForUpstreamFailure)
        state.upstreamFailureCancelled()
        #expect(!state.isCancellingForUpstreamFailure)
        let again = state.upstreamCompleted(.failure(TestError()))
        #expect(again.completion == nil && again.cancel.isEmpty)
        // Without inners to cancel there is nothing to wait for.
        var (empty, _) = subscribed()
        _ = empty.upstreamCompleted(.failure(TestError()))
        #expect(!empty.isCancellingForUpstreamFailure)
    }

    @Test func innerFailureCancelsTheOtherInnersButNotTheUpstreamAndFails() {
        var (state, upstream) = subscribed()
        let a = state.addInner()!
        let b = state.addInner()!
        let other = Sub()
        _ = state.attachInner(a, Sub())
        _ = state.attachInner(b, other)
        let (effects, _) = state.innerCompleted(a, .failure(TestError(code: 3)))
        // As Apple's Combine: the upstream is let go, not cancelled.
        #expect(effects.cancel.count == 1 && same(effects.cancel.first, other))
        #expect(!effects.cancel.contains { same($0, upstream) })
        #expect(same(state.upstreamToReplenish(), upstream) == false)
        #expect(effects.completion == .failure(TestError(code: 3)))
        let r19 = state.innerCompleted(b, .failure(TestError(code: 4)))
        #expect(r19.action.completion == nil)
        let r20 = state.addInner()
        #expect(r20 == nil)
    }

    @Test func failureDuringADeliveryIsHandedToTheDeliveringThread() {
        var (state, _) = subscribed()
        _ = state.request(.unlimited)
        let a = state.addInner()!
        let b = state.addInner()!
        _ = state.attachInner(a, Sub())
        _ = state.attachInner(b, Sub())
        let r21 = state.receiveInner(1, from: a)
        #expect(r21 == .deliver)
        let r22 = state.receiveInner(2, from: b)
        #expect(r22 == .wait)
        let effects = state.upstreamCompleted(.failure(TestError(code: 8)))
        #expect(effects.completion == nil)
        #expect(effects.cancel.count == 2)
        let r23 = state.delivered(adding: .none, from: a)
        guard case .complete(.failure(TestError(code: 8))) = r23.next else {
            Issue.record("expected the failure, and the waiting value dropped")
            return
        }
        #expect(!state.isDelivering)
    }

    @Test func cancelReturnsEverythingOnceAndStopsAll() {
        var (state, upstream) = subscribed()
        let inner = Sub()
        let id = state.addInner()!
        _ = state.attachInner(id, inner)
        let cancel = state.cancel()
        // The inners first, then the upstream (Apple's order).
        #expect(cancel.count == 2 && same(cancel.first, inner) && same(cancel.last, upstream))
        let r24 = state.cancel()
        #expect(r24.isEmpty)
        let r25 = state.receiveInner(1, from: id)
        #expect(r25 == .wait)
        let r26 = state.request(.max(1))
        #expect(r26.start == nil)
        let r27 = state.upstreamCompleted(.finished)
        #expect(r27.completion == nil)
    }

    @Test func cancelDuringADeliveryEndsItWithoutCompletion() {
        var (state, _) = subscribed()
        _ = state.request(.unlimited)
        let id = state.addInner()!
        _ = state.attachInner(id, Sub())
        let r28 = state.receiveInner(1, from: id)
        #expect(r28 == .deliver)
        _ = state.cancel()
        let r29 = state.delivered(adding: .none, from: id)
        guard case .idle = r29.next else { Issue.record("expected idle"); return }
    }
}
