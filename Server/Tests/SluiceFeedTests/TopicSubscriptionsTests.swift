@testable import SluiceFeed
import Sluice
import Testing

/// A stream's subscriptions by topic index, kept in order and found by binary search: every topic
/// found whatever the order the topics joined and left in, none found once it left, a topic's
/// subscription replaced in place.
@Suite struct TopicSubscriptionsTests {
    /// A sink that takes nothing: the subscriptions here are only kept, never started.
    private final class Sink: ClientSink, @unchecked Sendable {
        func receive(subscription: ClientSubscription) {}
        func receive(_ message: ClientMessage) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<FeedClientFailure>) {}
        func feedIsFinishing() {}
        var hasLeft: Bool { false }
    }

    @Test func everyTopicIsFoundWhateverTheOrderItJoinedAndLeftIn() {
        let feed = EventFeed(PassthroughSubject<Int, Never>())
        let connection = ConnectionBuffer(policy: .dropOldest(buffer: 8), byteLimit: .max)
        let sink = Sink()
        func subscription(_ topic: Int32) -> ClientSubscription {
            ClientSubscription(feed: feed, seat: ClientSeat(topic: topic, of: connection), downstream: sink)
        }
        var subscriptions = TopicSubscriptions()
        var made: [Int32: ClientSubscription] = [:]
        for topic: Int32 in [5, 0, 9, 3, 7, 1, 8, 2, 6, 4] {
            made[topic] = subscription(topic)
            subscriptions[topic] = made[topic]
        }
        for topic: Int32 in 0..<10 { #expect(subscriptions[topic] === made[topic], "topic \(topic)") }
        #expect(subscriptions[10] == nil && subscriptions[-1] == nil)
        #expect(subscriptions.all.map(\.topic) == Array(0..<10))

        #expect(subscriptions.removeValue(forKey: 3) === made[3])
        #expect(subscriptions.removeValue(forKey: 3) == nil)
        subscriptions[0] = nil
        subscriptions[9] = nil
        subscriptions[42] = nil   // never there: nothing changes
        #expect(subscriptions.all.map(\.topic) == [1, 2, 4, 5, 6, 7, 8])
        for topic: Int32 in [0, 3, 9] { #expect(subscriptions[topic] == nil, "topic \(topic)") }

        let again = subscription(5)
        subscriptions[5] = again
        #expect(subscriptions[5] === again)
        #expect(subscriptions.all.map(\.topic) == [1, 2, 4, 5, 6, 7, 8])
        subscriptions[12] = subscription(12)
        #expect(subscriptions.all.map(\.topic) == [1, 2, 4, 5, 6, 7, 8, 12])
    }
}
