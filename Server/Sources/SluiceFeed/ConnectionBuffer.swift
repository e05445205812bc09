#if Server
import Synchronization

/// The one buffer of a connection that follows several topics: its topics' ``ClientBuffer``s draw
/// their room from it, so that the connection holds at most the policy's count of events and
/// ``EventFeed/Options/bufferBytes`` of them across all its topics — a busy topic may use it all
/// while the others are quiet — and its ``SlowClientPolicy`` applies when it is full.
///
/// A topic with nothing buffered always takes its next event (as a client's buffer always takes
/// one event, whatever its size), so that a topic is never shut out by the others: the connection
/// holds at most the policy's count plus one event per topic. When an event of a topic finds the
/// buffer full: under ``SlowClientPolicy/dropOldest(buffer:)`` that topic drops its own oldest
/// events, as many as make room (all of them when the other topics fill it); under
/// ``SlowClientPolicy/dropNewest(buffer:)`` the new event goes; under
/// ``SlowClientPolicy/disconnect(buffer:)`` the connection ends. Each topic's client is told of its
/// own losses, as the client of one feed is.
final class ConnectionBuffer: Sendable {
    /// The connection's policy; its count bounds the events of all the topics.
    let policy: SlowClientPolicy
    /// The most bytes of events the topics hold together.
    let byteLimit: Int
    private let held = Mutex(Held())

    private struct Held {
        var events = 0
        var bytes = 0
    }

    init(policy: SlowClientPolicy, byteLimit: Int) {
        precondition(policy.bufferSize > 0, "a slow-client buffer must hold at least one event")
        self.policy = policy
        self.byteLimit = byteLimit
    }

    /// Takes room for an event of `bytes` if the connection has it, or at once when `always` (the
    /// topic holds nothing); whether it was taken.
    func take(_ bytes: Int, always: Bool) -> Bool {
        held.withLock(of: self) { held in
            guard always || (held.events < policy.bufferSize && held.bytes + bytes <= byteLimit) else { return false }
            held.events += 1
            held.bytes += bytes
            return true
        }
    }

    /// Gives back the room of `events` events of `bytes` in all.
    func give(events: Int, bytes: Int) {
        guard events > 0 else { return }
        held.withLock(of: self) { held in
            held.events -= events
            held.bytes -= bytes
        }
    }

    /// The events and bytes the topics hold now.
    var holding: (events: Int, bytes: Int) {
        held.withLock(of: self) { ($0.events, $0.bytes) }
    }
}
#endif
