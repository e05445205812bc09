import Dispatch
import SluiceCore
import Testing

@Suite("Subscribers.Sink")
struct SinkTests {
    @Test func requestsUnlimitedOnSubscription() {
        let publisher = ManualPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        publisher.subscribe(sink)
        #expect(publisher.subscription.requests == [.unlimited])
    }

    @Test func deliversValuesThenFinished() {
        let publisher = ManualPublisher<Int, TestError>()
        var events: [String] = []
        let sink = Subscribers.Sink<Int, TestError>(
            receiveCompletion: { events.append("\($0)") }, receiveValue: { events.append("value \($0)") })
        publisher.subscribe(sink)
        #expect(publisher.send(1) == .none)
        #expect(publisher.send(2) == .none)
        publisher.send(completion: .finished)
        #expect(events == ["value 1", "value 2", "finished"])
    }

    @Test func deliversFailure() {
        let publisher = ManualPublisher<Int, TestError>()
        var completions: [Subscribers.Completion<TestError>] = []
        let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { completions.append($0) }, receiveValue: { _ in })
        publisher.subscribe(sink)
        publisher.send(completion: .failure(TestError(code: 4)))
        #expect(completions == [.failure(TestError(code: 4))])
    }

    @Test func ignoresASecondCompletion() {
        let publisher = ManualPublisher<Int, TestError>()
        var completions: [Subscribers.Completion<TestError>] = []
        let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { completions.append($0) }, receiveValue: { _ in })
        publisher.subscribe(sink)
        publisher.send(completion: .finished)
        publisher.send(completion: .failure(TestError()))
        #expect(completions == [.finished])
    }

    @Test func cancelCancelsUpstreamOnceAndIgnoresLaterEvents() {
        let publisher = ManualPublisher<Int, Never>()
        var values: [Int] = []
        var completions = 0
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in completions += 1 }, receiveValue: { values.append($0) })
        publisher.subscribe(sink)
        publisher.send(1)
        sink.cancel()
        sink.cancel()
        #expect(publisher.subscription.cancelCount == 1)
        // A publisher that keeps sending after the cancel is ignored.
        publisher.send(2)
        publisher.send(completion: .finished)
        #expect(values == [1])
        #expect(completions == 0)
    }

    @Test func cancelFromInsideReceiveValue() {
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        var sink: Subscribers.Sink<Int, Never>?
        sink = Subscribers.Sink(receiveCompletion: { _ in Issue.record("no completion after cancel") }, receiveValue: {
            values.append($0)
            if $0 == 2 { sink?.cancel() }
        })
        subject.subscribe(sink!)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        subject.send(completion: .finished)
        #expect(values == [1, 2])
    }

    @Test func cancelsASecondSubscription() {
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        first.subscribe(sink)
        second.subscribe(sink)
        #expect(second.subscription.cancelCount == 1)
        #expect(second.subscription.requests.isEmpty)
        #expect(first.subscription.cancelCount == 0)
    }

    @Test func aCancelBeforeAnySubscriptionDoesNothing() {
        // As Apple's: values still reach the closure, and a subscription arriving later is
        // accepted (and asked for `.unlimited`).
        var values: [Int] = []
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
        sink.cancel()
        _ = sink.receive(1)
        let publisher = ManualPublisher<Int, Never>()
        publisher.subscribe(sink)
        #expect(publisher.subscription.cancelCount == 0)
        #expect(publisher.subscription.requests == [.unlimited])
        publisher.send(2)
        #expect(values == [1, 2])
        sink.cancel()
        #expect(publisher.subscription.cancelCount == 1)
    }

    @Test func cancelAfterCompletionDoesNotCancelUpstream() {
        let publisher = ManualPublisher<Int, Never>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        publisher.subscribe(sink)
        publisher.send(completion: .finished)
        sink.cancel()
        #expect(publisher.subscription.cancelCount == 0)
    }

    @Test func releasesItsClosuresOnCompletion() {
        // `cancellable = publisher.sink { self.use($0) }` must not keep `self` alive once the
        // publisher has finished, even though the cancellable (and so the sink) is still held.
        let publisher = ManualPublisher<Int, Never>()
        weak var weakToken: Token?
        let sink: Subscribers.Sink<Int, Never>
        do {
            let token = Token()
            weakToken = token
            sink = Subscribers.Sink(receiveCompletion: { _ in token.value += 1 }, receiveValue: { token.value = $0 })
        }
        publisher.subscribe(sink)
        publisher.send(5)
        #expect(weakToken?.value == 5)
        publisher.send(completion: .finished)
        #expect(weakToken == nil)
        withExtendedLifetime(sink) {}
    }

    @Test func cancellingItsCancellableReleasesTheClosures() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakToken: Token?
        let cancellable: AnyCancellable
        do {
            let token = Token()
            weakToken = token
            cancellable = subject.sink { token.value = $0 }
        }
        subject.send(3)
        #expect(weakToken?.value == 3)
        cancellable.cancel()
        #expect(weakToken == nil)
    }

    @Test func closuresAreNoOpsAfterCompletion() {
        let publisher = ManualPublisher<Int, Never>()
        var values: [Int] = []
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
        publisher.subscribe(sink)
        sink.receiveValue(1)
        publisher.send(completion: .finished)
        sink.receiveValue(2)
        publisher.send(3)
        #expect(values == [1])
    }

    @Test func releasesTheSubscriptionOnCompletionAndCancel() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSink: Subscribers.Sink<Int, Never>?
        do {
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
            weakSink = sink
            subject.subscribe(sink)
            sink.cancel()
        }
        #expect(weakSink == nil)

        do {
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
            weakSink = sink
            subject.subscribe(sink)
        }
        #expect(weakSink != nil)  // the subject keeps its subscriber while it is live
        subject.send(completion: .finished)
        #expect(weakSink == nil)
    }

    @Test func sinkOperatorReturnsACancellableThatCancelsOnDeinit() {
        let publisher = ManualPublisher<Int, Never>()
        var values: [Int] = []
        var cancellable: AnyCancellable? = publisher.sink { values.append($0) }
        #expect(publisher.subscription.requests == [.unlimited])
        publisher.send(1)
        #expect(values == [1])
        cancellable = nil
        #expect(publisher.subscription.cancelCount == 1)
        _ = cancellable
    }

    @Test func sinkWithCompletionOperator() {
        let subject = PassthroughSubject<String, TestError>()
        var events: [String] = []
        let cancellable = subject.sink(receiveCompletion: { events.append("\($0)") }, receiveValue: { events.append($0) })
        subject.send("a")
        subject.send(completion: .failure(TestError(code: 2)))
        subject.send("b")
        #expect(events == ["a", "failure(SluiceCoreTests.TestError(code: 2))"])
        _ = cancellable
    }

    @Test func reentrantSendFromInsideTheSink() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let cancellable = subject.sink { value in
            received.append(value)
            if value < 3 { subject.send(value + 1) }
        }
        subject.send(1)
        #expect(received == [1, 2, 3])
        _ = cancellable
    }

    @Test func cancelIsThreadSafe() {
        for _ in 0..<50 {
            let publisher = ManualPublisher<Int, Never>()
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
            publisher.subscribe(sink)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in sink.cancel() }
            #expect(publisher.subscription.cancelCount == 1)
        }
    }

    @Test func descriptions() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(String(describing: sink) == "Sink")
        #expect(sink.playgroundDescription as? String == "Sink")
        #expect(sink.customMirror.children.isEmpty)
    }

    @Test func combineIdentifierIsTheObjectsIdentity() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let other = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(sink.combineIdentifier == sink.combineIdentifier)
        #expect(sink.combineIdentifier == CombineIdentifier(sink))
        #expect(sink.combineIdentifier != other.combineIdentifier)
    }
}
