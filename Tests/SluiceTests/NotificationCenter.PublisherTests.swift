import Foundation
import Sluice
import SluiceTesting
import Testing

/// `NotificationCenter.Publisher` on real notification centers (Linux Foundation's `post` and
/// `addObserver` cannot be overridden, so the conformance suite's file for it cannot compile here:
/// these tests state the same behaviour).
@Suite struct NotificationCenterPublisherTests {
    private let name = Notification.Name("NotificationCenterPublisherTests")
    private final class Sender: Sendable {}

    @Test func deliversMatchingNotificationsOnlyWhileThereIsDemand() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>(initialDemand: .none)
        center.publisher(for: name).subscribe(recorder)
        #expect(recorder.eventDescriptions == ["subscription(NotificationCenter Observer)"])
        center.post(name: name, object: nil)          // no demand: dropped, not buffered
        recorder.request(.max(2))
        center.post(name: name, object: nil)
        center.post(name: Notification.Name("other"), object: nil)
        center.post(name: name, object: nil)
        center.post(name: name, object: nil)          // demand used up: dropped
        recorder.request(.max(1))
        center.post(name: name, object: nil)
        #expect(recorder.values.count == 3)
        #expect(recorder.values.allSatisfy { $0.name == name })
        #expect(recorder.completion == nil)
    }

    @Test func demandReturnedFromReceiveIsAdded() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        center.publisher(for: name).subscribe(recorder)
        for _ in 0..<5 { center.post(name: name, object: nil) }
        #expect(recorder.values.count == 5)
    }

    @Test func filtersByObject() {
        let center = NotificationCenter()
        let (one, two) = (Sender(), Sender())
        let recorder = TestSubscriber<Notification, Never>()
        center.publisher(for: name, object: one).subscribe(recorder)
        center.post(name: name, object: two)
        center.post(name: name, object: nil)
        center.post(name: name, object: one)
        #expect(recorder.values.count == 1)
        #expect(recorder.values.first?.object as AnyObject? === one)
    }

    @Test func zeroDemandIsIgnored() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>(initialDemand: .none)
        center.publisher(for: name).subscribe(recorder)
        recorder.request(.none)
        center.post(name: name, object: nil)
        #expect(recorder.values.isEmpty)
    }

    @Test func cancelRemovesTheObserverAndReleasesTheCenter() {
        weak var weakCenter: NotificationCenter?
        let recorder = TestSubscriber<Notification, Never>()
        do {
            let center = NotificationCenter()
            weakCenter = center
            center.publisher(for: name).subscribe(recorder)
            center.post(name: name, object: nil)
        }
        #expect(weakCenter != nil)   // the subscription keeps it until cancelled
        weakCenter?.post(name: name, object: nil)
        recorder.cancel()
        #expect(weakCenter == nil)
        #expect(recorder.values.count == 2)
    }

    @Test func nothingArrivesAfterCancelAndCancelIsIdempotent() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>()
        center.publisher(for: name).subscribe(recorder)
        center.post(name: name, object: nil)
        let subscription = recorder.subscription
        subscription?.cancel()
        subscription?.cancel()
        subscription?.request(.max(3))
        center.post(name: name, object: nil)
        #expect(recorder.values.count == 1)
    }

    @Test func aSubscriptionNobodyKeepsDeliversNothing() {
        let center = NotificationCenter()
        nonisolated(unsafe) var received = 0
        do {
            let subscriber = AnySubscriber<Notification, Never>(
                receiveSubscription: { $0.request(.unlimited) },
                receiveValue: { _ in received += 1; return .none })
            center.publisher(for: name).subscribe(subscriber)
        }
        center.post(name: name, object: nil)
        #expect(received == 0)
    }

    @Test func aNotificationPostedFromReceiveIsDeliveredNested() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>(initialDemand: .max(3))
        var depth = 0
        recorder.onValue = { _, _ in
            depth += 1
            if depth < 10 { center.post(name: name, object: nil) }
            return .none
        }
        center.publisher(for: name).subscribe(recorder)
        center.post(name: name, object: nil)
        #expect(recorder.values.count == 3)
    }

    @Test func postsFromSeveralThreadsAreEachDeliveredOnce() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>()
        center.publisher(for: name).subscribe(recorder)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<250 { center.post(name: name, object: nil, userInfo: ["id": thread * 1000 + i]) }
        }
        let ids = recorder.values.compactMap { $0.userInfo?["id"] as? Int }
        #expect(ids.count == 1000)
        #expect(Set(ids).count == 1000)
    }

    @Test func limitedDemandIsNeverExceededUnderConcurrentPosts() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>(initialDemand: .max(100))
        center.publisher(for: name).subscribe(recorder)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<250 { center.post(name: name, object: nil) }
        }
        #expect(recorder.values.count == 100)
    }

    /// Driven by posts to its own center, the publisher keeps the contract under every scenario.
    @Test func keepsTheContract() async throws {
        let name = self.name
        try await PublisherContract.verify(drive: { publisher in
            for _ in 0..<5 { publisher.center.post(name: name, object: nil) }
        }) {
            NotificationCenter().publisher(for: name)
        }
    }

    @Test func apiShapeDescriptionAndMirror() {
        let (c1, c2) = (NotificationCenter(), NotificationCenter())
        let object = Sender()
        #expect(c1.publisher(for: name, object: object) == NotificationCenter.Publisher(center: c1, name: name, object: object))
        #expect(c1.publisher(for: name) == c1.publisher(for: name, object: nil))
        #expect(c1.publisher(for: name) != c2.publisher(for: name))
        #expect(c1.publisher(for: name) != c1.publisher(for: Notification.Name("other")))
        #expect(c1.publisher(for: name, object: object) != c1.publisher(for: name))
        let publisher = c1.publisher(for: name, object: object)
        #expect(publisher.center === c1 && publisher.name == name && publisher.object === object)

        let recorder = TestSubscriber<Notification, Never>(initialDemand: .none)
        publisher.subscribe(recorder)
        let subscription = recorder.subscription
        #expect(subscription.map { String(describing: $0) } == "NotificationCenter Observer")
        let labels = subscription.map { Mirror(reflecting: $0).children.compactMap(\.label) }
        #expect(labels == ["center", "name", "object", "demand"])
        recorder.cancel()
    }
}
