#if Server
/// An event's id as clients see it and send back to resume: the **epoch** of the history the event
/// belongs to and its **position** in it, written `<epoch>-<position>` (the SSE `id:` line,
/// `Last-Event-ID`, a WebSocket client's `lastEventId`).
///
/// A feed over a shared log (``EventFeed/init(log:after:history:options:)``) takes both from the log, so
/// the same event has the same id on every instance of a fleet and a client resumes anywhere. An
/// in-memory feed numbers its events from 1 under an epoch of its own, drawn at random when it is
/// made: an id from another instance, or from before a restart, is then another epoch's — the
/// client gets ``FeedMessage/reset(missed:)``, never another feed's events under its numbers.
public struct EventID: Hashable, Sendable, LosslessStringConvertible {
    /// The history's epoch: letters, digits and `_` (no `-`), at most 64 characters.
    public let epoch: String
    /// The event's position in that history, from 1.
    public let position: UInt64

    /// The id of the event at `position` of the history `epoch`; `epoch` must be 1 to 64 letters,
    /// digits or `_`.
    public init(epoch: String, position: UInt64) {
        precondition(Self.isEpoch(epoch), "an epoch is 1 to 64 ASCII letters, digits or _")
        self.epoch = epoch
        self.position = position
    }

    /// Parses `<epoch>-<position>`; `nil` for anything else (surrounding whitespace is ignored).
    public init?(_ description: String) {
        let text = description.trimmingASCIIWhitespace()
        guard let dash = text.lastIndex(of: "-") else { return nil }
        let epoch = String(text[..<dash])
        let digits = text[text.index(after: dash)...]
        guard Self.isEpoch(epoch), !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let position = UInt64(digits) else { return nil }
        self.epoch = epoch
        self.position = position
    }

    /// `<epoch>-<position>`.
    public var description: String { "\(epoch)-\(position)" }

    /// Before the first event of a history that does not exist yet: `_-0`. A log's topic that was
    /// never appended to has this head, so reading it writes nothing; whatever history the topic
    /// then gets continues from it without a break, and a client that resumes from it gets every
    /// event from the first (or a reset, when they are no longer kept).
    public static let origin = EventID(uncheckedEpoch: "_", position: 0)

    /// Whether this is ``origin``.
    public var isOrigin: Bool { position == 0 && epoch == "_" }

    /// A new epoch: 12 random lowercase letters and digits.
    public static func randomEpoch() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<12).map { _ in alphabet.randomElement()! })
    }

    static func isEpoch(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }
    }
}

/// Where a client starts in a feed.
public enum ResumePoint: Hashable, Sendable {
    /// With the next live event (a new client).
    case live
    /// A new client from the moment the feed's latest event was this one (``EventFeed/fixing(_:)``):
    /// the events after it, then live ones, as for a client that came ``live`` then. It counts as a
    /// new client, not a resuming one.
    case liveSince(EventID)
    /// After the event with this id: the events after it, then live ones — or, when they cannot be
    /// had (another epoch, older than the history keeps), ``FeedMessage/reset(missed:)`` first.
    case after(EventID)
    /// The client sent an id that is not one (`Last-Event-ID: 70` from another system, garbage): it
    /// gets ``FeedMessage/reset(missed:)`` with `nil`, then live events.
    case unreadable(String)

    /// The resume point a client's `Last-Event-ID` (or `lastEventId`) text asks for: ``live`` when
    /// `nil` or blank.
    public init(lastEventID text: String?) {
        guard let text, !text.trimmingASCIIWhitespace().isEmpty else {
            self = .live
            return
        }
        if let id = EventID(text) { self = .after(id) } else { self = .unreadable(text) }
    }
}

/// One entry of an ordered, shared event history (a log), as a feed over it takes them: an event
/// at its id, or a break in the history.
public enum LogEntry<Value> {
    /// The event at `id`. Within an epoch, positions follow one another without a hole; an entry
    /// whose position is not the next one is taken as a break (a reset for every client).
    case event(EventID, Value)
    /// The history broke: events after position `after` of `epoch` follow, and what came before
    /// them is not available (`missed` events, when known — trimmed by retention, or a new epoch).
    /// Every client of the feed gets ``FeedMessage/reset(missed:)`` here. With `missed` 0 at the
    /// position a reader stands at, nothing broke: the same history goes on under the epoch
    /// `epoch` (a log renamed it), and a resuming client goes on without a reset.
    case reset(epoch: String, after: UInt64, missed: UInt64?)
}

extension LogEntry: Sendable where Value: Sendable {}
extension LogEntry: Equatable where Value: Equatable {}

/// Where a feed over a log reads what it no longer holds in memory, for a client that resumes from
/// further back: the entries after an id, in order, at most `limit` of them (a first
/// ``LogEntry/reset(epoch:after:missed:)`` when the id's events are gone or its epoch is not the
/// log's). An empty answer: nothing after it yet.
public struct FeedHistory<Value: Sendable>: Sendable {
    let read: @Sendable (_ after: EventID, _ limit: Int) async throws -> [LogEntry<Value>]

    /// A history read by `read`.
    public init(read: @escaping @Sendable (_ after: EventID, _ limit: Int) async throws -> [LogEntry<Value>]) {
        self.read = read
    }

    /// The entries after `id`, at most `limit`.
    public func entries(after id: EventID, limit: Int) async throws -> [LogEntry<Value>] {
        try await read(id, limit)
    }
}

extension StringProtocol {
    func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return Substring() }
        let last = lastIndex(where: { !isSpace($0) })!
        return Substring(self[first...last])
    }
}
#endif
