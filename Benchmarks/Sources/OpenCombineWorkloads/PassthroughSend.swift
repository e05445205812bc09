import OpenCombine

/// `PassthroughSubject.send` of `n` values to one sink.
func passthroughSend1(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        subject.send(value)
    }
    cancellable.cancel()
    return sum
}

/// `PassthroughSubject.send` of `n` values to ten sinks.
func passthroughSend10(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let cancellables = (0..<10).map { _ in subject.sink { sum &+= $0 } }
    for value in 0..<n {
        subject.send(value)
    }
    for cancellable in cancellables {
        cancellable.cancel()
    }
    return sum
}
