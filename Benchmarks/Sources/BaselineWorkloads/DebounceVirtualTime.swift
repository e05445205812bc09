/// `debounce` by hand, with the clock a counter: the latest value waits until 10 ticks have passed
/// without another one. The same sends and time steps as the publisher versions.
func debounceVirtualTimeLoop(_ n: Int) -> Int {
    var sum = 0
    var now = 0
    var pending: (value: Int, due: Int)?
    for value in 0..<n {
        pending = (value, now + 10)
        now += value & 3 == 3 ? 20 : 1
        if let (latest, due) = pending, due <= now {
            sum = sum &* 31 &+ latest
            pending = nil
        }
    }
    return sum
}
