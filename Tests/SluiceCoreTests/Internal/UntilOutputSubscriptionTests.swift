@testable import SluiceCore
import Testing

@Suite("UntilOutputState")
struct UntilOutputStateTests {
    typealias State = UntilOutputState<TestError>

    @Test func dropReplacesValuesUntilTriggeredThenDelivers() {
        var state = State(mode: .dropUntil)
        #expect(state.deliveryEnded() == nil)
        #expect(state.upstreamValue() == .replace)
        guard case .cancelOther = state.otherValue() else { Issue.record("no cancel"); return }
        #expect(state.upstreamValue() == .deliver)
        #expect(state.active == 1)
        #expect(state.deliveryEnded() == nil)
        guard case .ignore = state.otherValue() else { Issue.record("second trigger acted"); return }
    }

    @Test func prefixDeliversUntilTriggeredThenEnds() {
        var state = State(mode: .prefixUntil)
        _ = state.deliveryEnded()
        #expect(state.upstreamValue() == .deliver)
        _ = state.deliveryEnded()
        guard case .end(.some(.finished)) = state.otherValue() else { Issue.record("did not finish"); return }
        #expect(state.upstreamValue() == .ignore)
    }

    @Test func aCompletionDecidedDuringADeliveryWaitsForIt() {
        var state = State(mode: .prefixUntil)
        _ = state.deliveryEnded()
        #expect(state.upstreamValue() == .deliver)
        guard case .end(nil) = state.otherValue() else { Issue.record("delivered during a delivery"); return }
        #expect(state.upstreamValue() == .ignore)
        #expect(state.deliveryEnded() == .finished)
    }

    @Test func aCompletionBeforeTheSubscriptionWaitsForTheWindow() {
        var state = State(mode: .dropUntil)
        guard case .end(nil) = state.otherCompleted(failure: TestError(code: 2)) else {
            Issue.record("delivered before the subscription"); return
        }
        #expect(state.deliveryEnded() == .failure(TestError(code: 2)))
    }

    @Test func theOtherFinishingOrPrefixIgnoringFailuresChangesNothing() {
        var drop = State(mode: .dropUntil)
        guard case .ignore = drop.otherCompleted(failure: nil) else { Issue.record("drop acted"); return }
        var prefix = State(mode: .prefixUntil)
        guard case .ignore = prefix.otherCompleted(failure: TestError()) else { Issue.record("prefix acted"); return }
        _ = prefix.deliveryEnded()
        #expect(prefix.upstreamValue() == .deliver)
    }

    @Test func upstreamCompletionEndsOnceAndCancelSilences() {
        var state = State(mode: .dropUntil)
        _ = state.deliveryEnded()
        let first = state.upstreamCompleted(.finished)
        #expect(first.ended && first.deliver == .finished)
        let second = state.upstreamCompleted(.finished)
        #expect(!second.ended && second.deliver == nil)
        var cancelled = State(mode: .prefixUntil)
        cancelled.cancel()
        #expect(cancelled.upstreamValue() == .ignore)
        guard case .ignore = cancelled.otherValue() else { Issue.record("acted after cancel"); return }
    }
}
