// The fan-out alone, in process, without sockets: one producer, N consumer tasks, M events each,
// lossless (M is at most the buffer of 64, so nothing is ever dropped or held back), every consumer
// checking it got every event in order. `bench/inprocess` runs it under callgrind at two values of
// M and divides the difference by N × ΔM: instructions per delivery, with set-up and tear-down
// (making the tasks) taken out.
//
//   sluice-fanout-inprocess <sluice | share> <consumers> <events>
//
// sluice: `subject.buffer(size: 64, prefetch: .byRequest, whenFull: .dropOldest).values` per
//         consumer — each consumer its own subscriber, with its own demand and buffer;
// share:  swift-async-algorithms' `share(bufferingPolicy: .bounded(64))` of one `AsyncStream`.
import AsyncAlgorithms
import Foundation
import Sluice
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count == 4, let consumers = Int(arguments[2]), let events = Int(arguments[3]), events <= 64 else {
    print("usage: sluice-fanout-inprocess <sluice|share> <consumers> <events ≤ 64>")
    exit(2)
}

final class Tally: Sendable {
    let complete = Atomic(0)
    let outOfOrder = Atomic(0)
}
let tally = Tally()

/// One consumer's iterator, made here (which subscribes, or registers with the share), behind a
/// closure, handed to the one task that calls it.
final class Consumer: @unchecked Sendable {
    let next: () async -> Int?
    init(_ next: @escaping () async -> Int?) { self.next = next }
}

/// Each consumer: takes `events` values from its own iterator and checks their order.
func consume<S: AsyncSequence>(_ sequence: S) -> Task<Void, Never> where S.Element == Int {
    var iterator = sequence.makeAsyncIterator()
    return run(Consumer { try? await iterator.next() })
}

func run(_ consumer: Consumer) -> Task<Void, Never> {
    Task {
        var expected = 0
        while expected < events, let value = await consumer.next() {
            if value != expected { tally.outOfOrder.add(1, ordering: .relaxed) }
            expected += 1
        }
        if expected == events { tally.complete.add(1, ordering: .relaxed) }
    }
}

// The main thread waits on a semaphore rather than running an async main: valgrind cannot follow
// the main queue's signal-based parking of the main thread. (Detached: top-level code is on the
// main actor, whose thread waits.)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    switch arguments[1] {
    case "sluice":
        let subject = PassthroughSubject<Int, Never>()
        let tasks = (0..<consumers).map { _ in
            consume(subject.buffer(size: 64, prefetch: .byRequest, whenFull: .dropOldest).values)
        }
        for value in 0..<events { subject.send(value) }
        for task in tasks { await task.value }
    case "share":
        let (stream, source) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
        let shared = stream.share(bufferingPolicy: .bounded(64))
        let tasks = (0..<consumers).map { _ in consume(shared) }
        for value in 0..<events { source.yield(value) }
        for task in tasks { await task.value }
        source.finish()
    default:
        print("unknown engine \(arguments[1])")
        exit(2)
    }
    finished.signal()
}
finished.wait()
let complete = tally.complete.load(ordering: .relaxed)
print("\(arguments[1]) consumers=\(consumers) events=\(events) complete=\(complete) outOfOrder=\(tally.outOfOrder.load(ordering: .relaxed))")
exit(complete == consumers ? 0 : 1)
