import Foundation
import Sluice

/// Emits "Manny", "Moe" and "Jack", then finishes — honouring backpressure.
///
/// The subscription keeps a running `limit`: the demand requested and not yet used. Each request
/// adds to it, each value sent subtracts one, and the demand a subscriber returns from
/// `receive(_:)` is added back. No name goes out while the limit is zero, and `.finished` follows
/// the last name at once (a completion needs no demand):
///
/// ```swift
/// let subscriber = TestSubscriber<String, Never>(initialDemand: .max(2))
/// PepBoys().subscribe(subscriber)       // Manny, Moe        (limit 2 → 0)
/// subscriber.request(.max(1))           // Jack, finished    (limit 1 → 0)
/// ```
///
/// Compare ``NaivePepBoys``, which ignores demand. This one is also safe to use from several
/// threads and re-entrantly (a subscriber may call `request` or `cancel` from inside
/// `receive(_:)`).
public struct PepBoys: Publisher {
    /// The names of the Pep Boys.
    public typealias Output = String
    /// Nothing can go wrong with the Pep Boys.
    public typealias Failure = Never

    /// The names, in the order they are sent.
    public static let names = ["Manny", "Moe", "Jack"]

    /// Creates the publisher.
    public init() {}

    /// Hands the subscriber a subscription that sends names as demand allows.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == String, S.Failure == Never {
        subscriber.receive(subscription: Inner(downstream: subscriber))
    }
}

extension PepBoys {
    /// The subscription: a running demand `limit`, the names still to send, and a flag that makes
    /// one call the sender while re-entrant or concurrent requests only raise the limit.
    final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible, @unchecked Sendable
    where Downstream.Input == String, Downstream.Failure == Never {
        private let lock = NSLock()
        private var downstream: Downstream?
        private var next = 0                       // index into `PepBoys.names`
        private var limit = Subscribers.Demand.none
        private var sending = false

        init(downstream: Downstream) {
            self.downstream = downstream
        }

        /// Adds `demand` to the limit and, unless a send loop is already running, sends.
        func request(_ demand: Subscribers.Demand) {
            precondition(demand > .none, "PepBoys: a subscriber must request at least one value")
            let shouldSend: Bool = lock.withLock {
                guard downstream != nil else { return false }
                limit += demand
                guard !sending else { return false }   // the running loop will see the new limit
                sending = true
                return true
            }
            if shouldSend { sendWhileDemanded() }
        }

        /// Sends names while the limit allows, one at a time: decide under the lock, send without
        /// it, then add back the demand the subscriber returned.
        private func sendWhileDemanded() {
            while true {
                let step: (Downstream, String)? = lock.withLock {
                    guard let downstream, limit > .none, next < PepBoys.names.count else {
                        sending = false
                        return nil
                    }
                    limit -= 1
                    next += 1
                    return (downstream, PepBoys.names[next - 1])
                }
                guard let (downstream, name) = step else { return }

                let more = downstream.receive(name)

                let finished: Bool = lock.withLock {
                    guard self.downstream != nil else { return false }   // cancelled meanwhile
                    limit += more
                    guard next == PepBoys.names.count else { return false }
                    self.downstream = nil
                    return true
                }
                if finished {
                    downstream.receive(completion: .finished)
                    return
                }
            }
        }

        /// Releases the downstream; nothing more is sent. Idempotent, thread-safe.
        func cancel() {
            lock.withLock {
                downstream = nil
                limit = .none
            }
        }

        var description: String { "PepBoys" }
    }
}
