#if Server
import Synchronization

/// The clients a feed's live events go to: each event is offered to every member, in the order
/// the feed numbered it, on the feed's upstream thread.
///
/// A feed's clients take every event (each buffers under its own policy), so the roster is a list
/// and no more: no demand, no subscription per client between the feed and the client — where a
/// subject would keep one (its own lock, its own queue) for every client, of every topic a
/// connection follows.
///
/// Membership costs O(1) whatever the number of clients: a member knows its place in the list,
/// and leaving moves the last member into it. A send iterates a snapshot of the list (one
/// retain, nothing copied): a member that leaves meanwhile is told by its own state, one that
/// joins meanwhile is not in it. A join or a leave while a send holds the snapshot copies the list
/// once, which that send's own O(N) pays for.
final class FeedRoster: Sendable {
    private struct Members {
        var clients = ContiguousArray<ClientSubscription>()
        var finished = false
    }

    private let members = Mutex(Members())

    /// Adds `client`, whose live events begin with the next one sent; false once the feed has
    /// finished (it is not added).
    func add(_ client: ClientSubscription) -> Bool {
        members.withLock(of: self) { members in
            guard !members.finished else { return false }
            precondition(client.rosterSlot < 0, "a client joins its feed once")
            client.rosterSlot = Int32(members.clients.count)
            members.clients.append(client)
            return true
        }
    }

    /// Removes `client` if it is a member: no event sent from here on reaches it. (The caller
    /// holds `client`: the list's reference to it is never its last.)
    func remove(_ client: ClientSubscription) {
        members.withLock(of: self) { members in
            let slot = client.rosterSlot
            guard slot >= 0 else { return }
            client.rosterSlot = -1
            let last = members.clients.removeLast()
            guard last !== client else { return }
            last.rosterSlot = slot
            members.clients[Int(slot)] = last
        }
    }

    /// Offers `event` to every member.
    func send(_ event: FeedEvent) {
        let clients = members.withLock(of: self) { $0.finished ? [] : $0.clients }
        for client in clients { client.offer(event) }
    }

    /// Ends the roster: returns its members, who are members no more, to be told; no one joins it
    /// from here on.
    func finish() -> ContiguousArray<ClientSubscription> {
        members.withLock(of: self) { members in
            members.finished = true
            var clients = ContiguousArray<ClientSubscription>()
            swap(&clients, &members.clients)
            for client in clients { client.rosterSlot = -1 }
            return clients
        }
    }

    /// How many clients are members now.
    var count: Int { members.withLock(of: self) { $0.clients.count } }
}
#endif
