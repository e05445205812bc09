import Dispatch
import SluiceCore

/// `n` values sent into a `PassthroughSubject` and received by a sink on a serial dispatch queue
/// (`receive(on:)`); then `.finished`, which arrives after the values: waiting for it waits until
/// the sink has them all.
func receiveOnSerialQueue(_ n: Int) -> Int {
    var sum = 0
    let done = DispatchSemaphore(value: 0)
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject
        .receive(on: serialScheduler(label: "receiveOnSerialQueue"))
        .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { sum = sum &* 31 &+ $0 })
    for value in 0..<n {
        subject.send(value)
    }
    subject.send(completion: .finished)
    done.wait()
    cancellable.cancel()
    return sum
}
