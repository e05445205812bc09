import WorkloadSupport

/// Each workload as a hand-written loop, by workload name: `f(n)` does the same work as the
/// publisher pipelines for `n` elements and returns the same checksum.
public let loopImplementations: [String: @Sendable (Int) -> Int] = [
    "sequenceMapFilter": sequenceMapFilterLoop,
    "sequenceMapFilterStages": sequenceMapFilterLoop,
    "deepMap": deepMapLoop,
    "passthroughSend1": { passthroughSendLoop($0, observers: 1) },
    "passthroughSend10": { passthroughSendLoop($0, observers: 10) },
    "currentValueSend": currentValueSendLoop,
    "flatMapJust": flatMapJustLoop,
    "combineIdentifier": combineIdentifierLoop,
    "twoThreadSend": twoThreadSendLoop,
    "merge": mergeLoop,
    "zip": zipLoop,
    "combineLatest": combineLatestLoop,
    "receiveOnSerialQueue": receiveOnSerialQueueLoop,
    "receiveOnImmediate": { passthroughSendLoop($0, observers: 1) },
    "debounceVirtualTime": debounceVirtualTimeLoop,
]

/// Each workload as a plain `for await` loop over `AsyncStream`s, the work in its body: a stream of
/// the elements for the sequence workloads, one stream per subscriber for the subject workloads.
public let forAwaitImplementations: [String: @Sendable (Int) async -> Int] = [
    "sequenceMapFilter": sequenceMapFilterForAwait,
    "sequenceMapFilterStages": sequenceMapFilterForAwait,
    "deepMap": deepMapForAwait,
    "passthroughSend1": { await passthroughSendAsync($0, consumers: 1) },
    "passthroughSend10": { await passthroughSendAsync($0, consumers: 10) },
    "flatMapJust": flatMapJustForAwait,
    "twoThreadSend": twoThreadSendAsync,
    "valuesForAwait": { await fold(streamOfRange($0)) },
    "asyncSequencePublisher": { await fold(streamOfRange($0)) },
]

/// Each sequence workload through the standard library's AsyncSequence operators (`map`,
/// `filter`, `flatMap`) over a source that never suspends, then `for await`.
public let asyncOperatorImplementations: [String: @Sendable (Int) async -> Int] = [
    "sequenceMapFilter": sequenceMapFilterAsyncOperators,
    "sequenceMapFilterStages": sequenceMapFilterAsyncOperators,
    "deepMap": deepMapAsyncOperators,
    "flatMapJust": flatMapJustAsyncOperators,
]
