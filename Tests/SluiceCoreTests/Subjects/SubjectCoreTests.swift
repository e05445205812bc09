@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

@Suite("SubjectCore")
struct SubjectCoreTests {
    @Test func passThroughAndCurrentValueKinds() {
        let passthrough = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        #expect(!passthrough.replaysCurrentValue)
        let current = SubjectCore<Int, Never>(kind: .currentValue, currentValue: 1)
        #expect(current.replaysCurrentValue)
        #expect(current.currentValue == 1)
        // A current value that is itself `nil` is still a current value.
        let optional = SubjectCore<Int?, Never>(kind: .currentValue, currentValue: .some(nil))
        #expect(optional.replaysCurrentValue)
        #expect(optional.currentValue == nil)
    }

    @Test func sendStoresTheCurrentValueFirstByDefault() {
        let core = SubjectCore<Int, Never>(kind: .currentValue, currentValue: 0)
        var seen: [Int] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { $0.request(.unlimited) },
            receiveValue: { _ in
                seen.append(core.currentValue)
                return .none
            })
        core.receive(subscriber: subscriber)
        core.send(1)
        #expect(seen == [0, 1])
    }

    @Test func sendWithoutStoringFirstLeavesTheValueToTheCaller() {
        // `@Published` publishes in `willSet`: subscribers see the old value, then the caller stores.
        let core = SubjectCore<Int, Never>(kind: .currentValue, currentValue: 0)
        var seen: [String] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { $0.request(.unlimited) },
            receiveValue: { value in
                seen.append("\(value) while current is \(core.currentValue)")
                return .none
            })
        core.receive(subscriber: subscriber)
        core.send(1, storingFirst: false)
        core.store(1)
        #expect(seen == ["0 while current is 0", "1 while current is 0"])
        #expect(core.currentValue == 1)
    }

    @Test func storeDoesNotPublish() {
        let core = SubjectCore<Int, Never>(kind: .currentValue, currentValue: 0)
        let subscriber = TestSubscriber<Int, Never>()
        core.receive(subscriber: subscriber)
        core.store(5)
        #expect(subscriber.values == [0])
        #expect(core.currentValue == 5)
    }

    @Test func subscriptionsAreRemovedOnCancel() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        core.receive(subscriber: first)
        core.receive(subscriber: second)
        #expect(core.subscriptionCount == 2)
        first.cancel()
        #expect(core.subscriptionCount == 1)
        first.cancel()
        #expect(core.subscriptionCount == 1)
        second.cancel()
        #expect(core.subscriptionCount == 0)
        #expect(core.conduits.isEmpty)
    }

    @Test func cancelEmptiesTheSlotAndEachSubscriptionKnowsItsSlot() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        let subscribers = (0..<3).map { _ in TestSubscriber<Int, Never>() }
        for subscriber in subscribers { core.receive(subscriber: subscriber) }
        #expect(core.conduits.slots.indices.allSatisfy { core.conduits.slots[$0]?.slot == UInt32($0) })
        subscribers[0].cancel()
        #expect(core.conduits.slots.count == 3)
        #expect(core.conduits.slots[0] == nil)
        #expect(core.conduits.holes == 1)
        #expect(core.subscriptionCount == 2)
    }

    @Test func cancellingTheLastSlotShrinksTheArrayPastEmptySlots() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
        for subscriber in subscribers { core.receive(subscriber: subscriber) }
        subscribers[2].cancel()
        #expect(core.conduits.slots.count == 4)
        subscribers[3].cancel()
        // Slots 2 and 3 go: the last one, then the empty one before it.
        #expect(core.conduits.slots.count == 2)
        #expect(core.conduits.holes == 0)
        #expect(core.subscriptionCount == 2)
    }

    @Test func compactionKeepsTheSubscriptionOrderAndRenumbersTheSlots() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        let log = Shared<[Int]>([])
        let cancellables = (0..<1_000).map { index in
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in log.mutate { $0.append(index) } })
            core.receive(subscriber: sink)
            return AnyCancellable(sink)
        }
        // Cancel two subscribers in three, front to back then back to front, so that empty slots
        // outnumber live ones several times over (each time: a compaction).
        let doomed = (0..<1_000).filter { $0 % 3 != 0 }
        for index in doomed.prefix(300) { cancellables[index].cancel() }
        for index in doomed.dropFirst(300).reversed() { cancellables[index].cancel() }
        let kept = (0..<1_000).filter { $0 % 3 == 0 }
        #expect(core.subscriptionCount == kept.count)
        #expect(core.conduits.holes <= core.subscriptionCount)
        #expect(core.conduits.slots.indices.allSatisfy { core.conduits.slots[$0] == nil || core.conduits.slots[$0]?.slot == UInt32($0) })
        core.send(1)
        core.send(2)
        #expect(log.value == kept + kept)
        // Cancelling the rest in random order after compactions still finds each one.
        var generator = SeededGenerator(seed: 7)
        for index in kept.shuffled(using: &generator) { cancellables[index].cancel() }
        #expect(core.subscriptionCount == 0)
        #expect(core.conduits.isEmpty)
    }

    @Test func completionForgetsSubscriptionsAndUpstreams() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        core.receive(subscriber: TestSubscriber<Int, Never>())
        weak var weakUpstream: ManualPublisher<Int, Never>.Subscription?
        do {
            let upstream = ManualPublisher<Int, Never>.Subscription()
            weakUpstream = upstream
            core.send(subscription: upstream)
        }
        #expect(core.upstreams.count == 1)
        #expect(weakUpstream != nil)
        core.send(completion: .finished)
        #expect(core.conduits.isEmpty)
        #expect(core.upstreams.isEmpty)
        #expect(weakUpstream == nil)
        #expect(core.completion == .finished)
    }

    @Test func onlyTheFirstCompletionCounts() {
        let core = SubjectCore<Int, TestError>(kind: .passthrough, currentValue: nil)
        let subscriber = TestSubscriber<Int, TestError>()
        core.receive(subscriber: subscriber)
        core.send(completion: .failure(TestError(code: 1)))
        core.send(completion: .finished)
        #expect(core.completion == .failure(TestError(code: 1)))
        #expect(subscriber.completion == .failure(TestError(code: 1)))
        let late = TestSubscriber<Int, TestError>()
        core.receive(subscriber: late)
        #expect(late.completion == .failure(TestError(code: 1)))
    }

    @Test func lateSubscriberIsNotKept() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        core.send(completion: .finished)
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            core.receive(subscriber: subscriber)
            #expect(subscriber.completion == .finished)
        }
        #expect(core.conduits.isEmpty)
        #expect(weakSubscriber == nil)
    }

    @Test func subscriptionsCarryTheCoresName() {
        let core = SubjectCore<Int, Never>(kind: .published, currentValue: nil)
        let subscriber = TestSubscriber<Int, Never>()
        core.receive(subscriber: subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(PublishedSubject)"])
    }

    @Test func concurrentSubscribeAndCancelLeaveNoSubscriptionBehind() {
        let core = SubjectCore<Int, Never>(kind: .passthrough, currentValue: nil)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<500 {
                if thread == 0 {
                    core.send(index)
                } else {
                    let subscriber = TestSubscriber<Int, Never>()
                    core.receive(subscriber: subscriber)
                    subscriber.cancel()
                }
            }
        }
        #expect(core.subscriptionCount == 0)
    }
}
