import Foundation
import Sluice

/// A publisher that emits a control each time it fires a chosen event.
///
/// Generic over the control type, so a text field's publisher emits a ``TextField`` and the
/// pipeline can read `.text` without a cast:
///
/// ```swift
/// let field = TextField()
/// let cancellable = field.publisher(for: .editingChanged)
///     .map { $0.text ?? "" }
///     .sink { print("typed:", $0) }
/// field.type("hi")   // typed: hi
/// ```
///
/// Each subscription becomes a target of the control when the subscriber first requests values,
/// and removes itself when cancelled and when it is deallocated. The publisher holds the control
/// `unowned` and the subscription holds it `weak`: a pipeline never keeps a control alive.
///
/// Demand is honoured: an event that arrives while the subscriber has no outstanding demand is
/// dropped, as a `PassthroughSubject` drops values for a subscriber that has not asked. The
/// publisher never completes; cancel it to stop.
public struct ControlPublisher<Sender: Control>: Publisher {
    /// The control that fired the event, typed as its own class.
    public typealias Output = Sender
    /// Control events cannot fail.
    public typealias Failure = Never

    /// The observed control. `unowned`: the caller keeps the control alive, not the publisher.
    public unowned let control: Sender

    /// The events this publisher reports.
    public let event: Control.Event

    /// Creates a publisher of `control`'s `event`s.
    public init(control: Sender, event: Control.Event = .primaryActionTriggered) {
        self.control = control
        self.event = event
    }

    /// Hands the subscriber a subscription that observes the control once demand arrives.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Sender, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber, control: control, event: event))
    }
}

extension ControlPublisher {
    /// The subscription: the control's target while demand is outstanding.
    ///
    /// State lives behind a lock; the control, the downstream and the subscriber's code are always
    /// called with the lock released.
    final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible, @unchecked Sendable
    where Downstream.Input == Sender, Downstream.Failure == Never {
        private let lock = NSLock()
        private let event: Control.Event
        private weak var control: Sender?
        private var downstream: Downstream?
        private var demand = Subscribers.Demand.none
        private var observing = false

        init(downstream: Downstream, control: Sender, event: Control.Event) {
            self.downstream = downstream
            self.control = control
            self.event = event
        }

        /// Adds the demand; on the first request, registers with the control.
        func request(_ demand: Subscribers.Demand) {
            precondition(demand > .none, "ControlPublisher: a subscriber must request at least one value")
            let controlToObserve: Sender? = lock.withLock {
                guard downstream != nil else { return nil }
                self.demand += demand
                guard !observing else { return nil }
                observing = true
                return control
            }
            guard let control = controlToObserve else { return }
            control.addTarget(self, action: { inner in inner.controlDidFire }, for: event)
            // A cancel on another thread may have slipped in before the target was added.
            if lock.withLock({ downstream == nil }) {
                control.removeTarget(self, for: event)
            }
        }

        /// The action: sends the control downstream if a value is wanted, then adds the demand
        /// the subscriber returns.
        private func controlDidFire(_ sender: Control) {
            let delivery: (Downstream, Sender)? = lock.withLock {
                guard let downstream, let control, demand > .none else { return nil }
                demand -= 1
                return (downstream, control)
            }
            guard let (downstream, control) = delivery else { return }
            let more = downstream.receive(control)
            lock.withLock {
                if self.downstream != nil { demand += more }
            }
        }

        /// Stops: unregisters from the control and releases the downstream. Idempotent.
        func cancel() {
            stopObserving()
        }

        deinit {
            stopObserving()
        }

        private func stopObserving() {
            let controlToLeave: Sender? = lock.withLock {
                downstream = nil
                demand = .none
                defer { control = nil }
                return observing ? control : nil
            }
            controlToLeave?.removeTarget(self, for: event)
        }

        var description: String { "ControlPublisher" }
    }
}
