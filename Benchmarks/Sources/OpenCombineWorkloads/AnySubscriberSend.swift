import OpenCombine

/// `PassthroughSubject.send` of `n` values to a sink wrapped in an `AnySubscriber`, as custom
/// publishers often keep their subscriber.
func anySubscriberSend(_ n: Int) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { sum = sum &* 31 &+ $0 })
    subject.subscribe(AnySubscriber(sink))
    for value in 0..<n {
        subject.send(value)
    }
    sink.cancel()
    return sum
}
