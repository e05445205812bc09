import SluiceCore

/// `PassthroughSubject.send` of `n` values through `share()` (a multicast: the upstream's values go
/// through the connection into the share's own subject) to one sink.
func shareSend(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.share().sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        subject.send(value)
    }
    cancellable.cancel()
    return sum
}
