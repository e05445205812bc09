import BaselineWorkloads
import OpenCombineWorkloads
import SluiceWorkloads
import WorkloadSupport

/// Who implements a workload.
public enum Implementation: String, CaseIterable, Sendable {
    case sluice
    case openCombine = "opencombine"
    /// A hand-written loop doing the same work.
    case loop
    /// A plain `for await` loop over an `AsyncStream`, doing the same work in its body.
    case forAwait = "forawait"
    /// The standard library's AsyncSequence operators (`map`, `filter`, `flatMap`) over a source
    /// that never suspends, then `for await`.
    case asyncOperators = "asyncops"
}

/// One implementation of a workload: `n` elements in, a checksum out.
public enum Body: Sendable {
    case sync(@Sendable (Int) -> Int)
    case async(@Sendable (Int) async -> Int)

    public func run(_ n: Int) async -> Int {
        switch self {
        case .sync(let body): body(n)
        case .async(let body): await body(n)
        }
    }
}

/// A piece of work measured for every implementation that has it.
public struct Workload: Sendable {
    /// The name used on the command line and in benchmark names.
    public let name: String
    /// What it does, for the table.
    public let title: String
    /// How many elements (values, sends, subscriptions…) one run processes.
    public let elements: Int

    /// The workload's body for `implementation`, if it has one.
    public func body(_ implementation: Implementation) -> Body? {
        switch implementation {
        case .sluice:
            SluiceWorkloads.implementations[name].map(Body.sync)
                ?? SluiceWorkloads.asyncImplementations[name].map(Body.async)
        case .openCombine:
            OpenCombineWorkloads.implementations[name].map(Body.sync)
                ?? OpenCombineWorkloads.asyncImplementations[name].map(Body.async)
        case .loop: loopImplementations[name].map(Body.sync)
        case .forAwait: forAwaitImplementations[name].map(Body.async)
        case .asyncOperators: asyncOperatorImplementations[name].map(Body.async)
        }
    }
}

/// Every workload, in table order.
public let workloads: [Workload] = [
    Workload(name: "sequenceMapFilter", title: "sequence → map → filter → sink (as written)", elements: 1_000_000),
    Workload(name: "sequenceMapFilterStages", title: "sequence → Map → Filter → sink (stages)", elements: 1_000_000),
    Workload(name: "deepMap", title: "sequence → 10 × Map → sink", elements: 1_000_000),
    Workload(name: "passthroughSend1", title: "PassthroughSubject.send → 1 sink", elements: 1_000_000),
    Workload(name: "passthroughSend10", title: "PassthroughSubject.send → 10 sinks", elements: 1_000_000),
    Workload(name: "currentValueSend", title: "CurrentValueSubject.send → 1 sink", elements: 1_000_000),
    Workload(name: "shareSend", title: "PassthroughSubject → share() → sink", elements: 1_000_000),
    Workload(name: "publishedSet", title: "@Published assignment → 1 sink", elements: 1_000_000),
    Workload(name: "erasedSend", title: "PassthroughSubject → map → eraseToAnyPublisher() → sink", elements: 1_000_000),
    Workload(name: "catchSend", title: "PassthroughSubject → retry(1) → catch → sink", elements: 1_000_000),
    Workload(name: "assignSend", title: "PassthroughSubject → assign(to:on:)", elements: 1_000_000),
    Workload(name: "anySubscriberSend", title: "PassthroughSubject → AnySubscriber(sink)", elements: 1_000_000),
    Workload(name: "subscribeCancel", title: "subscribe 5-operator chain + cancel", elements: 1_000),
    Workload(name: "subscribeSinkCancel", title: "subscribe sink + cancel", elements: 1_000),
    Workload(name: "flatMapJust", title: "sequence → flatMap { Just($0) } → sink", elements: 1_000),
    Workload(name: "justFlatMapSequence", title: "Just(n) → append(Empty()) → flatMap { (0..<$0).publisher } → sink", elements: 1_000_000),
    Workload(name: "combineIdentifier", title: "CombineIdentifier()", elements: 1_000_000),
    Workload(name: "twoThreadSend", title: "2 threads → PassthroughSubject.send", elements: 1_000_000),
    Workload(name: "merge", title: "2 subjects → merge → sink", elements: 1_000_000),
    Workload(name: "zip", title: "2 subjects → zip → sink", elements: 1_000_000),
    Workload(name: "zipMap", title: "2 subjects → zip → map → sink", elements: 1_000_000),
    Workload(name: "combineLatest", title: "2 subjects → combineLatest → sink", elements: 1_000_000),
    Workload(name: "receiveOnSerialQueue", title: "PassthroughSubject → receive(on: serial DispatchQueue) → sink", elements: 100_000),
    Workload(name: "receiveOnImmediate", title: "PassthroughSubject → receive(on: ImmediateScheduler) → sink", elements: 1_000_000),
    Workload(name: "debounceVirtualTime", title: "PassthroughSubject → debounce (virtual time, 1 in 4 passes) → sink", elements: 1_000_000),
    Workload(name: "valuesForAwait", title: "sequence publisher .values → for await", elements: 100_000),
    Workload(name: "bufferedValues", title: "sequence publisher → buffer → .values → for await", elements: 100_000),
    Workload(name: "zippedValues", title: "2 sequence publishers → zip → .values → for await", elements: 100_000),
    Workload(name: "chainValues", title: "sequence → tryMap → removeDuplicates → handleEvents → .values", elements: 100_000),
    Workload(name: "forwardedValues", title: "sequence → handleEvents → dropFirst → prefix → collect(1) → .values", elements: 100_000),
    Workload(name: "asyncSequencePublisher", title: "AsyncStream .asPublisher → sink", elements: 100_000),
    Workload(name: "timelineSend", title: "PassthroughSubject.send → 1 sink, while a Timeline records", elements: 1_000_000),
]

/// The workload called `name`.
public func workload(named name: String) -> Workload? {
    workloads.first { $0.name == name }
}

/// Runs every implementation of every workload at size `n` (even) and returns one line per
/// disagreement: a checksum different from the first implementation's, or an implementation
/// registered under a name that is no workload's.
public func selfCheck(n: Int = 1_000) async -> [String] {
    var problems: [String] = []
    let known = Set(workloads.map(\.name))
    let tables: [(Implementation, [String])] = [
        (.sluice, Array(SluiceWorkloads.implementations.keys) + Array(SluiceWorkloads.asyncImplementations.keys)),
        (
            .openCombine,
            Array(OpenCombineWorkloads.implementations.keys) + Array(OpenCombineWorkloads.asyncImplementations.keys)
        ),
        (.loop, Array(loopImplementations.keys)),
        (.forAwait, Array(forAwaitImplementations.keys)),
        (.asyncOperators, Array(asyncOperatorImplementations.keys)),
    ]
    for (implementation, names) in tables {
        for name in names where !known.contains(name) {
            problems.append("\(implementation.rawValue) implements unknown workload \(name)")
        }
    }
    for workload in workloads {
        var reference: (Implementation, Int)?
        for implementation in Implementation.allCases {
            guard let body = workload.body(implementation) else { continue }
            let checksum = await body.run(n)
            if let (first, expected) = reference {
                if checksum != expected {
                    problems.append(
                        "\(workload.name): \(implementation.rawValue) → \(checksum), \(first.rawValue) → \(expected)"
                    )
                }
            } else {
                reference = (implementation, checksum)
            }
        }
    }
    for workload in scalingWorkloads {
        guard let sluice = workload.body(.sluice) else {
            problems.append("scaling workload \(workload.name) has no sluice version")
            continue
        }
        let expected = sluice(n, ScalingPhase(isActive: false))
        if let openCombine = workload.body(.openCombine) {
            let checksum = openCombine(n, ScalingPhase(isActive: false))
            if checksum != expected {
                problems.append("\(workload.name) (scaling): opencombine → \(checksum), sluice → \(expected)")
            }
        }
    }
    return problems
}

// MARK: Scaling

/// A scaling workload: set-up for size N (unmeasured), then N elements of measured work, whose
/// cost per element should not grow with N.
public struct ScalingWorkload: Sendable {
    /// The name used on the command line.
    public let name: String
    /// What it does, for the table.
    public let title: String

    /// The implementation for `implementation` (Sluice or OpenCombine), if it has one.
    public func body(_ implementation: Implementation) -> (@Sendable (Int, ScalingPhase) -> Int)? {
        switch implementation {
        case .sluice: SluiceWorkloads.scalingImplementations[name]
        case .openCombine: OpenCombineWorkloads.scalingImplementations[name]
        case .loop, .forAwait, .asyncOperators: nil
        }
    }
}

/// Every scaling workload, in table order.
public let scalingWorkloads: [ScalingWorkload] = [
    ScalingWorkload(name: "churn", title: "a subject with N sinks: subscribe one more and cancel it, N times"),
    ScalingWorkload(name: "cancelNewestFirst", title: "cancel N sinks of a subject, newest first"),
    ScalingWorkload(name: "cancelOldestFirst", title: "cancel N sinks of a subject, oldest first"),
    ScalingWorkload(name: "cancelRandom", title: "cancel N sinks of a subject, in random order"),
    ScalingWorkload(name: "cancelOnFirstValue", title: "N sinks that each cancel on their first value; send 1"),
    ScalingWorkload(name: "currentValueComplete", title: "CurrentValueSubject completing N sinks"),
    ScalingWorkload(name: "subscribe", title: "subscribe N sinks to a subject"),
    ScalingWorkload(name: "send", title: "send 1 value to N sinks"),
    ScalingWorkload(name: "share", title: "subscribe N sinks to a subject's share()"),
    ScalingWorkload(name: "flatMapFinish", title: "flatMap over N live inner subjects, each finishes (in order)"),
    ScalingWorkload(name: "flatMapFinishRandom", title: "flatMap over N live inner subjects, each finishes (random order)"),
    ScalingWorkload(name: "flatMapCancel", title: "flatMap over N live inner subjects, cancelled"),
    ScalingWorkload(name: "mergeManyFinish", title: "MergeMany of N subjects, each finishes (random order)"),
    ScalingWorkload(name: "mergeManyCancel", title: "MergeMany of N subjects, cancelled"),
]

/// The scaling workload called `name`.
public func scalingWorkload(named name: String) -> ScalingWorkload? {
    scalingWorkloads.first { $0.name == name }
}

/// Runs one scaling workload: a warm-up at a small size (unmeasured), then `repeats` measured runs
/// at size `n`. Returns the best run's nanoseconds and the checksum.
public func runScaling(_ body: (Int, ScalingPhase) -> Int, n: Int, repeats: Int) -> (nanoseconds: Int64, checksum: Int) {
    _ = body(min(n, 64), ScalingPhase(isActive: false))
    var best = Int64.max
    var checksum = 0
    for _ in 0..<max(repeats, 1) {
        let phase = ScalingPhase(isActive: true)
        checksum = body(n, phase)
        best = min(best, phase.nanoseconds)
    }
    return (best, checksum)
}

// MARK: Memory

/// The function that builds `n` idle subscriptions of `shape` for `implementation`.
public func memoryShape(_ shape: String, _ implementation: Implementation) -> (@Sendable (Int, MemoryProbe) -> Int)? {
    switch implementation {
    case .sluice: SluiceWorkloads.memoryShapes[shape]
    case .openCombine: OpenCombineWorkloads.memoryShapes[shape]
    case .loop, .forAwait, .asyncOperators: nil
    }
}
