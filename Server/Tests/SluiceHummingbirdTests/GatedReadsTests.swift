import NIOConcurrencyHelpers
@testable import SluiceHummingbird
import Testing

@Suite struct GatedReadsTests {
    @Test func closeReturnsOnlyOnceTheReadUnderWayHasEndedAndNoReadStartsAfter() async throws {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let reads = GatedReads(base: stream)
        let order = NIOLockedValueBox<[String]>([])
        let reader = Task {
            var iterator = reads.makeAsyncIterator()
            let first = try await iterator.next()
            order.withLockedValue { $0.append("read \(first.map(String.init) ?? "nil")") }
            let second = try await iterator.next()
            order.withLockedValue { $0.append("read \(second.map(String.init) ?? "nil")") }
        }
        // The reader is inside its first read (the stream has nothing yet) when the gate closes.
        let closing = Task {
            await reads.close()
            order.withLockedValue { $0.append("closed") }
        }
        #expect(await waitUntil { reads.gate.isClosed })
        #expect(order.withLockedValue { $0 }.isEmpty)
        continuation.yield(1)
        continuation.yield(2)   // never read: the gate is closed
        await closing.value
        try await reader.value
        // The read under way ended before close() returned; the next read found the gate closed.
        let events = order.withLockedValue { $0 }
        #expect(events == ["read 1", "closed", "read nil"] || events == ["read 1", "read nil", "closed"])
    }

    @Test func closeWithNoReadUnderWayReturnsAtOnce() async throws {
        let (stream, _) = AsyncStream<Int>.makeStream()
        let reads = GatedReads(base: stream)
        await reads.close()
        var iterator = reads.makeAsyncIterator()
        #expect(try await iterator.next() == nil)
    }
}
