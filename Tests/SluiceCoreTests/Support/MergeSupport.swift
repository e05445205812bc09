import Dispatch
import SluiceCore

/// What a merge stress run observed downstream.
struct MergeStressResult {
    /// Every value received, in order.
    var values: [Int]
    /// How many times two `receive` calls overlapped.
    var overlaps: Int
    /// Whether the merged stream finished.
    var finished: Bool

    /// Whether each source's values (`source * sourceStride + index`) arrived complete and in the
    /// order that source sent them.
    func perSourceOrderHolds(sources: Int, perSource: Int) -> Bool {
        var next = [Int](repeating: 0, count: sources)
        for value in values {
            let source = value / mergeStressStride
            guard source < sources, value % mergeStressStride == next[source] else { return false }
            next[source] += 1
        }
        return next.allSatisfy { $0 == perSource }
    }
}

/// The spacing between the values of two stress sources.
let mergeStressStride = 1_000_000

/// Subscribes to `merged` (built over `subjects`), then sends `perSource` values into each subject
/// from its own thread, all at once, and finishes them. Records what arrives and whether any two
/// deliveries overlapped.
func runMergeStress<P: Publisher>(
    subjects: [PassthroughSubject<Int, Never>],
    perSource: Int,
    merged: P
) -> MergeStressResult where P.Output == Int, P.Failure == Never {
    let detector = OverlapDetector()
    let received = Shared<(values: [Int], finished: Bool)>(([], false))
    let cancellable = merged.sink(
        receiveCompletion: { _ in received.mutate { $0.finished = true } },
        receiveValue: { value in
            detector.enter()
            received.mutate { $0.values.append(value) }
            detector.leave()
        })
    DispatchQueue.concurrentPerform(iterations: subjects.count) { source in
        for index in 0..<perSource {
            subjects[source].send(source * mergeStressStride + index)
        }
        subjects[source].send(completion: .finished)
    }
    cancellable.cancel()
    let (values, finished) = received.value
    return MergeStressResult(values: values, overlaps: detector.overlaps, finished: finished)
}
