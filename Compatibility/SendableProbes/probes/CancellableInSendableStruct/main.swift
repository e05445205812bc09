// expect: trait=fail default=pass
// An `AnyCancellable` stored in a `Sendable` struct: Apple's `AnyCancellable` is not `Sendable`.
import Sluice

struct Subscription: Sendable {
    let cancellable: AnyCancellable
}

func probe() {
    let subscription = Subscription(cancellable: AnyCancellable {})
    subscription.cancellable.cancel()
}

probe()
