import BaselineWorkloads
import OpenCombineWorkloads
import SluiceWorkloads

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
    return problems
}
