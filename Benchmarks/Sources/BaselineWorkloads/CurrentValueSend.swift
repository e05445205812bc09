/// A hand-written current-value subject: a stored value and one observer closure.
func currentValueSendLoop(_ n: Int) -> Int {
    var sum = 0
    var current = 0
    let observer: (Int) -> Void = { sum = sum &* 31 &+ $0 }
    observer(current)
    for value in 0..<n {
        current = value
        observer(current)
    }
    return sum &+ current
}
