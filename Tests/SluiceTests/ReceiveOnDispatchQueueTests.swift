import Dispatch
import Sluice
import SluiceTesting
import Testing

/// `receive(on:)` a dispatch queue, whose relay enqueues one prepared block per value while the
/// values wait in the relay: the events, their order and their timing must be those of one action
/// per value. A suspended queue holds the runs back, so that each test sees exactly what waits.
@Suite struct ReceiveOnDispatchQueueTests {
    @Test func eachValueRunsInTurnWithTheQueuesOtherWork() {
        let queue = DispatchQueue(label: "ReceiveOnDispatchQueueTests.order")
        let log = Shared<[String]>([])
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject.receive(on: queue).sink { value in log.mutate { $0.append("\(value)") } }
        queue.suspend()
        subject.send(1)
        queue.async { log.mutate { $0.append("other work") } }
        subject.send(2)
        subject.send(3)
        #expect(log.value.isEmpty)
        queue.resume()
        queue.sync {}
        #expect(log.value == ["1", "other work", "2", "3"])   // not both values in one run
        cancellable.cancel()
    }

    @Test func theCompletionComesAfterEveryWaitingValueAndReleasesTheSubscriber() {
        let queue = DispatchQueue(label: "ReceiveOnDispatchQueueTests.completion")
        let subject = PassthroughSubject<Int, TestError>()
        var subscriber: TestSubscriber<Int, TestError>? = TestSubscriber()
        weak let released = subscriber
        subject.receive(on: queue).subscribe(subscriber!)
        queue.suspend()
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(TestError()))
        subject.send(3)                                      // after the completion: ignored
        queue.resume()
        queue.sync {}
        #expect(subscriber?.eventDescriptions == ["subscription(ReceiveOn)", "value(1)", "value(2)", "failure(TestError())"])
        subscriber = nil
        #expect(released == nil)
    }

    @Test func aCancelDropsTheWaitingValuesAndTheRelayGoesWhenItsRunsHaveRun() throws {
        let queue = DispatchQueue(label: "ReceiveOnDispatchQueueTests.cancel")
        let subject = PassthroughSubject<Int, Never>()
        var subscriber: TestSubscriber<Int, Never>? = TestSubscriber()
        weak let releasedSubscriber = subscriber
        subject.receive(on: queue).subscribe(subscriber!)
        weak let relay = try #require(subscriber?.subscription) as AnyObject
        queue.suspend()
        subject.send(1)
        subject.send(2)
        subscriber?.cancel()
        #expect(subscriber?.values == [])
        subscriber = nil
        #expect(releasedSubscriber == nil)   // the waiting runs do not hold the subscriber
        #expect(relay != nil)                // but they hold the relay, as a scheduled closure would
        queue.resume()
        queue.sync {}
        #expect(relay == nil)
    }

    @Test func aCancelOnTheQueueStopsTheValuesBehindIt() {
        let queue = DispatchQueue(label: "ReceiveOnDispatchQueueTests.cancelOnQueue")
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        subject.receive(on: queue).subscribe(subscriber)
        queue.suspend()
        (1...5).forEach(subject.send)
        queue.resume()
        queue.sync {}
        #expect(subscriber.values == [1, 2])
    }

    @Test func demandTheSubscriberReturnsIsRequestedFromTheQueue() async {
        let queue = DispatchQueue(label: "ReceiveOnDispatchQueueTests.demand")
        let oneByOne = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...5).publisher.receive(on: queue).subscribe(oneByOne)
        await waitUntil { oneByOne.completion != nil }
        #expect(oneByOne.values == [1, 2, 3, 4, 5])

        let justOne = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.receive(on: queue).subscribe(justOne)
        queue.sync {}
        #expect(justOne.values == [1])
        #expect(justOne.completion == nil)
    }

    @Test func eachRunEntersTheOptionsGroup() {
        let queue = DispatchQueue(label: "ReceiveOnDispatchQueueTests.group")
        let group = DispatchGroup()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.receive(on: queue, options: .init(qos: .utility, group: group)).subscribe(subscriber)
        queue.suspend()
        subject.send(1)
        subject.send(2)
        #expect(group.wait(timeout: .now()) == .timedOut)
        queue.resume()
        group.wait()
        #expect(subscriber.values == [1, 2])
    }

    @Test func valuesFromTwoThreadsAllArriveEachSendersInItsOrder() async {
        let queue = DispatchQueue(label: "ReceiveOnDispatchQueueTests.threads")
        let subject = PassthroughSubject<(sender: Int, value: Int), Never>()
        let subscriber = TestSubscriber<(sender: Int, value: Int), Never>()
        subject.receive(on: queue).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 2) { sender in
            for value in 0..<2_000 { subject.send((sender, value)) }
        }
        subject.send(completion: .finished)
        await waitUntil { subscriber.completion != nil }
        let values = subscriber.values
        #expect(values.count == 4_000)
        for sender in 0..<2 {
            #expect(values.filter { $0.sender == sender }.map(\.value) == Array(0..<2_000))
        }
    }
}

private struct TestError: Error, Equatable {}
