#if HAS_ASYNCSEQUENCEPUBLISHER
import OpenCombine
import WorkloadSupport

/// `streamOfRange(n).asPublisher` into a sink: the AsyncSequence → publisher bridge, which pulls an
/// element only while the sink has demand (a sink's is unlimited). Returns on `.finished`. The
/// baseline is a `for await` loop over the same `AsyncStream`.
func asyncSequencePublisher(_ n: Int) async -> Int {
    await withCheckedContinuation { continuation in
        var sum = 0
        // Not an AnyCancellable, which would cancel when dropped: the subscription holds the sink.
        streamOfRange(n).asPublisher.subscribe(Subscribers.Sink(
            receiveCompletion: { _ in continuation.resume(returning: sum) },
            receiveValue: { sum = sum &* 31 &+ $0 }
        ))
    }
}
#endif
