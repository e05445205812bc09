import Dispatch
import Foundation
import Sluice
import SluiceTesting
import Testing

/// The Foundation and Dispatch schedulers for real (short intervals, bounded waits), and their
/// virtual-time stand-ins.
@Suite struct SchedulersTests {
    @Test func dispatchQueueRunsNowLaterAndRepeatedly() async {
        let queue = DispatchQueue(label: "SchedulersTests")
        let log = Shared<[String]>([])
        queue.schedule { log.mutate { $0.append("now") } }
        queue.schedule(after: queue.now.advanced(by: .milliseconds(20))) { log.mutate { $0.append("later") } }
        let ticks = Shared(0)
        let repeating = queue.schedule(after: queue.now.advanced(by: .milliseconds(5)), interval: .milliseconds(5)) {
            ticks.mutate { $0 += 1 }
        }
        await waitUntil { log.value.count == 2 && ticks.value >= 3 }
        repeating.cancel()
        let stopped = ticks.value
        try? await Task.sleep(for: .milliseconds(30))
        #expect(log.value == ["now", "later"])
        #expect(ticks.value <= stopped + 1)   // a tick already on its way may still land
    }

    @Test func dispatchTimeArithmeticAndCoding() throws {
        typealias Time = DispatchQueue.SchedulerTimeType
        let t = Time(DispatchTime(uptimeNanoseconds: 10_000))
        #expect(t.advanced(by: .microseconds(1)).dispatchTime.uptimeNanoseconds == 11_000)
        #expect(t.distance(to: Time(DispatchTime(uptimeNanoseconds: 10_431))) == .nanoseconds(431))
        #expect(Time.Stride.seconds(1.5).magnitude == 1_500_000_000)
        #expect((2 as Time.Stride).timeInterval == .nanoseconds(2_000_000_000))
        #expect(Time.Stride(.never).magnitude == .max)
        let data = try JSONEncoder().encode([Time.Stride.nanoseconds(5)])
        #expect(String(decoding: data, as: UTF8.self) == #"[{"_nanoseconds":5}]"#)
        #expect(try JSONDecoder().decode([Time].self, from: JSONEncoder().encode([t])) == [t])
        let options = DispatchQueue.SchedulerOptions()
        #expect(options.qos == .unspecified && options.group == nil)
    }

    @Test func runLoopRunsActionsWhenItRuns() {
        let runLoop = RunLoop.current
        var log: [String] = []
        runLoop.schedule { log.append("now") }
        runLoop.schedule(after: runLoop.now.advanced(by: .milliseconds(10))) { log.append("later") }
        var ticks = 0
        let repeating = runLoop.schedule(after: runLoop.now.advanced(by: .milliseconds(5)), interval: .milliseconds(5)) {
            ticks += 1
        }
        #expect(log.isEmpty)   // nothing before the run loop runs
        let deadline = Date(timeIntervalSinceNow: 5)
        while (log.count < 2 || ticks < 3) && Date() < deadline { runLoop.run(until: Date(timeIntervalSinceNow: 0.01)) }
        repeating.cancel()
        #expect(log == ["now", "later"])
        #expect(ticks >= 3)
    }

    @Test func operationQueueRunsNowLaterAndRepeatedly() async {
        let queue = OperationQueue()
        let log = Shared<[String]>([])
        queue.schedule { log.mutate { $0.append("now") } }
        queue.schedule(after: queue.now.advanced(by: .milliseconds(20))) { log.mutate { $0.append("later") } }
        let ticks = Shared(0)
        let repeating = queue.schedule(after: queue.now.advanced(by: .milliseconds(5)), interval: .milliseconds(5)) {
            ticks.mutate { $0 += 1 }
        }
        await waitUntil { log.value.count == 2 && ticks.value >= 3 }
        repeating.cancel()
        #expect(log.value == ["now", "later"])
        #expect(ticks.value >= 3)
        #expect((RunLoop.SchedulerTimeType.Stride(1.5) * 2).timeInterval == 3)
    }

    /// As Apple's, a delayed action is an operation on the queue at once (not a BlockOperation),
    /// not ready before its date, and cancellable; a repeating schedule keeps one operation queued.
    @Test func operationQueueQueuesADelayedActionAsAnOperationThatIsNotReadyYet() async {
        let queue = OperationQueue()
        queue.isSuspended = true
        let ran = Shared(0)
        queue.schedule(after: queue.now.advanced(by: .seconds(30))) { ran.mutate { $0 += 1 } }
        queue.schedule(after: queue.now.advanced(by: .milliseconds(10))) { ran.mutate { $0 += 10 } }
        let operations = queue.operations
        #expect(operations.count == 2)
        #expect(operations.allSatisfy { !($0 is BlockOperation) && $0 is any Cancellable && !$0.isFinished })
        #expect(!operations[0].isReady)
        operations[0].cancel()
        queue.isSuspended = false
        await waitUntil { ran.value == 10 && queue.operationCount == 0 }
        #expect(ran.value == 10)            // the cancelled one never ran
        operations[1].main()                // an operation runs its action once only
        #expect(ran.value == 10)

        let ticks = Shared(0)
        let repeating = queue.schedule(after: queue.now, interval: .milliseconds(5)) { ticks.mutate { $0 += 1 } }
        await waitUntil { ticks.value >= 3 }
        // While a tick runs, it and the next one (queued before its action runs) are both counted:
        // hold the queue still (no operation starts on a suspended queue) and let the running one
        // finish. What stays is the next tick, waiting for its time.
        queue.isSuspended = true
        await waitUntil { queue.operationCount <= 1 }
        #expect(queue.operationCount == 1)
        repeating.cancel()
        queue.isSuspended = false
        await waitUntil { queue.operationCount == 0 }
        let after = ticks.value
        try? await Task.sleep(for: .milliseconds(30))
        #expect(ticks.value == after)
    }

    @Test func receiveOnASerialQueueDeliversInOrderOnThatQueue() async {
        let queue = DispatchQueue(label: "SchedulersTests.receive")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let onQueue = Shared<[Bool]>([])
        let subscriber = TestSubscriber<Int, Never>()
        (1...100).publisher
            .handleEvents(receiveOutput: { _ in })
            .receive(on: queue)
            .handleEvents(receiveOutput: { _ in onQueue.mutate { $0.append(DispatchQueue.getSpecific(key: key) == true) } })
            .subscribe(subscriber)
        await waitUntil { subscriber.completion != nil }
        #expect(subscriber.values == Array(1...100))
        #expect(onQueue.value.count == 100 && onQueue.value.allSatisfy { $0 })
    }

    @Test func timerPublisherTicksOnlyWhileConnected() {
        let publisher = Timer.publish(every: 0.01, tolerance: 0.5, on: .current, in: .default)
        #expect(publisher.tolerance == nil)   // ignored, as Apple's is
        let subscriber = TestSubscriber<Date, Never>(initialDemand: .max(3))
        publisher.subscribe(subscriber)
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.05))
        #expect(subscriber.values.isEmpty)
        let connection = publisher.connect()
        let deadline = Date(timeIntervalSinceNow: 5)
        while subscriber.values.count < 3 && Date() < deadline { RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.01)) }
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.05))
        #expect(subscriber.values.count == 3)   // no more than demanded
        connection.cancel()
        subscriber.request(.max(5))
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.05))
        #expect(subscriber.values.count == 3)   // nothing after the connection is cancelled
    }

    @Test func timerPublisherAutoconnects() {
        let subscriber = TestSubscriber<Date, Never>(initialDemand: .max(2))
        Timer.publish(every: 0.01, on: .current, in: .default).autoconnect().subscribe(subscriber)
        let deadline = Date(timeIntervalSinceNow: 5)
        while subscriber.values.count < 2 && Date() < deadline { RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.01)) }
        #expect(subscriber.values.count == 2)
        #expect(subscriber.values[0] < subscriber.values[1])
        subscriber.cancel()
    }

    @Test func testSchedulersStandInForTheRealOnes() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<String, Never>()
        let subscriber = TestSubscriber<String, Never>()
        subject.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(subscriber)
        subject.send("a")
        scheduler.advance(by: .milliseconds(299))
        #expect(subscriber.values.isEmpty)
        scheduler.advance(by: .milliseconds(1))
        #expect(subscriber.values == ["a"])

        let runLoop = RunLoop.test
        var ran = false
        runLoop.schedule(after: runLoop.now.advanced(by: 2)) { ran = true }
        runLoop.advance(by: 2)
        #expect(ran)
        let queue = OperationQueue.test
        #expect(queue.now.date == Date(timeIntervalSinceReferenceDate: 0))
    }
}

/// A lock-protected value for the tests' closures.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
