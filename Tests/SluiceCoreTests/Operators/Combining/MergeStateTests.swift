@testable import SluiceCore
import Testing

/// The merge state machine, transition by transition, without threads.
@Suite("MergeState")
struct MergeStateTests {
    typealias State = MergeState<Int, TestError>
    typealias Action = MergeAction<Int, TestError>
    typealias Manual = ManualPublisher<Int, TestError>.Subscription

    /// A short name for an action, to compare in expectations.
    func describe(_ action: Action) -> String {
        switch action {
        case .none: return "none"
        case .deliver(let value, let forward):
            return forward.map { "deliver(\(value)) forward(\($0.demand))" } ?? "deliver(\(value))"
        case .forward(let forward): return "forward(\(forward.demand))"
        case .request(let demand): return "request(\(demand))"
        case .reject: return "reject"
        case .cancel(let slots): return "cancel(\(slots.compactMap(\.subscription).count))"
        case .complete(.finished, let slots): return "finished cancel(\(slots.compactMap(\.subscription).count))"
        case .complete(.failure(let error), let slots):
            return "failure(\(error.code)) cancel(\(slots.compactMap(\.subscription).count))"
        }
    }

    /// A state with `count` upstreams all attached.
    func attached(_ count: Int) -> (State, [Manual]) {
        var state = State(upstreamCount: count)
        let subscriptions = (0..<count).map { _ in Manual() }
        for (index, subscription) in subscriptions.enumerated() {
            #expect(describe(state.attach(subscription, at: index)) == "none")
        }
        return (state, subscriptions)
    }

    @Test func noUpstreamsFinishesOnceSubscribed() {
        var state = State(upstreamCount: 0)
        #expect(describe(state.subscribed()) == "finished cancel(0)")
        #expect(state.isTerminated)
        #expect(describe(state.subscribed()) == "none")
    }

    @Test func someUpstreamsDoNotFinishOnSubscribe() {
        var state = State(upstreamCount: 2)
        #expect(describe(state.subscribed()) == "none")
        #expect(!state.isTerminated)
    }

    @Test func attachRequestsTheOutstandingDemand() {
        var state = State(upstreamCount: 2)
        #expect(describe(state.request(.max(3))) == "forward(max(3))")  // to no active upstream yet
        #expect(describe(state.attach(Manual(), at: 0)) == "request(max(3))")
        #expect(describe(state.receive(1, from: 0)) == "deliver(1)")
        #expect(describe(state.delivered(returning: .none)) == "none")
        #expect(describe(state.attach(Manual(), at: 1)) == "request(max(2))")
    }

    @Test func attachRejectsASecondSubscriptionAndAfterTheEnd() {
        var state = State(upstreamCount: 2)
        #expect(describe(state.attach(Manual(), at: 0)) == "none")
        #expect(describe(state.attach(Manual(), at: 0)) == "reject")
        _ = state.cancel()
        #expect(describe(state.attach(Manual(), at: 1)) == "reject")
        #expect(!state.isAcceptingUpstreams)
    }

    @Test func requestIsForwardedToEveryActiveUpstream() {
        var (state, _) = attached(3)
        guard case .forward(let forward) = state.request(.max(2)) else {
            Issue.record("expected a forward")
            return
        }
        #expect(forward.demand == .max(2))
        #expect(forward.upstreams.compactMap(\.subscription).count == 3)
        #expect(state.demand == .max(2))
    }

    @Test func unlimitedDemandIsForwardedOnce() {
        var (state, _) = attached(2)
        #expect(describe(state.request(.unlimited)) == "forward(unlimited)")
        #expect(describe(state.request(.max(1))) == "none")
        #expect(describe(state.receive(1, from: 0)) == "deliver(1)")
        #expect(describe(state.delivered(returning: .max(4))) == "none")
    }

    @Test func valuesBeyondDemandWaitInArrivalOrder() {
        var (state, _) = attached(2)
        _ = state.request(.max(1))
        #expect(describe(state.receive(1, from: 0)) == "deliver(1)")
        #expect(describe(state.delivered(returning: .none)) == "none")
        #expect(describe(state.receive(2, from: 1)) == "none")
        #expect(describe(state.receive(3, from: 0)) == "none")
        #expect(state.queuedCount == 2)
        #expect(describe(state.request(.max(1))) == "deliver(2) forward(max(1))")
        #expect(describe(state.delivered(returning: .none)) == "none")
        #expect(describe(state.request(.max(5))) == "deliver(3) forward(max(5))")
        #expect(describe(state.delivered(returning: .none)) == "none")
        #expect(state.demand == .max(4))
        #expect(state.queuedCount == 0)
    }

    @Test func valuesArrivingDuringADeliveryAreQueuedForTheDeliverer() {
        var (state, _) = attached(2)
        _ = state.request(.unlimited)
        #expect(describe(state.receive(1, from: 0)) == "deliver(1)")
        #expect(describe(state.receive(2, from: 1)) == "none")
        #expect(describe(state.receive(3, from: 0)) == "none")
        #expect(describe(state.delivered(returning: .none)) == "deliver(2)")
        #expect(describe(state.delivered(returning: .none)) == "deliver(3)")
        #expect(describe(state.delivered(returning: .none)) == "none")
        #expect(!state.isDelivering)
    }

    @Test func demandReturnedFromReceiveIsForwarded() {
        var (state, _) = attached(2)
        _ = state.request(.max(1))
        #expect(describe(state.receive(1, from: 0)) == "deliver(1)")
        #expect(describe(state.delivered(returning: .max(2))) == "forward(max(2))")
        #expect(state.demand == .max(2))
    }

    @Test func requestDuringADeliveryOnlyForwards() {
        var (state, _) = attached(2)
        _ = state.request(.max(1))
        _ = state.receive(1, from: 0)
        _ = state.receive(2, from: 1)
        #expect(describe(state.request(.max(1))) == "forward(max(1))")
        #expect(describe(state.delivered(returning: .none)) == "deliver(2)")
    }

    @Test func finishesOnlyWhenEveryUpstreamHasFinished() {
        var (state, _) = attached(3)
        #expect(describe(state.complete(.finished, from: 0)) == "none")
        #expect(describe(state.complete(.finished, from: 0)) == "none")  // twice: ignored
        #expect(describe(state.complete(.finished, from: 2)) == "none")
        #expect(describe(state.complete(.finished, from: 1)) == "finished cancel(0)")
        #expect(state.isTerminated)
        #expect(state.slots.isEmpty)
    }

    @Test func finishWaitsForQueuedValues() {
        var (state, _) = attached(1)
        _ = state.receive(1, from: 0)
        #expect(describe(state.complete(.finished, from: 0)) == "none")
        #expect(describe(state.receive(2, from: 0)) == "none")  // after completion: ignored
        #expect(describe(state.request(.max(1))) == "deliver(1)")
        #expect(describe(state.delivered(returning: .none)) == "finished cancel(0)")
    }

    @Test func finishDuringADeliveryIsDeliveredByTheDeliverer() {
        var (state, _) = attached(1)
        _ = state.request(.unlimited)
        #expect(describe(state.receive(1, from: 0)) == "deliver(1)")
        #expect(describe(state.complete(.finished, from: 0)) == "none")
        #expect(describe(state.delivered(returning: .none)) == "finished cancel(0)")
    }

    @Test func valuesFromAFinishedUpstreamAreIgnored() {
        var (state, _) = attached(2)
        _ = state.request(.unlimited)
        _ = state.complete(.finished, from: 0)
        #expect(describe(state.receive(1, from: 0)) == "none")
        #expect(describe(state.receive(2, from: 1)) == "deliver(2)")
    }

    @Test func failureCancelsTheOthersAndDropsValuesWithoutDemand() {
        var (state, subscriptions) = attached(3)
        _ = state.receive(1, from: 1)
        let action = state.complete(.failure(TestError(code: 7)), from: 0)
        #expect(describe(action) == "failure(7) cancel(2)")
        guard case .complete(_, let slots) = action else { return }
        let cancelled = slots.compactMap { $0.subscription as? Manual }
        #expect(cancelled.count == 2)
        #expect(cancelled.contains { $0 === subscriptions[1] } && cancelled.contains { $0 === subscriptions[2] })
        #expect(!cancelled.contains { $0 === subscriptions[0] })
        #expect(state.isTerminated)
        #expect(describe(state.complete(.failure(TestError(code: 8)), from: 1)) == "none")
        #expect(describe(state.request(.max(1))) == "none")
    }

    @Test func failureDuringADeliveryWaitsForTheDelivererAndTheDemandedValues() {
        var (state, _) = attached(2)
        _ = state.request(.max(2))
        #expect(describe(state.receive(1, from: 0)) == "deliver(1)")
        _ = state.receive(2, from: 0)  // demanded
        _ = state.receive(3, from: 0)  // beyond demand
        #expect(describe(state.complete(.failure(TestError(code: 4)), from: 0)) == "cancel(1)")
        #expect(!state.isTerminated)
        #expect(describe(state.receive(9, from: 1)) == "none")  // after the failure: ignored
        #expect(describe(state.delivered(returning: .none)) == "deliver(2)")
        #expect(describe(state.delivered(returning: .none)) == "failure(4) cancel(0)")
        #expect(state.isTerminated)
    }

    @Test func cancelCancelsEveryActiveUpstreamOnce() {
        var state = State(upstreamCount: 3)
        _ = state.attach(Manual(), at: 0)
        _ = state.attach(Manual(), at: 2)
        _ = state.receive(1, from: 0)
        #expect(describe(state.cancel()) == "cancel(2)")
        #expect(state.isTerminated)
        #expect(state.queuedCount == 0)
        #expect(describe(state.cancel()) == "none")
        #expect(describe(state.receive(2, from: 0)) == "none")
        #expect(describe(state.complete(.finished, from: 0)) == "none")
    }

    @Test func cancelDuringADeliveryEndsIt() {
        var (state, _) = attached(1)
        _ = state.request(.unlimited)
        _ = state.receive(1, from: 0)
        _ = state.receive(2, from: 0)
        _ = state.cancel()
        #expect(describe(state.delivered(returning: .none)) == "none")
        #expect(!state.isDelivering)
    }
}
