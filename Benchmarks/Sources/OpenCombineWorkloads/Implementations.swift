import OpenCombine

/// This library's implementation of each workload, by workload name: `f(n)` does the work for `n`
/// elements and returns a checksum. Workloads that need an operator the library lacks are absent.
///
/// Single-sink workloads fold what they receive into `sum = sum &* 31 &+ value`: it depends on the
/// order of the values, and the optimiser can neither vectorise it nor replace it with a formula,
/// so the hand-written loops keep one real step per element.
public let implementations: [String: @Sendable (Int) -> Int] = {
    var table: [String: @Sendable (Int) -> Int] = [
        "sequenceMapFilter": sequenceMapFilter,
        "sequenceMapFilterStages": sequenceMapFilterStages,
        "deepMap": deepMap,
        "passthroughSend1": passthroughSend1,
        "passthroughSend10": passthroughSend10,
        "currentValueSend": currentValueSend,
        "shareSend": shareSend,
        "publishedSet": publishedSet,
        "erasedSend": erasedSend,
        "catchSend": catchSend,
        "assignSend": assignSend,
        "anySubscriberSend": anySubscriberSend,
        "subscribeCancel": subscribeCancel,
        "subscribeSinkCancel": subscribeSinkCancel,
        "combineIdentifier": combineIdentifierCreation,
        "twoThreadSend": twoThreadSend,
        "receiveOnSerialQueue": receiveOnSerialQueue,
        "receiveOnImmediate": receiveOnImmediate,
        "debounceVirtualTime": debounceVirtualTime,
    ]
    #if HAS_FLATMAP
    table["flatMapJust"] = flatMapJust
    table["justFlatMapSequence"] = justFlatMapSequence
    #endif
    #if HAS_MERGE
    table["merge"] = mergePump
    #endif
    #if HAS_ZIP
    table["zip"] = zipPump
    table["zipMap"] = zipMapPump
    #endif
    #if HAS_COMBINELATEST
    table["combineLatest"] = combineLatestPump
    #endif
    #if HAS_TIMELINE
    table["timelineSend"] = timelineSend
    #endif
    return table
}()

/// The same for the workloads whose bodies are `async`.
public let asyncImplementations: [String: @Sendable (Int) async -> Int] = {
    var table: [String: @Sendable (Int) async -> Int] = [:]
    #if HAS_VALUES
    table["valuesForAwait"] = valuesForAwait
    table["bufferedValues"] = bufferedValues
    table["zippedValues"] = zippedValues
    table["chainValues"] = chainValues
    table["forwardedValues"] = forwardedValues
    #endif
    #if HAS_ASYNCSEQUENCEPUBLISHER
    table["asyncSequencePublisher"] = asyncSequencePublisher
    #endif
    return table
}()
