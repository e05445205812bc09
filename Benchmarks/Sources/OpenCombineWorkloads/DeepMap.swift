import OpenCombine

/// `sequence → 10 × map → sink`, each `map` a stage of its own. (Writing `.map { }.map { }` would
/// call the fused `Publishers.Map.map` overload and build a single stage.)
func deepMap(_ n: Int) -> Int {
    var sum = 0
    let source = Publishers.Sequence<Range<Int>, Never>(sequence: 0..<n)
    let m1 = Publishers.Map(upstream: source) { $0 &+ 1 }
    let m2 = Publishers.Map(upstream: m1) { $0 &+ 1 }
    let m3 = Publishers.Map(upstream: m2) { $0 &+ 1 }
    let m4 = Publishers.Map(upstream: m3) { $0 &+ 1 }
    let m5 = Publishers.Map(upstream: m4) { $0 &+ 1 }
    let m6 = Publishers.Map(upstream: m5) { $0 &+ 1 }
    let m7 = Publishers.Map(upstream: m6) { $0 &+ 1 }
    let m8 = Publishers.Map(upstream: m7) { $0 &+ 1 }
    let m9 = Publishers.Map(upstream: m8) { $0 &+ 1 }
    let m10 = Publishers.Map(upstream: m9) { $0 &+ 1 }
    let cancellable = m10.sink { sum = sum &* 31 &+ $0 }
    cancellable.cancel()
    return sum
}
