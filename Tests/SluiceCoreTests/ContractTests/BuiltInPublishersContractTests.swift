import Dispatch
import SluiceCore
import SluiceTesting
import Testing

/// Every built-in publisher keeps the contract (DESIGN.md, "The contract"), checked by
/// `PublisherContract` under every scenario — finite and infinite, synchronous and driven.
@Suite struct BuiltInPublishersContractTests {
    /// One publisher to verify, named for the test report.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let check: @Sendable () async -> PublisherContract.Report

        var testDescription: String { name }

        init<P: Publisher & SendableMetatype>(
            _ name: String, valueLimit: Int = 1_000, drive: (@Sendable (P) -> Void)? = nil,
            _ make: @escaping @Sendable () -> P
        ) {
            self.name = name
            check = { await PublisherContract.check(valueLimit: valueLimit, drive: drive, make) }
        }

        init<P: Publisher & SendableMetatype>(
            _ name: String, settle: Duration = .milliseconds(10),
            fixture make: @escaping @Sendable () -> PublisherContract.Fixture<P>
        ) {
            self.name = name
            check = { await PublisherContract.check(settle: settle, make) }
        }
    }

    static let cases: [Case] = [
        Case("Just") { Just(1) },
        Case("Empty, completing immediately") { Empty<Int, Never>() },
        Case("Empty, never completing") { Empty<Int, Never>(completeImmediately: false) },
        Case("Fail") { Fail<Int, ContractTestError>(error: ContractTestError()) },
        Case("Publishers.Sequence, empty") { [Int]().publisher },
        Case("Publishers.Sequence, short") { [1, 2, 3].publisher },
        Case("Publishers.Sequence, long", valueLimit: 10_000) { (1...5_000).publisher },
        Case("Publishers.Sequence, endless") { (1...).publisher },
        Case("Publishers.Sequence, failing type") { Publishers.Sequence<[Int], ContractTestError>(sequence: [1, 2]) },
        Case("Optional.Publisher, some") { Optional(1).publisher },
        Case("Optional.Publisher, none") { Optional<Int>.none.publisher },
        Case("Result.Publisher, success") { Result<Int, ContractTestError>.success(1).publisher },
        Case("Result.Publisher, failure") { Result<Int, ContractTestError>.failure(ContractTestError()).publisher },
        Case("PassthroughSubject, driven to finish", drive: { subject in
            subject.send(1)
            subject.send(2)
            subject.send(3)
            subject.send(completion: .finished)
        }) { PassthroughSubject<Int, Never>() },
        Case("PassthroughSubject, driven to fail", drive: { subject in
            subject.send(1)
            subject.send(completion: .failure(ContractTestError()))
        }) { PassthroughSubject<Int, ContractTestError>() },
        Case("PassthroughSubject, never sent to") { PassthroughSubject<Int, Never>() },
        Case("PassthroughSubject, completed before subscribing") {
            let subject = PassthroughSubject<Int, Never>()
            subject.send(completion: .finished)
            return subject
        },
        Case("CurrentValueSubject, driven to finish", drive: { subject in
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
        }) { CurrentValueSubject<Int, Never>(0) },
        Case("CurrentValueSubject, never sent to") { CurrentValueSubject<Int, Never>(0) },
        Case("Map over a sequence") { (1...10).publisher.map { $0 * 2 } },
        Case("Filter over a sequence") { (1...10).publisher.filter { $0.isMultiple(of: 3) } },
        Case("Map and Filter chained") {
            Publishers.Map(upstream: (1...20).publisher) { $0 + 1 }.filter { $0.isMultiple(of: 2) }.map { "\($0)" }
        },
        Case("Filter rejecting everything") { (1...50).publisher.filter { _ in false } },
        Case("Map and Filter over a driven subject", fixture: {
            let subject = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(subject.map { $0 * 10 }.filter { $0 > 10 }) {
                for value in 1...5 { subject.send(value) }
                subject.send(completion: .finished)
            }
        }),
        Case("AnyPublisher over Just") { Just(1).eraseToAnyPublisher() },
        Case("AnyPublisher over a driven subject", fixture: {
            let subject = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(subject.eraseToAnyPublisher()) {
                subject.send(1)
                subject.send(completion: .finished)
            }
        }),
        Case("Deferred") { Deferred { [1, 2, 3].publisher } },
        Case("Future, fulfilled at once") { Future<Int, Never> { promise in promise(.success(1)) } },
        Case("Future, failed at once") {
            Future<Int, ContractTestError> { promise in promise(.failure(ContractTestError())) }
        },
        Case("Future, fulfilled once subscribed", fixture: {
            let promise = PromiseSlot<Future<Int, Never>.Promise>()
            let future = Future<Int, Never> { promise.value = $0 }
            return PublisherContract.Fixture(future) { promise.value?(.success(1)) }
        }),
        Case("Future, fulfilled from another thread", settle: .milliseconds(50), fixture: {
            let promise = PromiseSlot<Future<Int, Never>.Promise>()
            let future = Future<Int, Never> { promise.value = $0 }
            return PublisherContract.Fixture(future) {
                let fulfil = UncheckedSendable(promise.value)
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(2)) {
                    fulfil.value?(.success(1))
                }
            }
        }),
        Case("Future, never fulfilled") { Future<Int, Never> { _ in } },
        Case("Record") { Record<Int, Never>(output: [1, 2, 3], completion: .finished) },
        Case("Record, failing") {
            Record<Int, ContractTestError>(output: [1, 2], completion: .failure(ContractTestError()))
        },
        Case("Record, empty") { Record<Int, Never>(output: [], completion: .finished) },
        Case("Published.Publisher, driven", fixture: {
            let model = ContractModel()
            return PublisherContract.Fixture(model.$value) {
                model.value = 1
                model.value = 2
            }
        }),
        Case("ObservableObjectPublisher, driven", drive: { publisher in
            publisher.send()
            publisher.send()
        }) { ObservableObjectPublisher() },
    ]

    @Test(arguments: cases)
    func keepsTheContract(_ publisher: Case) async {
        let report = await publisher.check()
        #expect(report.passed, "\(report)")
        #expect(report.scenarios == PublisherContract.Scenario.all)
    }
}

private struct ContractTestError: Error {}

/// A model with a `@Published` property, for `Published.Publisher`.
private final class ContractModel {
    @Published var value = 0
}

/// A mutable slot a factory's closures share (the promise a `Future` hands out).
private final class PromiseSlot<Value>: @unchecked Sendable {
    var value: Value?
}

/// Carries a value to another thread; used where the value is only touched there afterwards.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
