import SluiceCore
import SluiceTesting
import Testing

private struct Wrapped: Error, Equatable {
    var inner: TestError
}

@Suite("Publishers.MapError")
struct MapErrorTests {
    @Test func convertsTheFailure() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, Wrapped>()
        subject.mapError { Wrapped(inner: $0) }.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == .failure(Wrapped(inner: TestError(code: 3))))
    }

    @Test func finishedPassesThroughWithoutCallingTheClosure() {
        var calls = 0
        let subscriber = TestSubscriber<Int, Wrapped>()
        (1...2).publisher.setFailureType(to: TestError.self).eraseToAnyPublisher()
            .mapError { error -> Wrapped in
                calls += 1
                return Wrapped(inner: error)
            }
            .subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
        #expect(calls == 0)
    }

    @Test func demandPassesStraightThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Wrapped>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.mapError { Wrapped(inner: $0) }.subscribe(subscriber)
        #expect(upstream.subscription.requests == [.max(1)])
        #expect(upstream.send(1) == .max(2))
        subscriber.request(.max(1))
        #expect(upstream.subscription.requests == [.max(1), .max(1)])
        #expect(subscriber.subscription as? ManualPublisher<Int, TestError>.Subscription === upstream.subscription)
    }

    @Test func limitedDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Wrapped>(initialDemand: .max(1))
        (1...3).publisher.setFailureType(to: TestError.self).eraseToAnyPublisher()
            .mapError { Wrapped(inner: $0) }.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelAndReentrantCancel() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Wrapped>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        upstream.mapError { Wrapped(inner: $0) }.subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func releasesTheSubscriber() {
        let subject = PassthroughSubject<Int, TestError>()
        #expect(!subscriberSurvives({ subject.mapError { Wrapped(inner: $0) }.subscribe($0) }, end: { $0.cancel() }))
        #expect(!subscriberSurvives({ subject.mapError { Wrapped(inner: $0) }.subscribe($0) },
                                    end: { _ in subject.send(completion: .failure(TestError())) }))
    }

    @Test func description() {
        let upstream = ManualPublisher<Int, TestError>()
        upstream.mapError { Wrapped(inner: $0) }.subscribe(TestSubscriber<Int, Wrapped>())
        #expect(upstream.subscriberDescription == "MapError")
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            Fail<Int, TestError>(error: TestError()).mapError { Wrapped(inner: $0) }
        }
        try await PublisherContract.verify {
            (1...10).publisher.setFailureType(to: TestError.self).eraseToAnyPublisher().mapError { Wrapped(inner: $0) }
        }
    }

    @Test func typesAndInitialisers() {
        let subject = PassthroughSubject<Int, TestError>()
        let mapped = subject.mapError { Wrapped(inner: $0) }
        #expect(type(of: mapped) == Publishers.MapError<PassthroughSubject<Int, TestError>, Wrapped>.self)
        let unlabelled = Publishers.MapError(upstream: subject, { (error: TestError) in Wrapped(inner: error) })
        #expect(unlabelled.transform(TestError(code: 9)) == Wrapped(inner: TestError(code: 9)))
    }
}

extension MapErrorTests {
    @Test func fusedOnJustAndResult() {
        // `Just` never fails, so the transform is never called (built generically: no dead code).
        func constant<Input, E>(_ error: E) -> (Input) -> E { { _ in error } }
        let just = Just(1).mapError(constant(TestError(code: 1)))
        #expect(type(of: just) == Result<Int, TestError>.Publisher.self)
        #expect(just.result == .success(1))

        struct Wrapped: Error, Equatable { var code: Int }
        var calls = 0
        let failed = Result<Int, TestError>.Publisher(TestError(code: 4)).mapError { error -> Wrapped in
            calls += 1
            return Wrapped(code: error.code * 10)
        }
        #expect(calls == 1)
        #expect(type(of: failed) == Result<Int, Wrapped>.Publisher.self)
        #expect(failed.result == .failure(Wrapped(code: 40)))
        #expect(Result<Int, TestError>.Publisher(2).mapError { Wrapped(code: $0.code) }.result == .success(2))
    }
}

// MARK: As in Combine: a misbehaving upstream, and the subscription's mirror

extension MapErrorTests {
    @Test func theSubscriberPutUpstreamHasAnEmptyMirror() {
        let upstream = LatePublisher<Int, TestError>()
        upstream.mapError { $0 }.subscribe(TestSubscriber())
        #expect(upstream.subscriber.map { Mirror(reflecting: $0).children.isEmpty } == true)
    }
}
