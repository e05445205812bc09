import NIOCore
import Synchronization

/// One event's Server-Sent Events frame, with the event's id (its number in the feed, from 1).
struct Frame: Sendable {
    let id: UInt64
    let bytes: ByteBuffer
}

/// How many of one client's frames are queued for it beyond the one it just took, so that
/// ``FrameStream`` writes them together with it, in one write — the batching Sluice's stream
/// does (what is queued, up to 16 frames), given to every engine alike.
///
/// It may say less than is queued, never more: a frame it counts must be there to take without
/// waiting for the next event.
protocol FrameBacklog: Sendable {
    /// The client took the frame with `id`.
    func took(_ id: UInt64)
    /// Frames the client can take now without waiting (a lower bound).
    var queued: Int { get }
}

/// Nothing is ever queued: the client's sequence hands each frame over as it is sent (an
/// `AsyncChannel`'s rendezvous).
struct NoBacklog: FrameBacklog {
    func took(_ id: UInt64) {}
    var queued: Int { 0 }
}

/// A count of the frames queued in a client's own buffer (an `AsyncStream` per client): the
/// engine adds one after a `yield` that enqueued a frame without dropping another, the client
/// takes one off per frame — so the count trails the buffer and never exceeds it.
final class CountedBacklog: FrameBacklog {
    private let count = Atomic<Int>(0)

    /// A frame was added to the buffer (none dropped for it).
    func enqueued() { count.add(1, ordering: .relaxed) }

    func took(_ id: UInt64) { count.subtract(1, ordering: .relaxed) }

    var queued: Int { max(0, count.load(ordering: .relaxed)) }
}

/// One client of a sequence shared by all (`share()`): the frames published after the last one
/// it took, from the engine's count of published ids — at most `limit` (a buffer of the latest
/// `limit` holds no more for anyone). Exact while the shared buffer is not full. Once a client
/// falls `limit` frames behind (a stalled one), the buffer drops its oldest frame for every
/// client, which can skip a frame for a client that had caught up: the count is then one too
/// many, and that client's batch waits for the next event.
final class SharedBacklog: FrameBacklog {
    private let published: PublishedID
    private let limit: Int
    private let lastTaken = Atomic<UInt64>(0)

    /// `published`: the engine's id of the last frame it put into the shared sequence.
    init(published: PublishedID, limit: Int) {
        self.published = published
        self.limit = limit
    }

    func took(_ id: UInt64) { lastTaken.store(id, ordering: .relaxed) }

    var queued: Int {
        let last = lastTaken.load(ordering: .relaxed)
        guard last > 0 else { return 0 }
        let published = published.value.load(ordering: .acquiring)
        return published > last ? Int(min(published - last, UInt64(limit))) : 0
    }
}

/// The id of the last frame an engine put into a sequence shared by its clients, stored after
/// the frame went in.
final class PublishedID: Sendable {
    let value = Atomic<UInt64>(0)
}
