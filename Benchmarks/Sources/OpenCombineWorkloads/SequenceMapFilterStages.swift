import OpenCombine

/// `sequence → map → filter → sink` streaming through real operator stages: every element goes
/// through the sequence's subscription, `Map`'s subscriber, `Filter`'s subscriber and the sink.
func sequenceMapFilterStages(_ n: Int) -> Int {
    var sum = 0
    let source = Publishers.Sequence<Range<Int>, Never>(sequence: 0..<n)
    let mapped = Publishers.Map(upstream: source) { $0 &* 3 }
    let filtered = Publishers.Filter(upstream: mapped) { $0 & 1 == 0 }
    let cancellable = filtered.sink { sum = sum &* 31 &+ $0 }
    cancellable.cancel()
    return sum
}
