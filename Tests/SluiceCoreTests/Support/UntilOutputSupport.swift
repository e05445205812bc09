import Dispatch
import SluiceCore
import SluiceTesting

/// Runs `upstreamSide` and `otherSide` at the same time on two threads.
func onTwoThreads(_ upstreamSide: () -> Void, _ otherSide: () -> Void) {
    withoutActuallyEscaping(upstreamSide) { upstreamSide in
        withoutActuallyEscaping(otherSide) { otherSide in
            let sides = UnsafeSides(first: upstreamSide, second: otherSide)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { sides.first() } else { sides.second() }
            }
        }
    }
}

/// The two closures of ``onTwoThreads(_:_:)``, handed to the threads (each runs on one).
private struct UnsafeSides: @unchecked Sendable {
    let first: () -> Void
    let second: () -> Void
}

/// A subscriber's hooks that watch for overlapping calls: each value and the completion enter the
/// detector, dwell a little so that an overlap would be caught, and leave.
func watchOverlaps<Input, Failure: Error>(_ subscriber: TestSubscriber<Input, Failure>, with detector: OverlapDetector) {
    subscriber.onValue = { _, _ in
        detector.enter()
        for _ in 0..<50 { _ = detector.overlaps }
        detector.leave()
        return .none
    }
    subscriber.onCompletion = { _, _ in
        detector.enter()
        for _ in 0..<50 { _ = detector.overlaps }
        detector.leave()
    }
}
