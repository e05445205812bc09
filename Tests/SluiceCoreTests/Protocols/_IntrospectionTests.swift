import SluiceCore
import SluiceTesting
import Testing

/// Records what an introspection reports, as strings.
private final class Recorder: _Introspection, @unchecked Sendable {
    var log: [String] = []

    func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
        log.append("willReceive publisher \(publisher) subscriber \(subscriber)")
    }

    func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
        log.append("didReceive publisher \(publisher) subscriber \(subscriber)")
    }

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {
        log.append("willReceive subscription \(subscription)")
    }

    func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {
        log.append("didReceive subscription \(subscription)")
    }

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        log.append("willReceive input \(input)")
    }

    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {
        log.append("didReceive input \(input) \(resultingDemand)")
    }

    func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        log.append("willReceive completion")
    }

    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        log.append("didReceive completion")
    }

    func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {
        log.append("willRequest \(demand)")
    }

    func didRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {
        log.append("didRequest \(demand)")
    }

    func willCancel(subscription: any Subscription) { log.append("willCancel") }

    func didCancel(subscription: any Subscription) { log.append("didCancel") }
}

/// An introspection that implements nothing: every method has a default.
private final class Silent: _Introspection {}

/// A publisher that hands out a subscription and remembers the subscriber it was given.
private final class Source: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    var subscriber: AnySubscriber<Int, Never>?
    var subscriberType: Any.Type?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriberType = S.self
        self.subscriber = AnySubscriber(subscriber)
        subscriber.receive(subscription: Subscriptions.empty)
    }
}

/// `_Introspection` is process-wide state: each test runs in a child process of its own (an exit
/// test), so that enabling it cannot affect tests running in parallel. Inside, `precondition`
/// failures make the child exit with a failure.
@Suite("_Introspection")
struct IntrospectionTests {
    @Test func enableDisableAndIsEnabled() async {
        await #expect(processExitsWith: .success) {
            let first = Recorder()
            let second = Silent()
            precondition(!first.isEnabled && !second.isEnabled)
            first.enable()
            first.enable()  // idempotent
            precondition(first.isEnabled && !second.isEnabled)
            second.enable()
            first.disable()
            precondition(!first.isEnabled && second.isEnabled)
            second.disable()
            second.disable()
            precondition(!second.isEnabled)
        }
    }

    @Test func reportsASubscriptionAndEveryEventToEachEnabledIntrospection() async {
        await #expect(processExitsWith: .success) {
            let recorder = Recorder()
            recorder.enable()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
            [1, 2, 3].publisher.subscribe(subscriber)
            subscriber.subscription!.request(.max(1))
            recorder.disable()
            let expected = [
                "willReceive publisher Sequence<Array<Int>, Never>(sequence: [1, 2, 3])",
                "willReceive subscription [1, 2, 3]",
                "willRequest max(2)",
                "willReceive input 1", "didReceive input 1 max(0)",
                "willReceive input 2", "didReceive input 2 max(0)",
                "didRequest max(2)",
                "didReceive subscription [1, 2, 3]",
                "didReceive publisher Sequence<Array<Int>, Never>(sequence: [1, 2, 3])",
                "willRequest max(1)",
                "willReceive input 3", "didReceive input 3 max(0)",
                "willReceive completion", "didReceive completion",
                "didRequest max(1)",
            ]
            let log = recorder.log.map { $0.components(separatedBy: " subscriber ")[0] }
            precondition(log == expected, "\(log)")
            precondition(subscriber.values == [1, 2, 3])
        }
    }

    @Test func reportsCancel() async {
        await #expect(processExitsWith: .success) {
            let recorder = Recorder()
            recorder.enable()
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            subject.subscribe(subscriber)
            recorder.log.removeAll()
            subscriber.subscription!.cancel()
            precondition(recorder.log == ["willCancel", "didCancel"], "\(recorder.log)")
            recorder.disable()
        }
    }

    @Test func theForwardingObjectsShowAsWhatTheyForward() async {
        await #expect(processExitsWith: .success) {
            let recorder = Recorder()
            recorder.enable()
            let source = Source()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            source.subscribe(subscriber)
            recorder.disable()
            // The publisher got a forwarding subscriber, not the subscriber itself...
            precondition(source.subscriberType != TestSubscriber<Int, Never>.self)
            precondition(source.subscriber!.combineIdentifier == subscriber.combineIdentifier)
            precondition(String(describing: source.subscriber!) == String(describing: subscriber))
            // ...and the subscriber a forwarding subscription with the original's identity.
            let subscription = subscriber.subscription!
            precondition(subscription.combineIdentifier == Subscriptions.empty.combineIdentifier)
            precondition(String(describing: subscription) == "Empty")
            // Events keep flowing through the forwarding objects once disabled, unreported.
            recorder.log.removeAll()
            _ = source.subscriber!.receive(5)
            precondition(subscriber.values == [5])
            precondition(recorder.log.isEmpty)
        }
    }

    @Test func nothingIsInsertedWhileNoIntrospectionIsEnabled() async {
        await #expect(processExitsWith: .success) {
            let recorder = Recorder()
            recorder.enable()
            recorder.disable()
            let source = Source()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            source.subscribe(subscriber)
            precondition(source.subscriberType == TestSubscriber<Int, Never>.self)
            precondition(recorder.log.isEmpty)
        }
    }

    @Test func operatorsReportTheirUpstreamSubscriptionOnce() async {
        await #expect(processExitsWith: .success) {
            let recorder = Recorder()
            recorder.enable()
            let source = Source()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            source.map { $0 * 2 }.subscribe(subscriber)
            recorder.disable()
            let publishers = recorder.log.filter { $0.hasPrefix("willReceive publisher") }
            precondition(publishers.count == 2, "\(recorder.log)")
            precondition(publishers[1].hasSuffix("subscriber Map"), "\(publishers)")
            // The subscriber's subscription is forwarded once, not once per stage.
            let subscriptions = recorder.log.filter { $0.hasPrefix("willReceive subscription") }
            precondition(subscriptions.count == 2, "\(recorder.log)")
        }
    }

    @Test func debuggingOperatorsReportTheirUpstreamSubscription() async {
        await #expect(processExitsWith: .success) {
            let recorder = Recorder()
            recorder.enable()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            Source().handleEvents().subscribe(subscriber)
            Source().breakpoint().subscribe(subscriber)
            Source().print("", to: nil).subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
            recorder.disable()
            let attached = recorder.log.filter { $0.hasPrefix("willReceive publisher") }.compactMap {
                $0.components(separatedBy: " subscriber ").last
            }
            precondition(attached.contains("HandleEvents") && attached.contains("Breakpoint")
                         && attached.contains("Print"), "\(attached)")
        }
    }
}
