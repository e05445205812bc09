import SluiceCore
import Testing

/// A source for leak tests: each subscriber gets a ``LeakProbe/Subscription`` object, watched
/// through a weak reference, and the test sends values and a completion to it at will. The probe
/// holds its subscriptions weakly: once the operator under test lets go of one, it is gone.
final class LeakProbe: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = TestError

    final class Subscription: SluiceCore.Subscription, @unchecked Sendable {
        private(set) var downstream: AnySubscriber<Int, TestError>?
        init(_ downstream: AnySubscriber<Int, TestError>) { self.downstream = downstream }
        func request(_ demand: Subscribers.Demand) {}
        func cancel() { downstream = nil }
        func send(_ value: Int) { _ = downstream?.receive(value) }
        func finish(_ completion: Subscribers.Completion<TestError>) {
            let downstream = self.downstream
            self.downstream = nil
            downstream?.receive(completion: completion)
        }
    }

    private let subscriptions = Shared<[WeakBox]>([])
    private struct WeakBox { weak var subscription: Subscription? }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        let subscription = Subscription(AnySubscriber(subscriber))
        subscriptions.mutate { $0.append(WeakBox(subscription: subscription)) }
        subscriber.receive(subscription: subscription)
    }

    /// The subscriptions still alive.
    var live: [Subscription] { subscriptions.value.compactMap(\.subscription) }

    func send(_ value: Int) { live.forEach { $0.send(value) } }
    func finish(_ completion: Subscribers.Completion<TestError>) { live.forEach { $0.finish(completion) } }
}

/// One row of the leak table: an operator applied to the probe, its closures capturing `token`.
struct LeakCase: CustomTestStringConvertible, Sendable {
    let name: String
    let make: @Sendable (LeakProbe, Token) -> AnyPublisher<String, TestError>
    var testDescription: String { name }

    init(_ name: String, _ make: @escaping @Sendable (LeakProbe, Token) -> AnyPublisher<String, TestError>) {
        self.name = name
        self.make = make
    }

    /// For operators that keep `Int` values and `TestError` failures.
    init<P: Publisher & SendableMetatype>(_ name: String, _ make: @escaping @Sendable (LeakProbe, Token) -> P)
    where P.Failure == TestError {
        self.name = name
        self.make = { probe, token in make(probe, token).map { "\($0)" }.eraseToAnyPublisher() }
    }

    /// For operators that cannot fail.
    init<P: Publisher & SendableMetatype>(never name: String, _ make: @escaping @Sendable (LeakProbe, Token) -> P)
    where P.Failure == Never {
        self.name = name
        self.make = { probe, token in
            make(probe, token).map { "\($0)" }.setFailureType(to: TestError.self).eraseToAnyPublisher()
        }
    }
}

/// For every operator and publisher: after a cancel, and after the upstream completes (finished,
/// or failed), the subscriber, the operator's closures and the upstream subscription are all
/// released — checked through weak references.
@Suite struct LeakTests {
    static let cases: [LeakCase] = [
        LeakCase("map") { p, t in p.map { $0 + t.value } },
        LeakCase("tryMap") { p, t in p.tryMap { $0 + t.value }.mapError { _ in TestError() } },
        LeakCase("mapError") { p, t in p.mapError { _ in TestError(code: t.value) } },
        LeakCase("filter") { p, t in p.filter { $0 > t.value } },
        LeakCase("tryFilter") { p, t in p.tryFilter { $0 > t.value }.mapError { _ in TestError() } },
        LeakCase("compactMap") { p, t in p.compactMap { $0 == t.value ? nil : $0 } },
        LeakCase("tryCompactMap") { p, t in p.tryCompactMap { $0 == t.value ? nil : $0 }.mapError { _ in TestError() } },
        LeakCase("scan") { p, t in p.scan(t.value, +) },
        LeakCase("tryScan") { p, t in p.tryScan(0) { $0 + $1 + t.value }.mapError { _ in TestError() } },
        LeakCase("removeDuplicates(by:)") { p, t in p.removeDuplicates { $0 + t.value == $1 } },
        LeakCase("tryRemoveDuplicates") { p, t in p.tryRemoveDuplicates { $0 + t.value == $1 }.mapError { _ in TestError() } },
        LeakCase("replaceEmpty") { p, t in p.replaceEmpty(with: t.value) },
        LeakCase(never: "replaceError") { p, t in p.replaceError(with: t.value) },
        LeakCase("collect") { p, _ in p.collect().map(\.count) },
        LeakCase("collect(2)") { p, _ in p.collect(2).map(\.count) },
        LeakCase("reduce") { p, t in p.reduce(0) { $0 + $1 + t.value } },
        LeakCase("tryReduce") { p, t in p.tryReduce(0) { $0 + $1 + t.value }.mapError { _ in TestError() } },
        LeakCase("count") { p, _ in p.count() },
        LeakCase("max(by:)") { p, t in p.max { $0 + t.value < $1 } },
        LeakCase("contains(where:)") { p, t in p.contains { $0 == t.value - 1 } },
        LeakCase("allSatisfy") { p, t in p.allSatisfy { $0 > t.value - 10 } },
        LeakCase("first(where:)") { p, t in p.first { $0 == t.value - 1 } },
        LeakCase("last(where:)") { p, t in p.last { $0 > t.value } },
        LeakCase("ignoreOutput") { p, _ in p.ignoreOutput() },
        LeakCase("dropFirst") { p, _ in p.dropFirst() },
        LeakCase("drop(while:)") { p, t in p.drop { $0 < t.value } },
        LeakCase("prefix(3)") { p, _ in p.prefix(3) },
        LeakCase("prefix(while:)") { p, t in p.prefix { $0 < t.value + 100 } },
        LeakCase("output(in:)") { p, _ in p.output(in: 0..<5) },
        LeakCase("append") { p, t in p.append(t.value) },
        LeakCase("prepend") { p, t in p.prepend(t.value) },
        LeakCase("handleEvents") { p, t in p.handleEvents(receiveOutput: { _ in t.value += 0 }) },
        LeakCase("print") { p, _ in p.print("leak", to: SilentStream()) },
        LeakCase("breakpoint") { p, t in p.breakpoint(receiveOutput: { _ in t.value < 0 }) },
        LeakCase("catch") { p, t in p.catch { _ in Just(t.value).setFailureType(to: TestError.self) } },
        LeakCase("tryCatch") { p, t in
            p.tryCatch { _ in Just(t.value).setFailureType(to: TestError.self) }.mapError { _ in TestError() }
        },
        LeakCase("retry") { p, _ in p.retry(0) },
        LeakCase("merge") { p, t in p.merge(with: Just(t.value).setFailureType(to: TestError.self)) },
        LeakCase("zip") { p, t in p.zip(Just(t.value).setFailureType(to: TestError.self)).map { $0 + $1 } },
        LeakCase("combineLatest") { p, t in p.combineLatest(Just(t.value).setFailureType(to: TestError.self)) { $0 + $1 } },
        LeakCase("flatMap") { p, t in p.flatMap { Just($0 + t.value).setFailureType(to: TestError.self) } },
        LeakCase("switchToLatest") { p, t in p.map { Just($0 + t.value).setFailureType(to: TestError.self) }.switchToLatest() },
        LeakCase("share") { p, t in p.map { $0 + t.value }.share() },
        LeakCase("multicast") { p, t in p.map { $0 + t.value }.multicast { PassthroughSubject() }.autoconnect() },
        LeakCase("buffer") { p, t in p.map { $0 + t.value }.buffer(size: 4, prefetch: .byRequest, whenFull: .dropOldest) },
        LeakCase("drop(untilOutputFrom:)") { p, t in p.drop(untilOutputFrom: Just(t.value).setFailureType(to: TestError.self)) },
        LeakCase("prefix(untilOutputFrom:)") { p, t in p.prefix(untilOutputFrom: Empty<Int, TestError>()).map { $0 + t.value } },
        LeakCase("assertNoFailure") { p, t in p.catch { _ in Empty<Int, Never>() }.assertNoFailure().map { $0 + t.value }.setFailureType(to: TestError.self) },
        LeakCase("eraseToAnyPublisher") { p, t in p.map { $0 + t.value }.eraseToAnyPublisher() },
    ]

    private enum End: CaseIterable { case cancel, finish, fail }

    /// Subscribes a sink through `theCase`, sends a value, ends as `end` says, and reports what
    /// is still alive.
    private func run(_ theCase: LeakCase, ending end: End) -> (subscriber: Bool, closures: Bool, upstream: Bool) {
        let probe = LeakProbe()
        weak var closureToken: Token?
        weak var sinkToken: Token?
        weak var upstream: LeakProbe.Subscription?
        var cancellable: AnyCancellable?
        do {
            let token = Token()
            token.value = 1
            closureToken = token
            let sinkCapture = Token()
            sinkToken = sinkCapture
            cancellable = theCase.make(probe, token).sink(
                receiveCompletion: { [sinkCapture] _ in _ = sinkCapture },
                receiveValue: { [sinkCapture] _ in _ = sinkCapture })
            upstream = probe.live.first
        }
        probe.send(1)
        switch end {
        case .cancel: cancellable?.cancel()
        case .finish: probe.finish(.finished)
        case .fail: probe.finish(.failure(TestError()))
        }
        let alive = (sinkToken != nil, closureToken != nil, upstream != nil)
        _ = cancellable   // still held: what is released must be released by the pipeline itself
        return alive
    }

    @Test(arguments: cases) func everythingIsReleasedAfterCancel(_ theCase: LeakCase) {
        let alive = run(theCase, ending: .cancel)
        #expect(!alive.subscriber, "the subscriber is still alive")
        #expect(!alive.closures, "the operator's closures are still alive")
        #expect(!alive.upstream, "the upstream subscription is still alive")
    }

    @Test(arguments: cases) func everythingIsReleasedAfterTheUpstreamFinishes(_ theCase: LeakCase) {
        let alive = run(theCase, ending: .finish)
        #expect(!alive.subscriber, "the subscriber is still alive")
        #expect(!alive.closures, "the operator's closures are still alive")
        #expect(!alive.upstream, "the upstream subscription is still alive")
    }

    @Test(arguments: cases) func everythingIsReleasedAfterTheUpstreamFails(_ theCase: LeakCase) {
        let alive = run(theCase, ending: .fail)
        #expect(!alive.subscriber, "the subscriber is still alive")
        #expect(!alive.closures, "the operator's closures are still alive")
        #expect(!alive.upstream, "the upstream subscription is still alive")
    }
}

/// A `print` destination that drops what it is given.
struct SilentStream: TextOutputStream, Sendable {
    mutating func write(_ string: String) {}
}

/// One row of the publishers' leak table: a publisher whose closures (if any) capture `token`, and
/// a way to make it complete (subjects complete when told to; the others by themselves).
struct PublisherLeakCase: CustomTestStringConvertible, Sendable {
    let name: String
    let make: @Sendable (Token) -> (publisher: AnyPublisher<Int, TestError>, complete: @Sendable () -> Void)
    var testDescription: String { name }
}

/// For every publisher: after a cancel, and after it completes, the subscriber and the
/// publisher's closures are released.
@Suite struct PublisherLeakTests {
    private static func by<P: Publisher & SendableMetatype>(_ name: String, _ make: @escaping @Sendable (Token) -> P) -> PublisherLeakCase
    where P.Output == Int, P.Failure == TestError {
        PublisherLeakCase(name: name) { token in (make(token).eraseToAnyPublisher(), {}) }
    }

    static let cases: [PublisherLeakCase] = [
        by("Just") { _ in Just(1).setFailureType(to: TestError.self) },
        by("Empty") { _ in Empty() },
        by("Fail") { _ in Fail(error: TestError()) },
        by("Result.Publisher") { _ in Result<Int, TestError>.Publisher(1) },
        by("Optional.Publisher") { _ in Optional.Publisher(1).setFailureType(to: TestError.self) },
        by("Sequence") { _ in [1, 2, 3].publisher.setFailureType(to: TestError.self) },
        by("Record") { _ in Record(output: [1, 2], completion: .finished) },
        by("Deferred") { t in Deferred { Just(t.value).setFailureType(to: TestError.self) } },
        by("Future") { t in Future { promise in promise(.success(t.value)) } },
        PublisherLeakCase(name: "PassthroughSubject") { _ in
            let subject = PassthroughSubject<Int, TestError>()
            return (subject.eraseToAnyPublisher(), { subject.send(completion: .finished) })
        },
        PublisherLeakCase(name: "CurrentValueSubject") { t in
            let subject = CurrentValueSubject<Int, TestError>(t.value)
            return (subject.eraseToAnyPublisher(), { subject.send(completion: .finished) })
        },
    ]

    private func run(_ theCase: PublisherLeakCase, cancelling: Bool) -> (subscriber: Bool, closures: Bool) {
        weak var closureToken: Token?
        weak var subscriberToken: Token?
        let subscription = Shared<(any Subscription)?>(nil)
        var complete: (@Sendable () -> Void)?
        do {
            let token = Token()
            closureToken = token
            let captured = Token()
            subscriberToken = captured
            let made = theCase.make(token)
            complete = made.complete
            made.publisher.subscribe(AnySubscriber(
                receiveSubscription: { [captured] in
                    _ = captured
                    subscription.value = $0
                    if !cancelling { $0.request(.unlimited) }
                },
                receiveValue: { [captured] _ in _ = captured; return .none },
                receiveCompletion: { [captured] _ in _ = captured }))
        }
        if cancelling { subscription.value?.cancel() } else { complete?() }
        subscription.value = nil
        return (subscriberToken != nil, closureToken != nil)
    }

    @Test(arguments: cases) func releasedAfterCancel(_ theCase: PublisherLeakCase) {
        let alive = run(theCase, cancelling: true)
        #expect(!alive.subscriber, "the subscriber is still alive")
        #expect(!alive.closures, "the publisher's closures are still alive")
    }

    @Test(arguments: cases) func releasedAfterCompletion(_ theCase: PublisherLeakCase) {
        let alive = run(theCase, cancelling: false)
        #expect(!alive.subscriber, "the subscriber is still alive")
        #expect(!alive.closures, "the publisher's closures are still alive")
    }
}
