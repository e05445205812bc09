@testable import SluiceCore
import Testing

@Suite("UntilOutputState")
struct UntilOutputStateTests {
    typealias State = UntilOutputState<TestError>

    @Test func dropIgnoresValuesUntilTriggeredThenDelivers() {
        var state = State(mode: .dropUntil)
        state.demand = .max(3)
        #expect(state.upstreamValue() == .ignore)
        #expect(state.demand == .max(2))  // a dropped value counts against the demand
        guard case .forgetOther = state.otherValue() else { Issue.record("other kept"); return }
        #expect(state.upstreamValue() == .deliver)
        #expect(state.active == 1)
        state.delivered(more: .max(4))
        #expect(state.demand == .max(5))
        #expect(state.deliveryEnded() == nil)
        guard case .ignore = state.otherValue() else { Issue.record("second trigger acted"); return }
    }

    @Test func prefixDeliversUntilTriggeredThenEnds() {
        var state = State(mode: .prefixUntil)
        #expect(state.active == 0)  // no window before the upstream's subscription is forwarded
        #expect(state.upstreamValue() == .deliver)
        _ = state.deliveryEnded()
        guard case .end(.some(.finished)) = state.otherValue() else { Issue.record("did not finish"); return }
        #expect(state.upstreamValue() == .ignore)
    }

    @Test func aCompletionDecidedDuringADeliveryWaitsForIt() {
        var state = State(mode: .prefixUntil)
        #expect(state.upstreamValue() == .deliver)
        guard case .end(nil) = state.otherValue() else { Issue.record("delivered during a delivery"); return }
        #expect(state.upstreamValue() == .ignore)
        #expect(state.deliveryEnded() == .finished)
    }

    @Test func aCompletionDuringTheSubscriptionWaitsForIt() {
        var state = State(mode: .dropUntil)
        state.active += 1  // the downstream is inside receive(subscription:)
        guard case .end(nil) = state.otherCompleted(failure: TestError(code: 2)) else {
            Issue.record("delivered during the subscription"); return
        }
        #expect(state.deliveryEnded() == .failure(TestError(code: 2)))
    }

    @Test func prefixTriggeredBeforeAnySubscriptionFinishesAtOnce() {
        // As in Apple's Combine: `.finished` goes out without waiting for a subscription.
        var state = State(mode: .prefixUntil)
        guard case .end(.some(.finished)) = state.otherValue() else { Issue.record("finish waited"); return }
        #expect(state.upstreamValue() == .ignore)
    }

    @Test func theOtherCompletingBeforeItsValueEndsDropButNotPrefix() {
        var drop = State(mode: .dropUntil)
        guard case .end(.some(.finished)) = drop.otherCompleted(failure: nil) else { Issue.record("drop went on"); return }
        var failing = State(mode: .dropUntil)
        guard case .end(.some(.failure(TestError(code: 3)))) = failing.otherCompleted(failure: TestError(code: 3))
        else { Issue.record("drop did not fail"); return }
        var prefix = State(mode: .prefixUntil)
        guard case .ignore = prefix.otherCompleted(failure: nil) else { Issue.record("prefix acted"); return }
        #expect(prefix.upstreamValue() == .deliver)
    }

    @Test func upstreamCompletionEndsOnceAndCancelSilences() {
        var state = State(mode: .dropUntil)
        let first = state.upstreamCompleted(.finished)
        #expect(first.ended && first.deliver == .finished)
        let second = state.upstreamCompleted(.finished)
        #expect(!second.ended && second.deliver == nil)
        var cancelled = State(mode: .prefixUntil)
        cancelled.cancel()
        #expect(cancelled.upstreamValue() == .ignore)
        guard case .ignore = cancelled.otherValue() else { Issue.record("acted after cancel"); return }
        var cancelledDrop = State(mode: .dropUntil)
        cancelledDrop.cancel()
        #expect(cancelledDrop.upstreamValue() == .ignore)  // no demand, but cancelled: no trap
    }
}
