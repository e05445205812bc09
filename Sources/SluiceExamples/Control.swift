import Foundation

/// A small stand-in for UIKit's `UIControl`: an object that reports user events to its targets.
///
/// UIKit does not exist on Linux, so the control-event examples use this class instead. It keeps
/// the shape of target/action without Objective-C selectors: a target registers an *unapplied
/// method* (`MyTarget.handle`, of type `(MyTarget) -> (Control) -> Void`) for a set of events, and
/// ``sendActions(for:)`` — what a tap or a keystroke would trigger — calls it with the control as
/// the sender.
///
/// Like UIKit, the control does not retain its targets: a target that goes away is simply no
/// longer called. A well-behaved target still removes itself (``removeTarget(_:for:)``), and
/// ``registeredActionCount`` lets a test see whether it did.
///
/// The target table is guarded by a lock, so targets may be added and removed from any thread
/// (a subscription may be cancelled anywhere). Events, like UIKit's, are sent from one thread at
/// a time; actions run on that thread, with no lock held.
open class Control {
    /// The kinds of event a control reports, after `UIControl.Event`.
    public struct Event: OptionSet, Hashable, Sendable, CustomStringConvertible {
        /// The raw bit mask.
        public let rawValue: UInt

        /// Creates an event set from a raw bit mask.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// A touch lifted inside the control's bounds: a tap.
        public static let touchUpInside = Event(rawValue: 1 << 0)
        /// The control's value changed (a switch flipped, a slider moved).
        public static let valueChanged = Event(rawValue: 1 << 1)
        /// The text of a text field changed.
        public static let editingChanged = Event(rawValue: 1 << 2)
        /// The control's main action: a button's tap, a text field's Return.
        public static let primaryActionTriggered = Event(rawValue: 1 << 3)
        /// Every event.
        public static let allEvents = Event(rawValue: .max)

        /// The names of the events in the set, e.g. `[editingChanged]`.
        public var description: String {
            let names: [(Event, String)] = [
                (.touchUpInside, "touchUpInside"), (.valueChanged, "valueChanged"),
                (.editingChanged, "editingChanged"), (.primaryActionTriggered, "primaryActionTriggered"),
            ]
            return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
        }
    }

    /// One registration: the target's identity (still valid while the target is being
    /// deinitialized, when a weak reference already reads `nil`), a weak reference to call it
    /// through, the events, and the action.
    private struct Registration {
        let id: ObjectIdentifier
        weak var target: AnyObject?
        var events: Event
        let action: (AnyObject, Control) -> Void
    }

    private let lock = NSLock()
    private var registrations: [Registration] = []

    /// Creates a control with no targets.
    public init() {}

    /// Registers `action` of `target` for `events`.
    ///
    /// `action` is an unapplied instance method of the target — `Subscription.handle`, say — so the
    /// control can call it without holding the target strongly. Registering a target that is
    /// already registered adds the events to its registration and keeps its first action.
    public func addTarget<Target: AnyObject>(
        _ target: Target,
        action: @escaping (Target) -> (Control) -> Void,
        for events: Event
    ) {
        let id = ObjectIdentifier(target)
        lock.withLock {
            if let index = registrations.firstIndex(where: { $0.id == id }) {
                registrations[index].events.formUnion(events)
            } else {
                registrations.append(Registration(
                    id: id, target: target, events: events,
                    action: { target, sender in action(unsafeDowncast(target, to: Target.self))(sender) }))
            }
        }
    }

    /// Stops calling `target` for `events`; a `nil` target removes every target for those events.
    ///
    /// Safe to call from a target's `deinit` (the control matches the target by identity).
    public func removeTarget(_ target: AnyObject?, for events: Event) {
        let id = target.map(ObjectIdentifier.init)
        lock.withLock {
            for index in registrations.indices where id == nil || registrations[index].id == id {
                registrations[index].events.subtract(events)
            }
            registrations.removeAll { $0.events.isEmpty }
        }
    }

    /// The targets currently registered and still alive.
    public var allTargets: [AnyObject] {
        lock.withLock { registrations.compactMap(\.target) }
    }

    /// How many registrations the control holds, including any whose target went away without
    /// removing itself.
    public var registeredActionCount: Int {
        lock.withLock { registrations.count }
    }

    /// Calls every target registered for any of `events`, in registration order, with this control
    /// as the sender. This is what the user's touch would do; the examples call it directly.
    public func sendActions(for events: Event) {
        // Snapshot under the lock, call out after releasing it: an action may add or remove targets.
        let calls = lock.withLock {
            registrations.compactMap { registration -> (AnyObject, (AnyObject, Control) -> Void)? in
                guard !registration.events.isDisjoint(with: events), let target = registration.target else { return nil }
                return (target, registration.action)
            }
        }
        for (target, action) in calls {
            action(target, self)
        }
    }
}
