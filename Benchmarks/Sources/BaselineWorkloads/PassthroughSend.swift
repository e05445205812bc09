/// A hand-written subject: an array of observer closures, each called for every value. (With one
/// observer the values are folded as the single-sink publisher workloads fold them; with several,
/// whose order of delivery is not specified, they are added.)
func passthroughSendLoop(_ n: Int, observers count: Int) -> Int {
    var sum = 0
    var observers: [(Int) -> Void] = []
    for _ in 0..<count {
        if count == 1 {
            observers.append { sum = sum &* 31 &+ $0 }
        } else {
            observers.append { sum &+= $0 }
        }
    }
    for value in 0..<n {
        for observer in observers {
            observer(value)
        }
    }
    return sum
}

/// `count` `AsyncStream`s, each consumed by a task of its own; `n` values yielded to each. (Folded
/// like the publisher workloads: as a single sink does with one consumer, added with several.)
func passthroughSendAsync(_ n: Int, consumers count: Int) async -> Int {
    await withTaskGroup(of: Int.self) { group in
        var continuations: [AsyncStream<Int>.Continuation] = []
        for _ in 0..<count {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            continuations.append(continuation)
            group.addTask { count == 1 ? await fold(stream) : await sum(of: stream) }
        }
        for value in 0..<n {
            for continuation in continuations {
                continuation.yield(value)
            }
        }
        for continuation in continuations {
            continuation.finish()
        }
        return await group.reduce(0, &+)
    }
}
