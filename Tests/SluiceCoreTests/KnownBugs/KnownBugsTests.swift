import Dispatch
import SluiceCore
import Testing

/// Bugs reported against other Combine implementations, each reproduced as a test that Sluice
/// passes. Every test names the report it reproduces.
@Suite struct KnownBugsTests {
    /// A subscriber whose request and cancel are triggered from outside, from any thread.
    private final class ExternallyTriggered<Input>: Subscriber, @unchecked Sendable {
        typealias Failure = Never
        private let subscription = Shared<(any Subscription)?>(nil)
        func receive(subscription: any Subscription) { self.subscription.value = subscription }
        func receive(_ input: Input) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<Never>) {}
        func request() { subscription.value?.request(.unlimited) }
        func cancel() { subscription.value?.cancel() }
    }

    /// Races `request` against `cancel` on two threads, 1,000 times, for one publisher kind.
    private func raceRequestAgainstCancel<P: Publisher>(_ make: (Int) -> P) where P.Failure == Never {
        let group = DispatchGroup()
        for i in 1...1000 {
            let subscriber = ExternallyTriggered<P.Output>()
            make(i).subscribe(subscriber)
            DispatchQueue.global().async(group: group) { subscriber.request() }
            DispatchQueue.global().async(group: group) { subscriber.cancel() }
        }
        group.wait()
    }

    /// OpenCombine #157, "Result.Inner crash with multiple threads": `request` on one thread racing
    /// `cancel` on another crashed `Result.Publisher` (and `Just`, `Optional.Publisher`), whose
    /// subscription read its downstream without a lock.
    @Test func openCombine157RequestRacingCancelOnSingleValuePublishers() {
        raceRequestAgainstCancel { Result<Int, Never>.Publisher($0) }
        raceRequestAgainstCancel { Just($0) }
        raceRequestAgainstCancel { Optional.Publisher($0) }
    }

    /// OpenCombine #186, "Crash when deallocating a manually connected multicast before the
    /// Cancellable": releasing both subjects of `multicast(subject:).connect()` before the
    /// connection's cancellable entered a lock recursively.
    @Test func openCombine186ReleasingTheSubjectsOfAConnectedMulticastBeforeItsCancellable() {
        weak var weakOriginal: PassthroughSubject<Void, Never>?
        weak var weakNew: PassthroughSubject<Void, Never>?
        var original: PassthroughSubject<Void, Never>? = PassthroughSubject()
        var new: PassthroughSubject<Void, Never>? = PassthroughSubject()
        weakOriginal = original
        weakNew = new
        var cancellable: (any Cancellable)? = original?.multicast(subject: new!).connect()
        new = nil
        original = nil
        cancellable?.cancel()
        cancellable = nil
        #expect(weakOriginal == nil)
        #expect(weakNew == nil)
    }

    /// OpenCombine #208, "Should change unfair lock to unfair recursive lock in Sink?": cancelling a
    /// sink releases its closures; an object they captured, in its deinit, completes the subject
    /// the sink listens to — a call back into the sink being cancelled, which deadlocked or crashed.
    @Test func openCombine208ACapturedObjectsDeinitCallsBackIntoTheSinkBeingCancelled() {
        final class FinishesOnDeinit: @unchecked Sendable {
            let subject = PassthroughSubject<Int, Never>()
            let deinits: Shared<Int>
            init(deinits: Shared<Int>) { self.deinits = deinits }
            deinit {
                deinits.mutate { $0 += 1 }
                subject.send(completion: .finished)
            }
        }
        let deinits = Shared(0)
        let completions = Shared(0)
        var owner: FinishesOnDeinit? = FinishesOnDeinit(deinits: deinits)
        let subject = owner!.subject
        var cancellable: AnyCancellable? = subject.sink(
            receiveCompletion: { [owner] _ in _ = owner; completions.mutate { $0 += 1 } },
            receiveValue: { _ in })
        owner = nil
        subject.send(1)
        cancellable = nil   // cancels: the closures go, the owner goes, its deinit finishes the subject
        _ = cancellable
        #expect(deinits.value == 1)
        #expect(completions.value == 0)   // nothing reaches a cancelled sink
    }

    /// CombineX #37, "Subject should not invoke receiveValue on multiple threads at the same time":
    /// values sent from several threads must reach each subscriber one at a time.
    @Test func combineX37ASubjectNeverDeliversToOneSubscriberOnTwoThreadsAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let received = Shared(0)
        let cancellable = subject.sink { _ in
            detector.enter()
            received.mutate { $0 += 1 }
            for _ in 0..<50 { _ = detector.overlaps }   // widen the window a little
            detector.leave()
        }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<2_000 { subject.send(thread * 10_000 + i) }
        }
        #expect(detector.overlaps == 0)
        #expect(received.value == 8_000)
        cancellable.cancel()
    }

    /// CombineExt #64, "Thread-safety of ReplaySubject?": an expensive one-time start shared by
    /// many subscribers arriving from many threads crashed. Sluice's `share()` does the same job:
    /// every subscriber completes, and the work runs as often as `share()` promises (once while
    /// connected).
    @Test func combineExt64ASharedStartSubscribedFromManyThreads() {
        let starts = Shared(0)
        let shared = Deferred {
            Future<Int, Never> { promise in
                starts.mutate { $0 += 1 }
                // completes on another thread, while other threads are still subscribing
                nonisolated(unsafe) let promise = promise
                DispatchQueue.global().async { promise(.success(42)) }
            }
        }
        .share()
        let completions = Shared(0)
        let values = Shared<[Int]>([])
        let bag = Shared<[AnyCancellable]>([])
        let group = DispatchGroup()
        for _ in 0..<20 {
            group.enter()
            DispatchQueue.global().async {
                let c = shared.sink(
                    receiveCompletion: { _ in completions.mutate { $0 += 1 }; group.leave() },
                    receiveValue: { value in values.mutate { $0.append(value) } })
                bag.mutate { $0.append(c) }
            }
        }
        #expect(group.wait(timeout: .now() + 20) == .success)
        #expect(completions.value == 20)
        #expect(values.value.allSatisfy { $0 == 42 })
        #expect(starts.value >= 1)
    }

    /// CombineExt #85, "Memory leak issue with ReplaySubject": `share(replay:)` kept its
    /// subscriptions (and through them the source) after completion. Sluice's `share()`: once the
    /// source completes, nothing of the pipeline stays alive.
    @Test func combineExt85ASharedPublisherLetsGoOfEverythingAfterCompletion() {
        weak var weakSource: PassthroughSubject<Int, Never>?
        weak var weakToken: Token?
        do {
            let source = PassthroughSubject<Int, Never>()
            let token = Token()
            weakSource = source
            weakToken = token
            let shared = source.map { [token] in $0 + token.value }.share()
            let a = shared.sink { _ in }
            let b = shared.sink { _ in }
            source.send(1)
            source.send(completion: .finished)
            _ = (a, b)   // kept until the end of the scope, not cancelled
        }
        #expect(weakSource == nil)
        #expect(weakToken == nil)
    }

    /// CombineExt #121, "Memory leak in withLatestFrom operator": the first upstream stayed alive
    /// after everything was released. Sluice has no withLatestFrom; `combineLatest` does the
    /// nearest job: both upstreams go when the subscriber goes.
    @Test func combineExt121CombiningTwoSubjectsKeepsNeitherAliveAfterwards() {
        weak var weak1: PassthroughSubject<Int, Never>?
        weak var weak2: PassthroughSubject<[Int], Never>?
        do {
            let subject1 = PassthroughSubject<Int, Never>()
            let subject2 = PassthroughSubject<[Int], Never>()
            weak1 = subject1
            weak2 = subject2
            let subscription = subject1.combineLatest(subject2)
                .map { _ in CurrentValueSubject<Void, Never>(()).eraseToAnyPublisher() }
                .sink { _ in }
            subject2.send([])
            subject1.send(1)
            subject2.send([])
            _ = subscription
        }
        #expect(weak1 == nil)
        #expect(weak2 == nil)
    }

    /// CombineExt #167, "Memory leak issue with PassthroughRelay": the relay did not release its
    /// subscriptions when it completed. `PassthroughSubject` lets go of its subscribers on
    /// completion, even while their cancellables are still held.
    @Test func combineExt167ACompletedSubjectReleasesItsSubscribers() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakToken: Token?
        var cancellable: AnyCancellable?
        do {
            let token = Token()
            weakToken = token
            cancellable = subject.sink { [token] in token.value = $0 }
        }
        subject.send(1)
        #expect(weakToken != nil)
        subject.send(completion: .finished)
        #expect(weakToken == nil)
        _ = cancellable
    }
}
