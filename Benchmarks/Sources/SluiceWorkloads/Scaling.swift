import SluiceCore
import WorkloadSupport

// Scaling workloads: each builds its set-up for size `n` unmeasured, runs the work it measures in
// `phase.measure { }` (n elements: subscriptions, cancels, completions…) and returns a checksum.
// `scaling` reports the cost per element at two sizes and its growth.

/// Holds the cancellable of a sink that cancels itself.
final class CancellableHolder {
    var cancellable: AnyCancellable?
}

/// A subject with `n` sinks: `n` times, subscribe one more sink and cancel it.
func scalingChurn(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let sinks = (0..<n).map { _ in subject.sink { sum &+= $0 } }
    phase.measure {
        for _ in 0..<n {
            let cancellable = subject.sink { sum &+= $0 }
            cancellable.cancel()
            sum &+= 1
        }
    }
    subject.send(1)
    withExtendedLifetime(sinks) {}
    return sum
}

/// `n` sinks on a subject, cancelled in `order` (indices into the sinks, in subscription order).
func cancelAll(_ n: Int, _ phase: ScalingPhase, order: [Int]) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let sinks = (0..<n).map { _ in subject.sink { sum &+= $0 } }
    phase.measure {
        for index in order {
            sinks[index].cancel()
        }
    }
    subject.send(1)
    return sum &+ sinks.count
}

/// Cancel `n` sinks of a subject, the newest first.
func scalingCancelNewestFirst(_ n: Int, _ phase: ScalingPhase) -> Int {
    cancelAll(n, phase, order: Array((0..<n).reversed()))
}

/// Cancel `n` sinks of a subject, the oldest first.
func scalingCancelOldestFirst(_ n: Int, _ phase: ScalingPhase) -> Int {
    cancelAll(n, phase, order: Array(0..<n))
}

/// Cancel `n` sinks of a subject in a random order (fixed seed).
func scalingCancelRandom(_ n: Int, _ phase: ScalingPhase) -> Int {
    cancelAll(n, phase, order: shuffledIndices(n))
}

/// `n` sinks that each cancel themselves on their first value; one value sent.
func scalingCancelOnFirstValue(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let holders = (0..<n).map { _ in CancellableHolder() }
    for holder in holders {
        holder.cancellable = subject.sink { value in
            sum &+= value
            holder.cancellable?.cancel()
        }
    }
    phase.measure {
        subject.send(1)
    }
    subject.send(2)
    for holder in holders {
        holder.cancellable = nil
    }
    return sum
}

/// A `CurrentValueSubject` with `n` sinks completes.
func scalingCurrentValueComplete(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let subject = CurrentValueSubject<Int, Never>(1)
    let sinks = (0..<n).map { _ in subject.sink(receiveCompletion: { _ in sum &+= 2 }, receiveValue: { sum &+= $0 }) }
    phase.measure {
        subject.send(completion: .finished)
    }
    withExtendedLifetime(sinks) {}
    return sum
}

/// Subscribe `n` sinks to a subject.
func scalingSubscribe(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    var sinks: [AnyCancellable] = []
    sinks.reserveCapacity(n)
    phase.measure {
        for _ in 0..<n {
            sinks.append(subject.sink { sum &+= $0 })
        }
    }
    subject.send(1)
    return sum
}

/// Send one value to `n` sinks (the cost per sink).
func scalingSend(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let sinks = (0..<n).map { _ in subject.sink { sum &+= $0 } }
    phase.measure {
        subject.send(3)
    }
    withExtendedLifetime(sinks) {}
    return sum
}

/// Subscribe `n` sinks to a subject's `share()`, then send one value.
func scalingShare(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    let shared = subject.share()
    var sinks: [AnyCancellable] = []
    sinks.reserveCapacity(n)
    phase.measure {
        for _ in 0..<n {
            sinks.append(shared.sink { sum &+= $0 })
        }
    }
    subject.send(1)
    return sum
}

#if HAS_FLATMAP
/// `flatMap` over `n` live inner subjects; each finishes, in order.
func scalingFlatMapFinish(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let inners = (0..<n).map { _ in PassthroughSubject<Int, Never>() }
    let cancellable = inners.publisher
        .flatMap { $0 }
        .sink(receiveCompletion: { _ in sum &+= 7 }, receiveValue: { sum &+= $0 })
    inners[0].send(1)
    phase.measure {
        for inner in inners {
            inner.send(completion: .finished)
        }
    }
    withExtendedLifetime(cancellable) {}
    return sum
}

/// `flatMap` over `n` live inner subjects; each finishes, in a random order (fixed seed).
func scalingFlatMapFinishRandom(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let inners = (0..<n).map { _ in PassthroughSubject<Int, Never>() }
    let order = shuffledIndices(n)
    let cancellable = inners.publisher
        .flatMap { $0 }
        .sink(receiveCompletion: { _ in sum &+= 7 }, receiveValue: { sum &+= $0 })
    phase.measure {
        for index in order {
            inners[index].send(completion: .finished)
        }
    }
    withExtendedLifetime(cancellable) {}
    return sum
}

/// `flatMap` over `n` live inner subjects, cancelled at once (the cost per inner).
func scalingFlatMapCancel(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let inners = (0..<n).map { _ in PassthroughSubject<Int, Never>() }
    let cancellable = inners.publisher
        .flatMap { $0 }
        .sink { sum &+= $0 }
    inners[n / 2].send(5)
    phase.measure {
        cancellable.cancel()
    }
    inners[0].send(1)
    return sum
}
#endif

#if HAS_MERGE
/// `MergeMany` of `n` subjects; each finishes, in a random order (fixed seed).
func scalingMergeManyFinish(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let upstreams = (0..<n).map { _ in PassthroughSubject<Int, Never>() }
    let order = shuffledIndices(n)
    let cancellable = Publishers.MergeMany(upstreams)
        .sink(receiveCompletion: { _ in sum &+= 7 }, receiveValue: { sum &+= $0 })
    upstreams[n / 2].send(5)
    phase.measure {
        for index in order {
            upstreams[index].send(completion: .finished)
        }
    }
    withExtendedLifetime(cancellable) {}
    return sum
}

/// `MergeMany` of `n` subjects, cancelled at once (the cost per upstream).
func scalingMergeManyCancel(_ n: Int, _ phase: ScalingPhase) -> Int {
    var sum = 0
    let upstreams = (0..<n).map { _ in PassthroughSubject<Int, Never>() }
    let cancellable = Publishers.MergeMany(upstreams).sink { sum &+= $0 }
    upstreams[n / 2].send(5)
    phase.measure {
        cancellable.cancel()
    }
    upstreams[0].send(1)
    return sum
}
#endif

/// The scaling workloads, by name.
public let scalingImplementations: [String: @Sendable (Int, ScalingPhase) -> Int] = {
    var table: [String: @Sendable (Int, ScalingPhase) -> Int] = [
        "churn": scalingChurn,
        "cancelNewestFirst": scalingCancelNewestFirst,
        "cancelOldestFirst": scalingCancelOldestFirst,
        "cancelRandom": scalingCancelRandom,
        "cancelOnFirstValue": scalingCancelOnFirstValue,
        "currentValueComplete": scalingCurrentValueComplete,
        "subscribe": scalingSubscribe,
        "send": scalingSend,
        "share": scalingShare,
    ]
    #if HAS_FLATMAP
    table["flatMapFinish"] = scalingFlatMapFinish
    table["flatMapFinishRandom"] = scalingFlatMapFinishRandom
    table["flatMapCancel"] = scalingFlatMapCancel
    #endif
    #if HAS_MERGE
    table["mergeManyFinish"] = scalingMergeManyFinish
    table["mergeManyCancel"] = scalingMergeManyCancel
    #endif
    return table
}()

// MARK: Memory

/// Idle subscriptions whose resident memory `memory` measures, by shape: each function creates
/// `n` of them between `probe.start()` and `probe.stop()`, and keeps them until it returns.
public let memoryShapes: [String: @Sendable (Int, MemoryProbe) -> Int] = [
    "sinkOnSubject": memorySinkOnSubject,
    "mapFilterSink": memoryMapFilterSink,
    "flatMapInner": memoryFlatMapInner,
    "currentValueSink": memoryCurrentValueSink,
]

/// `n` sinks on one subject.
func memorySinkOnSubject(_ n: Int, _ probe: MemoryProbe) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    var sinks: [AnyCancellable] = []
    sinks.reserveCapacity(n)
    probe.start()
    for _ in 0..<n {
        sinks.append(subject.sink { sum &+= $0 })
    }
    probe.stop()
    subject.send(1)
    return sum
}

/// `n` chains `subject → map → filter → sink` on one subject.
func memoryMapFilterSink(_ n: Int, _ probe: MemoryProbe) -> Int {
    var sum = 0
    let subject = PassthroughSubject<Int, Never>()
    var sinks: [AnyCancellable] = []
    sinks.reserveCapacity(n)
    probe.start()
    for _ in 0..<n {
        sinks.append(subject.map { $0 &+ 1 }.filter { $0 > 0 }.sink { sum &+= $0 })
    }
    probe.stop()
    subject.send(1)
    return sum
}

/// One `flatMap` over `n` live inner subjects (created before the probe starts): what each inner
/// subscription costs.
func memoryFlatMapInner(_ n: Int, _ probe: MemoryProbe) -> Int {
    var sum = 0
    let inners = (0..<n).map { _ in PassthroughSubject<Int, Never>() }
    probe.start()
    let cancellable = inners.publisher.flatMap { $0 }.sink { sum &+= $0 }
    probe.stop()
    inners[0].send(1)
    withExtendedLifetime(cancellable) {}
    return sum
}

/// `n` `CurrentValueSubject`s, each with one sink.
func memoryCurrentValueSink(_ n: Int, _ probe: MemoryProbe) -> Int {
    var sum = 0
    var subjects: [CurrentValueSubject<Int, Never>] = []
    subjects.reserveCapacity(n)
    var sinks: [AnyCancellable] = []
    sinks.reserveCapacity(n)
    probe.start()
    for _ in 0..<n {
        let subject = CurrentValueSubject<Int, Never>(1)
        sinks.append(subject.sink { sum &+= $0 })
        subjects.append(subject)
    }
    probe.stop()
    return sum
}
