// expect: trait=fail default=pass
// An erased publisher, still used here, sent to a detached task and to an actor: Apple's
// `AnyPublisher` is not `Sendable` (its conformance is not inferred from its frozen layout).
import Sluice

actor Counter {
    var count = 0
    func count(_ publisher: AnyPublisher<Int, Never>) {
        _ = publisher.sink { _ in }
        count += 1
    }
}

func probe() async {
    let publisher = Just(1).eraseToAnyPublisher()
    let counter = Counter()
    Task.detached { _ = publisher.sink { print($0) } }
    await counter.count(publisher)
}

await probe()
