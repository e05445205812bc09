// expect: trait=fail default=pass
// A subject captured by a `@Sendable` closure: Apple's subjects are not `Sendable`.
import Sluice

func probe() {
    let subject = PassthroughSubject<Int, Never>()
    let send: @Sendable (Int) -> Void = { subject.send($0) }
    send(1)
}

probe()
