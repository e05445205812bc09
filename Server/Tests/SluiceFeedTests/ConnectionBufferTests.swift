@testable import SluiceFeed
import NIOCore
import Sluice
import Testing

/// The one buffer of a connection of several topics: the policy's count and bytes bound the
/// topics together, a busy topic may use it all, a topic with nothing buffered still takes its
/// next event, each policy applies to the topic whose event finds it full, and a topic that goes
/// gives its room back.
@Suite struct ConnectionBufferTests {
    /// The buffers of topics 0 and 1 of one connection whose buffer is `connection`, started.
    private func topics(_ connection: ConnectionBuffer) -> (ClientBuffer, ClientBuffer) {
        var a = ClientBuffer(topic: 0, of: connection)
        var b = ClientBuffer(topic: 1, of: connection)
        a.start(replay: [], reset: nil, serial: 0, epoch: "e", startAfter: 0)
        b.start(replay: [], reset: nil, serial: 0, epoch: "e", startAfter: 0)
        return (a, b)
    }

    private func event(_ id: UInt64, _ value: String = "x") -> FeedEvent {
        TypedFeedEvent(id: id, epoch: "e", serial: id, value: value)
    }

    private func drain(_ buffer: inout ClientBuffer) -> [String] {
        buffer.add(.unlimited)
        var out: [String] = []
        while let message = buffer.next() {
            switch message {
            case .event(let event, let topic): out.append("\(topic):\(event.id)")
            case .dropped(let count, let topic): out.append("\(topic):dropped \(count)")
            case .reset(_, let topic): out.append("\(topic):reset")
            case .shutdown: out.append("shutdown")
            }
        }
        return out
    }

    @Test func aBusyTopicMayUseTheWholeBufferWhileTheOthersAreQuiet() {
        let connection = ConnectionBuffer(policy: .dropNewest(buffer: 4), byteLimit: .max)
        var (a, _) = topics(connection)
        for id in 1...4 { #expect(a.offer(event(UInt64(id))) == .buffered) }
        #expect(a.offer(event(5)) == .droppedNewest)
        #expect(connection.holding.events == 4)
        #expect(drain(&a) == ["0:1", "0:2", "0:3", "0:4", "0:dropped 1"])
        #expect(connection.holding.events == 0 && connection.holding.bytes == 0)
    }

    @Test func theTopicsTogetherHoldAtMostThePolicysCount() {
        let connection = ConnectionBuffer(policy: .dropNewest(buffer: 4), byteLimit: .max)
        var (a, b) = topics(connection)
        #expect(a.offer(event(1)) == .buffered)
        #expect(a.offer(event(2)) == .buffered)
        #expect(b.offer(event(1)) == .buffered)
        #expect(b.offer(event(2)) == .buffered)
        #expect(a.offer(event(3)) == .droppedNewest)   // each topic holds two: the connection is full
        #expect(b.offer(event(3)) == .droppedNewest)
        a.add(.max(1))
        #expect(a.next() != nil)                        // a sends one: room for one more, of either topic
        #expect(b.offer(event(4)) == .buffered)
        #expect(a.offer(event(4)) == .droppedNewest)
        #expect(drain(&b) == ["1:1", "1:2", "1:dropped 1", "1:4"])
        #expect(drain(&a) == ["0:2", "0:dropped 2"])
    }

    @Test func aTopicWithNothingBufferedStillTakesItsNextEvent() {
        let connection = ConnectionBuffer(policy: .dropNewest(buffer: 2), byteLimit: .max)
        var (a, b) = topics(connection)
        _ = a.offer(event(1))
        _ = a.offer(event(2))
        #expect(b.offer(event(1)) == .buffered)        // b is not shut out by a
        #expect(b.offer(event(2)) == .droppedNewest)
        #expect(connection.holding.events == 3)         // the count, and one event of the other topic
    }

    @Test func dropOldestDropsTheOldestOfTheTopicWhoseEventFindsItFull() {
        let connection = ConnectionBuffer(policy: .dropOldest(buffer: 3), byteLimit: .max)
        var (a, b) = topics(connection)
        for id in 1...3 { _ = a.offer(event(UInt64(id))) }
        #expect(a.offer(event(4)) == .droppedOldest(count: 1))
        #expect(b.offer(event(1)) == .buffered)
        #expect(b.offer(event(2)) == .droppedOldest(count: 1))   // b's own oldest, not a's
        #expect(drain(&a) == ["0:dropped 1", "0:2", "0:3", "0:4"])
        #expect(drain(&b) == ["1:dropped 1", "1:2"])
        #expect(connection.holding.events == 0)
    }

    @Test func disconnectWhenTheConnectionIsFullAndTheTopicsRoomIsGivenBack() {
        let connection = ConnectionBuffer(policy: .disconnect(buffer: 3), byteLimit: .max)
        var (a, b) = topics(connection)
        _ = a.offer(event(1))
        _ = a.offer(event(2))
        _ = b.offer(event(1))
        #expect(a.offer(event(3)) == .overflow)
        #expect(connection.holding.events == 1)        // a's two are given back; b's one is held
        #expect(b.offer(event(2)) == .buffered)
    }

    @Test func bytesBoundTheTopicsTogether() {
        let kilobyte = String(repeating: "k", count: 1_000)
        let connection = ConnectionBuffer(policy: .dropNewest(buffer: 100), byteLimit: 2_500)
        var (a, b) = topics(connection)
        #expect(a.offer(event(1, kilobyte)) == .buffered)
        #expect(b.offer(event(1, kilobyte)) == .buffered)
        #expect(a.offer(event(2, kilobyte)) == .droppedNewest)   // 3,000 bytes would be over
        #expect(b.offer(event(2, "small")) == .buffered)
        #expect(connection.holding.bytes == 2_000 + event(2, "small").bytes)
    }

    @Test func aTopicThatIsLeftGivesItsRoomBack() {
        let connection = ConnectionBuffer(policy: .dropNewest(buffer: 2), byteLimit: .max)
        var (a, b) = topics(connection)
        _ = a.offer(event(1))
        _ = a.offer(event(2))
        a.release()
        #expect(connection.holding.events == 0 && connection.holding.bytes == 0)
        #expect(b.offer(event(1)) == .buffered)
        #expect(b.offer(event(2)) == .buffered)
        #expect(drain(&a).isEmpty)
    }

    /// Two feeds as two topics of one stream: what the writer has not taken waits in the
    /// connection's one buffer, bounded across the topics; a topic left gives its room back.
    @Test func aStreamOfTopicsHoldsItsEventsInOneBuffer() throws {
        let first = PassthroughSubject<String, Never>()
        let second = PassthroughSubject<String, Never>()
        let a = EventFeed(first, options: .init(policy: .dropOldest(buffer: 1_000)))
        let b = EventFeed(second, options: .init(policy: .dropOldest(buffer: 1_000)))
        let outlet = ClientOutlet.connect([FeedTopic("a", feed: a), FeedTopic("b", feed: b)],
                                          options: FeedStreamOptions(policy: .dropNewest(buffer: 4), window: 1), heartbeat: nil)
        defer { outlet.end() }
        for i in 1...3 { first.send("a\(i)") }
        for i in 1...3 { second.send("b\(i)") }
        // One of each topic was handed to the writer (its window), two of each wait: four, the count.
        #expect(outlet.bufferHolding?.events == 4)
        first.send("a4")
        #expect(a.stats.eventsDropped == 1)
        #expect(outlet.bufferHolding?.events == 4)
        outlet.leave(topic: 1)
        #expect(outlet.bufferHolding?.events == 2)
        first.send("a5")
        #expect(a.stats.eventsDropped == 1)             // the room b gave back
        #expect(outlet.bufferHolding?.events == 3)
    }
}
