import SluiceCore
import WorkloadSupport

/// Two threads send `n / 2` values each into one `PassthroughSubject` with one sink: the cost of
/// the subject's locks under contention. The sink adds to an atomic total.
func twoThreadSend(_ n: Int) -> Int {
    let total = AtomicTotal()
    let subject = UncheckedSendable(PassthroughSubject<Int, Never>())
    let cancellable = subject.value.sink { total.add($0) }
    let half = n / 2
    onThreads(2) { thread in
        for value in thread * half..<(thread + 1) * half {
            subject.value.send(value)
        }
    }
    cancellable.cancel()
    return total.value
}
