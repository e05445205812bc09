@testable import SluiceFeed
import Sluice
import Testing

/// A client's buffer and policy, without sockets: replay before live events, no duplicate across
/// the seam, each policy's drops and where the client is told, demand honoured.
@Suite struct ClientBufferTests {
    private func drain(_ buffer: inout ClientBuffer) -> [String] {
        var out: [String] = []
        while let message = buffer.next() {
            switch message.typed(as: String.self) {
            case .event(let id, let value): out.append("\(id.position):\(value)")
            case .dropped(let count): out.append("dropped \(count)")
            case .reset(let missed): out.append("reset \(missed.map(String.init) ?? "?")")
            case .shutdown(let reason): out.append("shutdown \(reason)")
            }
        }
        return out
    }

    @Test func replayComesFirstAndOverlapIsSkipped() {
        var buffer = ClientBuffer(policy: .dropOldest(buffer: 4))
        #expect(buffer.offer(5, "e") == .buffered)    // live before the start: already in the replay
        #expect(buffer.offer(6, "f") == .buffered)
        buffer.start(replayOf: [(4, "d"), (5, "e")], reset: nil, startAfter: 5)
        #expect(buffer.offer(5, "e") == .duplicate)
        #expect(buffer.offer(7, "g") == .buffered)
        #expect(drain(&buffer).isEmpty)               // no demand yet
        buffer.add(.max(2))
        #expect(drain(&buffer) == ["4:d", "5:e"])
        buffer.add(.unlimited)
        #expect(drain(&buffer) == ["6:f", "7:g"])
    }

    @Test func resetComesBeforeTheOldestKept() {
        var buffer = ClientBuffer(policy: .dropOldest(buffer: 4))
        buffer.start(replayOf: [(10, "j")], reset: .some(6), startAfter: 10)
        buffer.add(.unlimited)
        #expect(drain(&buffer) == ["reset 6", "10:j"])
    }

    @Test func dropOldestTellsTheCountBeforeTheEventsAfterTheGap() {
        var buffer = ClientBuffer(policy: .dropOldest(buffer: 2))
        buffer.start(replay: [], reset: nil, startAfter: 0)
        #expect(buffer.offer(1, "a") == .buffered)
        #expect(buffer.offer(2, "b") == .buffered)
        #expect(buffer.offer(3, "c") == .droppedOldest(count: 1))
        #expect(buffer.offer(4, "d") == .droppedOldest(count: 1))
        buffer.add(.max(1))
        #expect(drain(&buffer) == ["dropped 2"])      // the notice takes a unit of demand
        buffer.add(.unlimited)
        #expect(drain(&buffer) == ["3:c", "4:d"])
    }

    @Test func dropNewestTellsTheCountAtTheGap() {
        var buffer = ClientBuffer(policy: .dropNewest(buffer: 2))
        buffer.start(replay: [], reset: nil, startAfter: 0)
        _ = buffer.offer(1, "a")
        _ = buffer.offer(2, "b")
        #expect(buffer.offer(3, "c") == .droppedNewest)
        #expect(buffer.offer(4, "d") == .droppedNewest)
        buffer.add(.max(1))
        #expect(drain(&buffer) == ["1:a"])
        #expect(buffer.offer(5, "e") == .buffered)    // room again: the gap is recorded before it
        buffer.add(.unlimited)
        #expect(drain(&buffer) == ["2:b", "dropped 2", "5:e"])
        #expect(buffer.offer(6, "f") == .buffered)
        #expect(drain(&buffer) == ["6:f"])
    }

    /// Bytes bound the buffer as events do: a large event pushes out as many old ones as make room
    /// (dropOldest), or is the one dropped (dropNewest), or disconnects (disconnect); one event of
    /// any size is always taken by an empty buffer.
    @Test func bytesBoundTheBufferAsEventsDo() {
        let kilobyte = String(repeating: "k", count: 1_000)
        var oldest = ClientBuffer(policy: .dropOldest(buffer: 100), byteLimit: 3_000)
        oldest.start(replay: [], reset: nil, startAfter: 0)
        for id in 1...3 { #expect(oldest.offer(UInt64(id), kilobyte) == .buffered) }
        #expect(oldest.bufferedBytes == 3_000)
        #expect(oldest.offer(4, kilobyte + kilobyte) == .droppedOldest(count: 2))   // 1 and 2 make room
        #expect(oldest.bufferedEvents == 2 && oldest.bufferedBytes == 3_000)
        #expect(oldest.offer(5, String(repeating: "x", count: 10_000)) == .droppedOldest(count: 2))   // alone, over the limit
        #expect(oldest.bufferedEvents == 1 && oldest.bufferedBytes == 10_000)
        oldest.add(.unlimited)
        #expect(drain(&oldest).map { $0.count > 20 ? String($0.prefix(2)) : $0 } == ["dropped 4", "5:"])
        #expect(oldest.bufferedBytes == 0)

        var newest = ClientBuffer(policy: .dropNewest(buffer: 100), byteLimit: 2_000)
        newest.start(replay: [], reset: nil, startAfter: 0)
        #expect(newest.offer(1, kilobyte) == .buffered)
        #expect(newest.offer(2, kilobyte + "k") == .droppedNewest)
        #expect(newest.offer(3, "small") == .buffered)

        var strict = ClientBuffer(policy: .disconnect(buffer: 100), byteLimit: 2_000)
        strict.start(replay: [], reset: nil, startAfter: 0)
        #expect(strict.offer(1, kilobyte) == .buffered)
        #expect(strict.offer(2, kilobyte + kilobyte) == .overflow)
        #expect(strict.bufferedBytes == 0)
    }

    @Test func disconnectEmptiesTheBufferAndTakesNothingMore() {
        var buffer = ClientBuffer(policy: .disconnect(buffer: 1))
        buffer.start(replay: [], reset: nil, startAfter: 0)
        #expect(buffer.offer(1, "a") == .buffered)
        #expect(buffer.offer(2, "b") == .overflow)
        #expect(buffer.failed)
        #expect(buffer.offer(3, "c") == .closed)
        buffer.add(.unlimited)
        #expect(drain(&buffer).isEmpty)
    }

    @Test func shutdownComesAfterWhatIsBufferedAndEndsTheStream() {
        var buffer = ClientBuffer(policy: .dropOldest(buffer: 8))
        buffer.start(replay: [], reset: nil, startAfter: 0)
        _ = buffer.offer(1, "a")
        let first = buffer.finish(reason: "bye")
        let second = buffer.finish(reason: "again")
        #expect(first && !second)
        #expect(buffer.offer(2, "b") == .closed)
        buffer.add(.max(1))
        #expect(drain(&buffer) == ["1:a"])
        #expect(!buffer.shutdownDelivered)
        buffer.add(.max(5))
        #expect(drain(&buffer) == ["shutdown bye"])
        #expect(buffer.shutdownDelivered)
    }

    @Test func ringKeepsOrderAcrossManyRounds() {
        var buffer = ClientBuffer(policy: .dropOldest(buffer: 3))
        buffer.start(replay: [], reset: nil, startAfter: 0)
        var delivered: [String] = []
        var id: UInt64 = 0
        for _ in 0..<50 {
            id += 1; _ = buffer.offer(id, "x")
            id += 1; _ = buffer.offer(id, "x")
            buffer.add(.max(2))
            delivered += drain(&buffer)
        }
        #expect(delivered == (1...100).map { "\($0):x" })
        #expect(buffer.bufferedEvents == 0)
    }
}

/// The buffer fed as the feed feeds it, with events of text.
private extension ClientBuffer {
    mutating func offer(_ id: UInt64, _ value: String) -> Admission {
        offer(TypedFeedEvent(id: id, epoch: "e", serial: id, value: value))
    }

    mutating func start(replayOf replay: [(UInt64, String)], reset: UInt64??, startAfter: UInt64) {
        start(replay: replay.map { TypedFeedEvent(id: $0.0, epoch: "e", serial: 0, value: $0.1) }, reset: reset,
              serial: 0, epoch: "e", startAfter: startAfter)
    }

    mutating func start(replay: [FeedEvent], reset: UInt64??, startAfter: UInt64) {
        start(replay: replay, reset: reset, serial: 0, epoch: "e", startAfter: startAfter)
    }
}
