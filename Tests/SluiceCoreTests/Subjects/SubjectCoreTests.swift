@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

@Suite("SubjectCore")
struct SubjectCoreTests {
    @Test func passThroughAndCurrentValueKinds() {
        let passthrough = SubjectCore<Int, Never>(name: "P", currentValue: nil)
        #expect(!passthrough.replaysCurrentValue)
        let current = SubjectCore<Int, Never>(name: "C", currentValue: 1)
        #expect(current.replaysCurrentValue)
        #expect(current.currentValue == 1)
        // A current value that is itself `nil` is still a current value.
        let optional = SubjectCore<Int?, Never>(name: "O", currentValue: .some(nil))
        #expect(optional.replaysCurrentValue)
        #expect(optional.currentValue == nil)
    }

    @Test func sendStoresTheCurrentValueFirstByDefault() {
        let core = SubjectCore<Int, Never>(name: "C", currentValue: 0)
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
        let core = SubjectCore<Int, Never>(name: "C", currentValue: 0)
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
        let core = SubjectCore<Int, Never>(name: "C", currentValue: 0)
        let subscriber = TestSubscriber<Int, Never>()
        core.receive(subscriber: subscriber)
        core.store(5)
        #expect(subscriber.values == [0])
        #expect(core.currentValue == 5)
    }

    @Test func subscriptionsAreRemovedOnCancel() {
        let core = SubjectCore<Int, Never>(name: "P", currentValue: nil)
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        core.receive(subscriber: first)
        core.receive(subscriber: second)
        #expect(core.conduits.count == 2)
        first.cancel()
        #expect(core.conduits.count == 1)
        first.cancel()
        #expect(core.conduits.count == 1)
        second.cancel()
        #expect(core.conduits.isEmpty)
    }

    @Test func completionForgetsSubscriptionsAndUpstreams() {
        let core = SubjectCore<Int, Never>(name: "P", currentValue: nil)
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
        let core = SubjectCore<Int, TestError>(name: "P", currentValue: nil)
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
        let core = SubjectCore<Int, Never>(name: "P", currentValue: nil)
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
        let core = SubjectCore<Int, Never>(name: "Custom", currentValue: nil)
        let subscriber = TestSubscriber<Int, Never>()
        core.receive(subscriber: subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Custom)"])
    }

    @Test func concurrentSubscribeAndCancelLeaveNoSubscriptionBehind() {
        let core = SubjectCore<Int, Never>(name: "P", currentValue: nil)
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
        #expect(core.conduits.isEmpty)
    }
}
