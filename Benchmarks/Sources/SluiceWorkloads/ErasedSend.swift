import SluiceCore

/// `PassthroughSubject.send` of `n` values through `map` and `eraseToAnyPublisher()` — a type erased
/// at an API boundary, as most code exposes its publishers — to one sink.
func erasedSend(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let published: AnyPublisher<Int, Never> = subject.map { $0 &+ 1 }.eraseToAnyPublisher()
    let cancellable = published.sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        subject.send(value)
    }
    cancellable.cancel()
    return sum
}
