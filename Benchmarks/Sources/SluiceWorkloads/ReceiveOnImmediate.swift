import SluiceCore

/// `PassthroughSubject.send` of `n` values to one sink through `receive(on:
/// ImmediateScheduler.shared)`: `passthroughSend1` plus the operator, synchronous throughout.
func receiveOnImmediate(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject
        .receive(on: ImmediateScheduler.shared)
        .sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        subject.send(value)
    }
    cancellable.cancel()
    return sum
}
