import SluiceCore

/// Set-up cost: `n` times, build `subject → map → filter → map → filter → map`, subscribe a sink
/// to it, and cancel. (Alternating the operators keeps the fused overloads out: five stages.)
func subscribeCancel(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    for _ in 0..<n {
        let cancellable = subject
            .map { $0 &+ 1 }
            .filter { $0 > 0 }
            .map { $0 &* 2 }
            .filter { $0 < 1_000 }
            .map { $0 &- 1 }
            .sink { sum &+= $0 }
        cancellable.cancel()
        sum &+= 1
    }
    return sum
}

/// Set-up cost of the smallest chain: `n` times, subscribe a sink to a subject, and cancel.
func subscribeSinkCancel(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    for _ in 0..<n {
        let cancellable = subject.sink { sum &+= $0 }
        cancellable.cancel()
        sum &+= 1
    }
    return sum
}
