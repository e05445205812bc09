import Foundation
import NIOCore
import NIOPosix
import Sluice
import SluiceNIO
import SluiceTesting
import Testing

/// The scheduler on a real `MultiThreadedEventLoopGroup` loop: the same behaviours as the Dispatch
/// scheduler's tests, waiting on events with generous limits.
@Suite struct EventLoopSchedulerRealLoopTests {
    @Test func runsNowLaterAndRepeatedlyOnTheLoop() async {
        await withLoop { loop in
            let scheduler = EventLoopScheduler(loop)
            let log = Shared<[String]>([])
            let onLoop = Shared<[Bool]>([])
            scheduler.schedule { log.mutate { $0.append("now") }; onLoop.mutate { $0.append(loop.inEventLoop) } }
            scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(20))) {
                log.mutate { $0.append("later") }
                onLoop.mutate { $0.append(loop.inEventLoop) }
            }
            let ticks = Shared(0)
            let repeating = scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(5)), interval: .milliseconds(5)) {
                ticks.mutate { $0 += 1 }
                onLoop.mutate { $0.append(loop.inEventLoop) }
            }
            await waitUntil { log.value.count == 2 && ticks.value >= 3 }
            repeating.cancel()   // from another thread: at most a run already begun finishes
            let stopped = ticks.value
            try? await loop.submit {}.get()
            try? await Task.sleep(for: .milliseconds(30))
            #expect(log.value == ["now", "later"])
            #expect(ticks.value <= stopped + 1)
            #expect(onLoop.value.allSatisfy { $0 })
        }
    }

    @Test func laterActionsDoNotRunEarly() async {
        await withLoop { loop in
            let scheduler = EventLoopScheduler(loop)
            let start = scheduler.now
            let ranAt = Shared<EventLoopScheduler.SchedulerTimeType?>(nil)
            scheduler.schedule(after: start.advanced(by: .milliseconds(30))) { ranAt.mutate { $0 = scheduler.now } }
            await waitUntil { ranAt.value != nil }
            let at = try! #require(ranAt.value)
            #expect(start.distance(to: at) >= .milliseconds(30))
        }
    }

    @Test func cancellingOnTheLoopMeansNoFurtherRun() async {
        await withLoop { loop in
            let scheduler = EventLoopScheduler(loop)
            let runs = Shared(0)
            let handle = Shared<(any Cancellable)?>(nil)
            let stopped = Shared(false)
            handle.mutate {
                $0 = scheduler.schedule(after: scheduler.now, interval: .microseconds(100)) {
                    runs.mutate { $0 += 1 }
                    if runs.value == 3 { handle.value?.cancel(); stopped.mutate { $0 = true } }
                }
            }
            await waitUntil { stopped.value }
            // Let the loop turn several times.
            for _ in 0..<5 { try? await loop.scheduleTask(in: .milliseconds(2)) {}.futureResult.get() }
            #expect(runs.value == 3)
        }
    }

    @Test func receiveOnDeliversInOrderOnTheLoop() async {
        await withLoop { loop in
            let subscriber = TestSubscriber<Int, Never>()
            let onLoop = Shared<[Bool]>([])
            (1...500).publisher
                .receive(on: EventLoopScheduler(loop))
                .handleEvents(receiveOutput: { _ in onLoop.mutate { $0.append(loop.inEventLoop) } })
                .subscribe(subscriber)
            await waitUntil { subscriber.completion != nil }
            #expect(subscriber.values == Array(1...500))
            #expect(onLoop.value.count == 500 && onLoop.value.allSatisfy { $0 })
        }
    }

    @Test func debounceAndTimeoutOnARealLoop() async {
        await withLoop { loop in
            let scheduler = EventLoopScheduler(loop)
            let subject = PassthroughSubject<Int, Never>()
            let debounced = TestSubscriber<Int, Never>()
            subject.debounce(for: .milliseconds(20), scheduler: scheduler).subscribe(debounced)
            subject.send(1)
            subject.send(2)
            await waitUntil { !debounced.values.isEmpty }
            #expect(debounced.values == [2])
            let timedOut = TestSubscriber<Int, Never>()
            PassthroughSubject<Int, Never>().timeout(.milliseconds(10), scheduler: scheduler).subscribe(timedOut)
            await waitUntil { timedOut.completion != nil }
            #expect(timedOut.completion == .finished)
        }
    }
}

/// Shutting a real group down with work scheduled and repeating: nothing crashes, nothing is
/// printed, later work is dropped. Serialized: standard error is captured while each runs.
@Suite(.serialized) struct EventLoopShutdownTests {
    @Test func shuttingDownWithScheduledAndRepeatingWorkCrashesAndPrintsNothing() async throws {
        let ran = Shared<[String]>([])
        let printed = try await capturingStandardError {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            let schedulers = [EventLoopScheduler(group.next()), EventLoopScheduler(group.next())]
            var repeating: [any Cancellable] = []
            for scheduler in schedulers {
                scheduler.schedule(after: scheduler.now.advanced(by: .seconds(30))) { ran.mutate { $0.append("30 s") } }
                repeating.append(scheduler.schedule(after: scheduler.now, interval: .milliseconds(1)) {
                    ran.mutate { $0.append("tick") }
                })
            }
            await waitUntil { ran.value.count >= 4 }
            try await group.shutdownGracefully()
            for scheduler in schedulers {
                #expect(!scheduler.isLoopOpen)
                scheduler.schedule { ran.mutate { $0.append("after") } }
                scheduler.schedule(after: scheduler.now) { ran.mutate { $0.append("after") } }
                let late = scheduler.schedule(after: scheduler.now, interval: .milliseconds(1)) { ran.mutate { $0.append("after") } }
                late.cancel()
                _ = EventLoopScheduler(scheduler.eventLoop)   // a second scheduler for the loop knows it too
            }
            for handle in repeating { handle.cancel() }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!ran.value.contains("30 s") && !ran.value.contains("after"))
        #expect(!printed.contains("Cannot schedule tasks"), "NIO printed: \(printed)")
    }

    /// What the scheduler spares its users, seen through the same capture the tests above use:
    /// NIO itself prints its error for a task handed to a loop that has shut down.
    @Test func nioItselfPrintsForWorkOnAShutDownLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        try await group.shutdownGracefully()
        let printed = await capturingStandardError { loop.execute {} }
        #expect(printed.contains("Cannot schedule tasks on an EventLoop that has already shut down"))
    }

    @Test func aFuturePublisherOnALoopThatShutsDownFails() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let promise = loop.makePromise(of: Int.self)
        let subscriber = TestSubscriber<Int, any Error>()
        promise.futureResult.publisher.subscribe(subscriber)
        let printed = try await capturingStandardError {
            try await group.shutdownGracefully()
            await waitUntil { subscriber.completion != nil }
            // After the shutdown, a new subscription fails at once, without calling into the loop.
            let late = TestSubscriber<Int, any Error>()
            promise.futureResult.publisher.subscribe(late)
            #expect(late.failure.map { "\($0)" } == "\(EventLoopError.shutdown)")
        }
        #expect(subscriber.failure.map { "\($0)" } == "\(EventLoopError.shutdown)")
        #expect(!printed.contains("Cannot schedule tasks"), "NIO printed: \(printed)")
        // NIO's debug builds trap when a promise nobody completed is freed: this one's loop is gone,
        // so it is kept, as a server's would be until exit.
        _ = Unmanaged.passRetained(promise.futureResult)
    }

    @Test func aFutureFromAPublisherFailsWhenItsLoopShutsDown() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let subject = PassthroughSubject<Int, Never>()
        let cancelled = Shared(false)
        let future = subject.handleEvents(receiveCancel: { cancelled.mutate { $0 = true } }).firstValueFuture(on: loop)
        let outcome = Shared<Result<Int, any Error>?>(nil)
        future.whenComplete { result in outcome.mutate { $0 = result } }
        let printed = try await capturingStandardError {
            try await group.shutdownGracefully()
            await waitUntil { outcome.value != nil }
            subject.send(1)   // too late: nothing reaches the dead loop
            // A future asked for now is failed at once (nothing can observe it but the dead loop).
            _ = subject.firstValueFuture(on: loop)
        }
        #expect(throws: EventLoopError.shutdown) { try outcome.value?.get() }
        #expect(cancelled.value)
        #expect(!printed.contains("Cannot schedule tasks"), "NIO printed: \(printed)")
    }
}
