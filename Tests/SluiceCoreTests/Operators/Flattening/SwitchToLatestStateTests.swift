@testable import SluiceCore
import Testing

private typealias Sub = ManualPublisher<Int, Never>.Subscription
private typealias State = SwitchToLatestState<Int, TestError>

private func same(_ subscription: (any Subscription)?, _ expected: Sub) -> Bool {
    (subscription as? Sub) === expected
}

private func subscribed() -> (State, Sub) {
    var state = State()
    let upstream = Sub()
    _ = state.attachUpstream(upstream)
    return (state, upstream)
}

@Suite("SwitchToLatestState")
struct SwitchToLatestStateTests {
    @Test func switchingReturnsThePreviousInnerToCancel() {
        var (state, upstream) = subscribed()
        #expect(same(state.upstreamToRequest(), upstream))
        let first = state.switchInner()!
        #expect(first.cancel == nil)
        let firstSubscription = Sub()
        _ = state.attachInner(first.id, firstSubscription)
        let second = state.switchInner()!
        #expect(same(second.cancel, firstSubscription))
        #expect(second.id != first.id)
        let r1 = state.attachInner(first.id, Sub())
        #expect(r1 == .cancel)  // too late: no longer current
    }

    @Test func newInnerGetsTheOutstandingDemand() {
        var (state, _) = subscribed()
        _ = state.request(.max(3))
        let first = state.switchInner()!.id
        let r2 = state.attachInner(first, Sub())
        #expect(r2 == .request(.max(3)))
        let r3 = state.receiveInner(1, from: first)
        #expect(r3)
        _ = state.delivered(adding: .none, from: first)
        let second = state.switchInner()!.id
        let r4 = state.attachInner(second, Sub())
        #expect(r4 == .request(.max(2)))
    }

    @Test func requestsAndReturnedDemandGoToTheCurrentInner() {
        var (state, _) = subscribed()
        let id = state.switchInner()!.id
        let inner = Sub()
        let r5 = state.attachInner(id, inner)
        #expect(r5 == .request(.none))
        let r6 = state.request(.max(2))
        #expect(same(r6.forward, inner))
        let r7 = state.receiveInner(1, from: id)
        #expect(r7)
        let (forward, toSender, _) = state.delivered(adding: .max(4), from: id)
        #expect(same(forward, inner) && toSender)
        #expect(state.demand == .max(5))
    }

    @Test func lateValuesOfAReplacedInnerAreDroppedAndItsWaitingValuesToo() {
        var (state, _) = subscribed()
        _ = state.request(.max(3))
        let old = state.switchInner()!.id
        _ = state.attachInner(old, Sub())
        let r8 = state.receiveInner(1, from: old)
        #expect(r8)
        let r8b = state.receiveInner(2, from: old)
        #expect(!r8b)  // during that delivery: waits
        let new = state.switchInner()!.id
        #expect(state.buffer.isEmpty)
        let r9 = state.receiveInner(2, from: old)
        #expect(!r9)
        #expect(state.buffer.isEmpty)
        _ = state.attachInner(new, Sub())
        let r10 = state.delivered(adding: .none, from: old)
        guard case .idle = r10.next else { Issue.record("expected idle"); return }
        let r11 = state.receiveInner(3, from: new)
        #expect(r11)
    }

    @Test func waitingValuesOfAFinishedInnerSurviveTheSwitch() {
        var (state, _) = subscribed()
        _ = state.request(.max(2))
        let old = state.switchInner()!.id
        _ = state.attachInner(old, Sub())
        let r12 = state.receiveInner(1, from: old)
        #expect(r12)
        let r12b = state.receiveInner(2, from: old)
        #expect(!r12b)
        _ = state.innerCompleted(old, .finished)
        _ = state.switchInner()
        let r13 = state.delivered(adding: .none, from: old)
        guard case .deliver(2, inner: old) = r13.next else { Issue.record("expected 2"); return }
    }

    @Test func aValueBeforeItsInnersSubscriptionIsDeliveredAndTheDemandReturnedToIt() {
        var (state, _) = subscribed()
        _ = state.request(.unlimited)
        let id = state.switchInner()!.id
        let r40 = state.receiveInner(1, from: id)
        #expect(r40)
        let (forward, toSender, _) = state.delivered(adding: .max(42), from: id)
        #expect(forward == nil && toSender)
    }

    @Test func aSubscriptionFromAnInnerThatCompletedIsIgnored() {
        var (state, _) = subscribed()
        let id = state.switchInner()!.id
        #expect(state.attachInner(id, Sub()) == .request(.none))
        #expect(state.attachInner(id, Sub()) == .cancel)  // a second one while current
        _ = state.innerCompleted(id, .finished)
        #expect(state.attachInner(id, Sub()) == .ignore)
        #expect(state.currentSubscription == nil)
    }

    @Test func anInnerWaitingForItsSubscriptionWhenTheUpstreamFailsIsStillAskedForTheDemand() {
        for completion in [Subscribers.Completion<TestError>.finished, .failure(TestError())] {
            var (state, _) = subscribed()
            _ = state.request(.unlimited)
            let id = state.switchInner()!.id
            let effects = state.upstreamCompleted(completion)
            #expect(effects.cancel.isEmpty)
            #expect(state.attachInner(id, Sub()) == .request(.unlimited))
            // Only once.
            #expect(state.attachInner(id, Sub()) == .cancel)
        }
    }

    @Test func valueDuringADeliveryIsHandedToTheDeliveringThread() {
        var (state, _) = subscribed()
        _ = state.request(.max(5))
        let id = state.switchInner()!.id
        _ = state.attachInner(id, Sub())
        let r14 = state.receiveInner(1, from: id)
        #expect(r14)
        let r15 = state.receiveInner(2, from: id)
        #expect(!r15)
        let r16 = state.delivered(adding: .none, from: id)
        guard case .deliver(2, inner: id) = r16.next else {
            Issue.record("expected the queued value")
            return
        }
        let r17 = state.delivered(adding: .none, from: id)
        guard case .idle = r17.next else { Issue.record("expected idle"); return }
    }

    @Test func finishesWhenUpstreamAndCurrentInnerHaveFinished() {
        var (state, _) = subscribed()
        let id = state.switchInner()!.id
        _ = state.attachInner(id, Sub())  // an inner completes after its subscription
        let r18 = state.upstreamCompleted(.finished)
        #expect(r18.completion == nil)
        let r19 = state.innerCompleted(id, .finished)
        #expect(r19.completion == .finished)
        var (other, _) = subscribed()
        let otherID = other.switchInner()!.id
        _ = other.attachInner(otherID, Sub())
        let r20 = other.innerCompleted(otherID, .finished)
        #expect(r20.completion == nil)
        let r21 = other.upstreamCompleted(.finished)
        #expect(r21.completion == .finished)
    }

    @Test func completionOfAReplacedInnerIsIgnored() {
        var (state, _) = subscribed()
        let old = state.switchInner()!.id
        _ = state.switchInner()
        let effects = state.innerCompleted(old, .failure(TestError()))
        #expect(effects.completion == nil && effects.cancel.isEmpty)
        #expect(!state.isTerminal)
    }

    @Test func failureCancelsTheRest() {
        var (state, upstream) = subscribed()
        let id = state.switchInner()!.id
        let inner = Sub()
        _ = state.attachInner(id, inner)
        let effects = state.upstreamCompleted(.failure(TestError(code: 2)))
        #expect(effects.cancel.count == 1 && same(effects.cancel.first, inner))
        #expect(effects.completion == .failure(TestError(code: 2)))
        let r22 = state.switchInner()
        #expect(r22 == nil)
        _ = upstream
    }

    @Test func failureDuringADeliveryIsHandedToTheDeliveringThread() {
        var (state, upstream) = subscribed()
        _ = state.request(.unlimited)
        let id = state.switchInner()!.id
        _ = state.attachInner(id, Sub())
        let r23 = state.receiveInner(1, from: id)
        #expect(r23)
        let effects = state.innerCompleted(id, .failure(TestError(code: 7)))
        #expect(effects.completion == nil)
        #expect(effects.cancel.count == 1 && same(effects.cancel.first, upstream))
        let r24 = state.delivered(adding: .none, from: id)
        guard case .complete(.failure(TestError(code: 7))) = r24.next else {
            Issue.record("expected the failure")
            return
        }
    }

    @Test func cancelReturnsEverythingOnce() {
        var (state, upstream) = subscribed()
        let id = state.switchInner()!.id
        let inner = Sub()
        _ = state.attachInner(id, inner)
        let cancel = state.cancel()
        // The inner first, then the upstream (Apple's order).
        #expect(cancel.count == 2 && same(cancel.first, inner) && same(cancel.last, upstream))
        let r25 = state.cancel()
        #expect(r25.isEmpty)
        let r26 = state.receiveInner(1, from: id)
        #expect(!r26)
        let r27 = state.request(.max(1))
        #expect(r27.forward == nil)
    }
}
