@testable import SluiceCore
import Dispatch
import SluiceTesting
import Testing

@Suite("CombiningSubscription")
struct CombiningSubscriptionTests {
    @Test func valuesRequestedInsideReceiveSubscriptionArriveOnceItHasReturned() {
        var log: [String] = []
        let subscriber = AnySubscriber<(Int, Int), Never>(
            receiveSubscription: { subscription in
                log.append("subscription begins")
                subscription.request(.unlimited)
                log.append("subscription ends")
            },
            receiveValue: { value in
                log.append("value \(value)")
                return .none
            },
            receiveCompletion: { _ in log.append("finished") })
        Just(1).zip([2, 3].publisher).subscribe(subscriber)
        #expect(log == ["subscription begins", "subscription ends", "value (1, 2)", "finished"])
    }

    @Test func aCompletionDuringTheAttachOfTheUpstreamsFollowsTheSubscription() {
        let subscriber = TestSubscriber<(Int, Int), Never>(initialDemand: .none)
        Empty<Int, Never>().zip(Just(1)).subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Zip)", "finished"])
    }

    @Test func zipPublishesEveryPairInOrderUnderConcurrentRequestsAndSends() {
        // ManualPublishers send whether or not there is demand; as Apple's, zip delivers every
        // complete pair whatever the demand, one at a time and in order.
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let sink = RecordingSink<(Int, Int)>(initialDemand: .none)
        let subscription = Shared<(any Subscription)?>(nil)
        let recorder = AnySubscriber<(Int, Int), Never>(
            receiveSubscription: { subscription.value = $0 },
            receiveValue: { sink.receive($0) },
            receiveCompletion: { sink.receive(completion: $0) })
        a.zip(b).subscribe(recorder)
        let sends = 1_000
        let requests = 400
        let returnedToA = Shared(Subscribers.Demand.none)
        let returnedToB = Shared(Subscribers.Demand.none)
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            switch thread {
            case 0: returnedToA.value = (1...sends).reduce(.none) { demand, value in demand + a.send(value) }
            case 1: returnedToB.value = (1...sends).reduce(.none) { demand, value in demand + b.send(value) }
            default: for _ in 0..<requests { subscription.value?.request(.max(1)) }
            }
        }
        let values = sink.values
        #expect(values.count == sends)
        #expect(values.map(\.0) == Array(1...sends))
        #expect(values.allSatisfy { $0.0 == $0.1 })
        #expect(sink.detector.overlaps == 0)
        // Each request reaches both upstreams: requested, or — made while a value of that upstream
        // was being delivered — returned from its receive(_:).
        #expect(a.subscription.totalDemand + returnedToA.value == .max(requests))
        #expect(b.subscription.totalDemand + returnedToB.value == .max(requests))
    }

    @Test func combineLatestNeverPublishesMoreThanRequestedUnderConcurrentRequestsAndSends() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let sink = RecordingSink<(Int, Int)>(initialDemand: .none)
        let subscription = Shared<(any Subscription)?>(nil)
        let recorder = AnySubscriber<(Int, Int), Never>(
            receiveSubscription: { subscription.value = $0 },
            receiveValue: { sink.receive($0) },
            receiveCompletion: { sink.receive(completion: $0) })
        a.combineLatest(b).subscribe(recorder)
        a.send(0)
        b.send(0)
        let sends = 1_000
        let requests = 400
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            switch thread {
            case 0: for value in 1...sends { a.send(value) }
            case 1: for value in 1...sends { b.send(value) }
            default: for _ in 0..<requests { subscription.value?.request(.max(1)) }
            }
        }
        let values = sink.values
        #expect(values.count <= requests)
        #expect(values.count >= 1)
        // Later combinations never go back on either side.
        let ordered = zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 }
        #expect(ordered)
        #expect(sink.detector.overlaps == 0)
        // Whatever arrived last is published at the latest on one more request.
        subscription.value?.request(.max(1))
        #expect(sink.values.count <= requests + 1)
        #expect(sink.values.last.map { "\($0)" } == "(\(sends), \(sends))")
    }
}
