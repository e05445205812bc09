// The fan-out alone, in process, without sockets: one producer, N consumer tasks, M events each,
// lossless (M is at most the buffer of 64, so nothing is ever dropped or held back), every consumer
// checking it got every event in order. `bench/inprocess` runs it under callgrind at two values of
// M and divides the difference by N × ΔM: instructions per delivery, with set-up and tear-down
// (making the tasks) taken out.
//
//   sluice-fanout-inprocess <sluice | feed | feed-encoding | stream | share> <consumers> <events>
//
// sluice: `subject.buffer(size: 64, prefetch: .byRequest, whenFull: .dropOldest).values` per
//         consumer — each consumer its own subscriber, with its own demand and buffer;
// feed:   the path that ships: an `EventFeed` of `ServerSentEvent`s and, per consumer, a
//         `ServerSentEventStream` client whose `write` takes the bytes of its SSE stream (what a
//         socket would be given), reads the ids in them and checks their order;
// feed-encoding: the same, each client encoding each event itself (`encode:`, as `TopicEventStreams`
//         did before it took the feed's frames);
// stream: one `AsyncStream` per consumer (`.bufferingNewest(64)`), yielded to in a loop;
// share:  swift-async-algorithms' `share(bufferingPolicy: .bounded(64))` of one `AsyncStream`.
import AsyncAlgorithms
import Foundation
import NIOCore
import Sluice
import SluiceFeed
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count == 4, let consumers = Int(arguments[2]), let events = Int(arguments[3]), events <= 64 else {
    print("usage: sluice-fanout-inprocess <sluice|feed|feed-encoding|stream|share> <consumers> <events ≤ 64>")
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

/// One `feed` consumer's reading of its SSE bytes: the position of each `id: <epoch>-<position>`
/// line, in order from 1 (only its task calls it).
final class SSEIDReader: @unchecked Sendable {
    var count = 0
    var outOfOrder = false

    func read(_ bytes: ByteBuffer) {
        bytes.withUnsafeReadableBytes { raw in
            var index = 0
            while index + 4 <= raw.count {
                if raw[index] == UInt8(ascii: "i"), raw[index + 1] == UInt8(ascii: "d"), raw[index + 2] == UInt8(ascii: ":"),
                   index == 0 || raw[index - 1] == UInt8(ascii: "\n") {
                    var position = 0
                    var cursor = index + 4
                    while cursor < raw.count, raw[cursor] != UInt8(ascii: "-") { cursor += 1 }
                    cursor += 1
                    while cursor < raw.count, raw[cursor] != UInt8(ascii: "\n") {
                        position = position * 10 + Int(raw[cursor] - UInt8(ascii: "0"))
                        cursor += 1
                    }
                    count += 1
                    if position != count { outOfOrder = true }
                    index = cursor
                } else {
                    index += 1
                }
            }
        }
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
    case "feed", "feed-encoding":
        let subject = PassthroughSubject<ServerSentEvent, Never>()
        let feed = EventFeed(subject, options: .init(replay: 0, policy: .dropOldest(buffer: 64)))
        let stream = arguments[1] == "feed"
            ? ServerSentEventStream(feed: feed, options: .init(retry: nil, heartbeat: nil))
            : ServerSentEventStream(feed: feed, options: .init(retry: nil, heartbeat: nil)) { $0 }
        let tasks = (0..<consumers).map { _ in
            let client = stream.client()
            return Task {
                let reader = SSEIDReader()
                try? await client.run { bytes in reader.read(bytes) }
                if reader.count == events { tally.complete.add(1, ordering: .relaxed) }
                if reader.outOfOrder { tally.outOfOrder.add(1, ordering: .relaxed) }
            }
        }
        let events = (0..<events).map { ServerSentEvent(data: String($0)) }
        for event in events { subject.send(event) }
        feed.finish()
        for task in tasks { await task.value }
    case "stream":
        let continuations = Mutex<[AsyncStream<Int>.Continuation]>([])
        let tasks = (0..<consumers).map { _ in
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(64))
            continuations.withLock { $0.append(continuation) }
            return consume(stream)
        }
        let all = continuations.withLock { $0 }
        for value in 0..<events {
            for continuation in all { continuation.yield(value) }
        }
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
