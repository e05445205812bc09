@testable import SluiceCore
import SluiceTesting
import Testing

@Suite("SwitchingUpstream")
struct SwitchingUpstreamTests {
    typealias State = SwitchingUpstream<TestSubscriber<Int, Never>>

    private func isSubscribeDownstream(_ attachment: State.Attachment) -> Bool {
        if case .subscribeDownstream = attachment { return true }
        return false
    }

    @Test func theFirstUpstreamSubscribesTheDownstreamOnce() {
        var state = State(downstream: TestSubscriber())
        let first = ManualPublisher<Int, Never>.Subscription()
        #expect(isSubscribeDownstream(state.attach(first)))
        guard case .cancel = state.attach(ManualPublisher<Int, Never>.Subscription()) else {
            Issue.record("a second subscription while one is current must be cancelled")
            return
        }
    }

    @Test func aReplacementIsAskedForTheDemandStillOwed() {
        var state = State(downstream: TestSubscriber())
        _ = state.attach(ManualPublisher<Int, Never>.Subscription())
        #expect(state.request(.max(3)) != nil)
        #expect(state.willDeliver("test") != nil)
        #expect(state.delivered(adding: .max(2)) == .max(2))
        state.detachCurrent()
        guard case .request(let owed) = state.attach(ManualPublisher<Int, Never>.Subscription()) else {
            Issue.record("a replacement must be asked for the demand owed")
            return
        }
        #expect(owed == .max(4))  // 3 requested − 1 delivered + 2 returned
    }

    @Test func returnedDemandIsForTheCurrentUpstreamAndCarriedOver() {
        var state = State(downstream: TestSubscriber())
        let current = ManualPublisher<Int, Never>.Subscription()
        _ = state.attach(current)
        _ = state.request(.max(1))
        _ = state.willDeliver("test")
        #expect(state.returned(.max(2)) as AnyObject? === current)
        state.detachCurrent()
        #expect(state.returned(.max(1)) == nil)
        guard case .request(let owed) = state.attach(ManualPublisher<Int, Never>.Subscription()) else {
            Issue.record("a replacement must be asked for the demand owed")
            return
        }
        #expect(owed == .max(3))
    }

    @Test func aValueNobodyAskedForStopsTheProgram() async {
        // As in Apple's Combine (catch, tryCatch, retry).
        await #expect(processExitsWith: .failure) {
            var state = SwitchingUpstream<TestSubscriber<Int, Never>>(downstream: TestSubscriber())
            _ = state.attach(ManualPublisher<Int, Never>.Subscription())
            _ = state.willDeliver("test")
        }
    }

    @Test func nothingIsOwedMeansNothingIsRequested() {
        var state = State(downstream: TestSubscriber())
        _ = state.attach(ManualPublisher<Int, Never>.Subscription())
        state.detachCurrent()
        guard case .nothing = state.attach(ManualPublisher<Int, Never>.Subscription()) else {
            Issue.record("no demand owed: nothing to request")
            return
        }
    }

    @Test func unlimitedDemandStaysUnlimited() {
        var state = State(downstream: TestSubscriber())
        _ = state.attach(ManualPublisher<Int, Never>.Subscription())
        _ = state.request(.unlimited)
        for _ in 0..<5 { _ = state.willDeliver("test") }
        state.detachCurrent()
        guard case .request(let owed) = state.attach(ManualPublisher<Int, Never>.Subscription()) else {
            Issue.record("unlimited demand must be carried over")
            return
        }
        #expect(owed == .unlimited)
    }

    @Test func terminateHandsTheDownstreamOutOnceAndEndsEverything() {
        var state = State(downstream: TestSubscriber())
        _ = state.attach(ManualPublisher<Int, Never>.Subscription())
        #expect(state.terminate() != nil)
        #expect(state.terminate() == nil)
        #expect(state.willDeliver("test") == nil)
        #expect(state.request(.max(1)) == nil)
        #expect(state.cancel() == nil)
        guard case .cancel = state.attach(ManualPublisher<Int, Never>.Subscription()) else {
            Issue.record("after the end every subscription must be cancelled")
            return
        }
    }

    @Test func cancelReturnsTheCurrentUpstreamOnceAndReleasesTheDownstream() {
        var state = State(downstream: TestSubscriber())
        let current = ManualPublisher<Int, Never>.Subscription()
        _ = state.attach(current)
        #expect(state.cancel() as AnyObject? === current)
        #expect(state.cancel() == nil)
        #expect(state.downstream == nil)
        #expect(state.terminate() == nil)
    }
}
