import Foundation
import SluiceCore

extension NotificationCenter {
    /// Returns a publisher that emits events when broadcasting notifications.
    ///
    /// - Parameters:
    ///   - name: The name of the notification to publish.
    ///   - object: The object posting the named notification. If `nil`, the publisher emits
    ///     elements for any object producing a notification with the given name.
    /// - Returns: A publisher that emits events when broadcasting notifications.
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        Publisher(center: self, name: name, object: object)
    }

    /// A publisher that emits elements when broadcasting notifications.
    ///
    /// Each subscription adds an observer to the center when it is made, and removes it when the
    /// subscription is cancelled. A notification posted while the subscriber has no outstanding
    /// demand is dropped, not buffered (a notification is an event, not a value to catch up on).
    /// Requesting `.none` is ignored. Notifications are delivered on the thread that posts them; a
    /// notification posted from inside the subscriber's `receive(_:)` is delivered at once, nested.
    /// The observer holds its subscription weakly: a subscription nobody keeps delivers nothing.
    /// The subscription keeps the center alive until it is cancelled.
    public struct Publisher: SluiceCore.Publisher, Equatable {
        /// The kind of values published by this publisher.
        public typealias Output = Notification

        /// The kind of errors this publisher might publish.
        public typealias Failure = Never

        /// The notification center this publisher uses as a source.
        public let center: NotificationCenter

        /// The name of notifications published by this publisher.
        public let name: Notification.Name

        /// The object posting the named notification.
        public let object: AnyObject?

        /// Creates a publisher that emits events when broadcasting notifications.
        ///
        /// - Parameters:
        ///   - center: The notification center to publish notifications for.
        ///   - name: The name of the notification to publish.
        ///   - object: The object posting the named notification. If `nil`, the publisher emits
        ///     elements for any object producing a notification with the given name.
        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        /// Attaches the subscriber and adds the observer to the center.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = NotificationSubscription(center: center, name: name, object: object, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }

        /// Two notification publishers are equal when they observe the same center, name and
        /// object (centers and objects compared by identity).
        public static func == (lhs: Publisher, rhs: Publisher) -> Bool {
            lhs.center === rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
        }
    }
}

/// The subscription of a ``Foundation/NotificationCenter/Publisher``: a registered observer and
/// the subscriber's outstanding demand.
final class NotificationSubscription<Downstream: Subscriber>: Subscription, NotificationReceiver, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Notification, Downstream.Failure == Never {
    private let lock = Lock()
    private var center: NotificationCenter?
    private let name: Notification.Name
    private let object: AnyObject?
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var observer: (any NSObjectProtocol)?

    init(center: NotificationCenter, name: Notification.Name, object: AnyObject?, downstream: Downstream) {
        self.center = center
        self.name = name
        self.object = object
        self.downstream = downstream
        // Added before the subscriber hears of the subscription, as Apple's is; nothing can be
        // delivered before a request, so the order is safe.
        // The observer reaches this subscription through a non-generic protocol, so that the
        // `@Sendable` block captures no metadata of the (maybe non-Sendable) subscriber type.
        weak let receiver: (any NotificationReceiver)? = self
        let observer = center.addObserver(forName: name, object: object, queue: nil) { notification in
            receiver?.deliver(notification)
        }
        lock.withLock { self.observer = observer }
    }

    /// Delivers one notification if the subscriber has asked for one.
    func deliver(_ notification: Notification) {
        let downstream: Downstream? = lock.withLock {
            guard demand > .none, let downstream = self.downstream else { return nil }
            demand -= 1
            return downstream
        }
        guard let downstream else { return }
        let more = downstream.receive(notification)
        guard more > .none else { return }
        lock.withLock {
            if self.downstream != nil { demand += more }
        }
    }

    /// Adds to the outstanding demand; `.none` is ignored, as Apple's subscription ignores it.
    func request(_ demand: Subscribers.Demand) {
        lock.withLock {
            if downstream != nil { self.demand += demand }
        }
    }

    /// Removes the observer and lets go of the center and the subscriber. Idempotent.
    func cancel() {
        let (center, observer): (NotificationCenter?, (any NSObjectProtocol)?) = lock.withLock {
            defer {
                self.center = nil
                self.observer = nil
                downstream = nil
                demand = .none
            }
            return (self.center, self.observer)
        }
        if let center, let observer { center.removeObserver(observer) }
    }

    var description: String { "NotificationCenter Observer" }

    var playgroundDescription: Any { description }

    var customMirror: Mirror {
        let (center, demand) = lock.withLock { (self.center, self.demand) }
        return Mirror(self, children: [
            ("center", center as Any), ("name", name), ("object", object as Any), ("demand", demand),
        ])
    }
}

/// What a notification observer calls.
private protocol NotificationReceiver: AnyObject, Sendable {
    func deliver(_ notification: Notification)
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension NotificationCenter.Publisher: @unchecked Sendable {}
#endif
