@testable import SluiceFeed
import Sluice
import SluiceTesting
import Testing

/// The clients a feed's live events go to: every member gets each event once, a client is a member
/// from its join until it cancels, falls behind or the feed finishes, leaving moves no other
/// client's events, and a client that joins a finished feed gets its shutdown.
@Suite struct FeedRosterTests {
    private typealias Client = TestSubscriber<FeedMessage<Int>, FeedClientFailure>

    private func positions(_ client: Client) -> [UInt64] {
        client.values.compactMap { if case .event(let id, _) = $0 { id.position } else { nil } }
    }

    /// Clients leaving from the middle, the end and the start of the list: each one left gets every
    /// later event once, each one gone gets none, and the roster counts those left.
    @Test func clientsThatLeaveAnywhereInTheListLeaveTheOthersEveryEvent() {
        let subject = PassthroughSubject<Int, Never>()
        let feed = EventFeed(subject)
        let clients = (0..<100).map { _ in Client(initialDemand: .unlimited) }
        for client in clients { feed.client().subscribe(client) }
        #expect(feed.roster.count == 100)
        subject.send(1)
        let leaving = Set([0, 1, 17, 50, 51, 98, 99] + Array(stride(from: 3, to: 97, by: 4)))
        for index in leaving.sorted(by: { ($0 * 37) % 100 < ($1 * 37) % 100 }) { clients[index].cancel() }
        clients[50].cancel()   // twice: no effect
        #expect(feed.roster.count == 100 - leaving.count)
        #expect(feed.stats.connectedClients == 100 - leaving.count)
        subject.send(2)
        subject.send(3)
        for (index, client) in clients.enumerated() {
            #expect(positions(client) == (leaving.contains(index) ? [1] : [1, 2, 3]), "client \(index)")
        }
        let late = Client(initialDemand: .unlimited)
        feed.client().subscribe(late)
        subject.send(4)
        #expect(positions(late) == [4])
        #expect(feed.roster.count == 101 - leaving.count)
    }

    /// A client disconnected by its policy leaves the roster: the events after it go to the others.
    @Test func aClientThatFallsBehindLeavesTheRoster() {
        let subject = PassthroughSubject<Int, Never>()
        let feed = EventFeed(subject)
        let stalled = Client(initialDemand: .none)
        let reading = Client(initialDemand: .unlimited)
        feed.client(policy: .disconnect(buffer: 2)).subscribe(stalled)
        feed.client().subscribe(reading)
        for value in 1...3 { subject.send(value) }
        #expect(stalled.completion == .failure(.fellBehind(buffered: 2)))
        #expect(feed.roster.count == 1)
        subject.send(4)
        #expect(positions(reading) == [1, 2, 3, 4])
    }

    /// The feed finishing empties the roster; every client gets what it had, then the shutdown; one
    /// that joins afterwards gets the shutdown alone and is no member.
    @Test func aFinishedFeedTellsEveryClientAndTakesNoMore() {
        let subject = PassthroughSubject<Int, Never>()
        let feed = EventFeed(subject)
        let clients = (0..<3).map { _ in Client(initialDemand: .unlimited) }
        for client in clients { feed.client().subscribe(client) }
        subject.send(1)
        feed.finish(reason: "done")
        #expect(feed.roster.count == 0)
        for client in clients {
            #expect(positions(client) == [1])
            #expect(client.values.last == .shutdown(reason: "done"))
            #expect(client.completion == .finished)
        }
        let late = Client(initialDemand: .unlimited)
        feed.client().subscribe(late)
        #expect(late.values == [.shutdown(reason: "done")])
        #expect(late.completion == .finished)
        #expect(feed.roster.count == 0)
    }
}
