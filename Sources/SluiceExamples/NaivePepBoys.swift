import Sluice

/// The first publisher one writes from scratch: emits "Manny", "Moe" and "Jack", then finishes —
/// **ignoring demand**.
///
/// Kept as a cautionary example. Its subscription sends all three names as soon as the subscriber
/// asks for anything, whatever it asks for, and discards the demand each `receive(_:)` returns.
/// A subscriber that requested `.max(1)` still gets three values: that breaks the contract
/// ("never more values than requested"). ``PepBoys`` is the same publisher done right.
///
/// It is also not thread-safe and not re-entrant. Use it only to see what goes wrong.
public struct NaivePepBoys: Publisher {
    /// The names of the Pep Boys.
    public typealias Output = String
    /// Nothing can go wrong with the Pep Boys.
    public typealias Failure = Never

    /// Creates the publisher.
    public init() {}

    /// Hands the subscriber a subscription that dumps all three names on the first request.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == String, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber))
    }
}

extension NaivePepBoys {
    /// The subscription: keeps the downstream until it finishes or is cancelled.
    final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible
    where Downstream.Input == String, Downstream.Failure == Never {
        private var downstream: Downstream?
        private var boys = ["Manny", "Moe", "Jack"]

        init(downstream: Downstream) {
            self.downstream = downstream
        }

        /// The mistake: `demand` is never looked at, nor is what `receive(_:)` returns.
        func request(_ demand: Subscribers.Demand) {
            guard let downstream else { return }
            while !boys.isEmpty {
                _ = downstream.receive(boys.removeFirst())
                guard self.downstream != nil else { return }   // cancelled from inside receive
            }
            self.downstream = nil
            downstream.receive(completion: .finished)
        }

        /// Releases the downstream; nothing more is sent.
        func cancel() {
            downstream = nil
        }

        var description: String { "NaivePepBoys" }
    }
}
