import NIOConcurrencyHelpers

/// Where events enter the server's feed — a local post, a PostgreSQL notification, the benchmark's
/// timer — one at a time: each is numbered (from 1) and handed to the engine under one lock.
///
/// The lock is held while the engine fans the event out, on purpose: Combine requires a subject's
/// `send` calls to be serialized (and the other engines' ids must reach every client in order).
/// No engine waits for a client in ``FanOutEngine/publish(_:)``, and nothing it calls publishes
/// back, so the lock is never taken twice by one thread.
final class FeedInput: Sendable {
    private let engine: any FanOutEngine
    private let lastID = NIOLockedValueBox<UInt64>(0)

    init(engine: any FanOutEngine) { self.engine = engine }

    /// Publishes `text` as the feed's next event.
    func publish(_ text: String) {
        lastID.withLockedValue { lastID in
            lastID += 1
            engine.publish(NumberedEvent(id: lastID, text: text))
        }
    }
}
