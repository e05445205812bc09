@testable import SluicePostgres
import Sluice
import Testing

/// The buffer's policy, without a server: oldest dropped when full, the count delivered as one
/// gap before what follows, demand honoured.
@Suite struct NotificationBufferTests {
    private func drain(_ buffer: inout NotificationBuffer<String>) -> [String] {
        var out: [String] = []
        while let next = buffer.next(gap: { "gap \($0)" }) { out.append(next) }
        return out
    }

    @Test func deliversOnlyOnDemandInOrder() {
        var buffer = NotificationBuffer<String>(capacity: 4)
        buffer.append("a")
        buffer.append("b")
        #expect(drain(&buffer).isEmpty)
        buffer.add(.max(1))
        #expect(drain(&buffer) == ["a"])
        buffer.add(.unlimited)
        buffer.append("c")
        #expect(drain(&buffer) == ["b", "c"])
        #expect(buffer.count == 0)
    }

    @Test func dropsTheOldestAndReportsTheCountFirst() {
        var buffer = NotificationBuffer<String>(capacity: 3)
        for value in ["1", "2", "3", "4", "5"] { buffer.append(value) }
        #expect(buffer.count == 3 && buffer.dropped == 2)
        buffer.add(.max(2))
        #expect(drain(&buffer) == ["gap 2", "3"])   // the gap takes a unit of demand
        buffer.append("6")
        buffer.append("7")   // full again (4, 5, 6 → 5, 6, 7)
        buffer.add(.unlimited)
        #expect(drain(&buffer) == ["gap 1", "5", "6", "7"])
    }

    @Test func wrapsAroundWithoutLosingOrder() {
        var buffer = NotificationBuffer<String>(capacity: 3)
        var delivered: [String] = []
        buffer.append("first")
        for round in 0..<10 {   // one left behind each round: the start moves round the ring
            buffer.append("\(round)a")
            buffer.append("\(round)b")
            buffer.add(.max(2))
            delivered += drain(&buffer)
        }
        buffer.add(.unlimited)
        delivered += drain(&buffer)
        #expect(delivered == ["first"] + (0..<10).flatMap { ["\($0)a", "\($0)b"] })
        #expect(buffer.dropped == 0)
    }
}
