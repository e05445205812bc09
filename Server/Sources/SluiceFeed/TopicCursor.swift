#if Server
import NIOCore

/// Where a connection that follows several topics stands in each of them: the `id:` of every event
/// of a stream of several topics, and the `Last-Event-ID` a browser sends back to resume them all.
///
/// A cursor names no topic: it is read against the connection's list of topics (the request's, in
/// its order), which a browser's reconnect repeats. It is written `<check>/<entry>,<entry>,…`: an
/// entry per topic, in the list's order, each the ``EventID`` of the last event of that topic the
/// connection was sent (or where it started in it), written `<epoch>-<position>`, or `<position>`
/// alone when its epoch is the previous entry's; `<check>` is 8 hexadecimal digits made from the
/// topics' names, so that a cursor is never read against another list.
///
/// **Size**: at most 9 + the topics × 87 bytes (epochs of 64 characters, positions of 20 digits).
/// With the event log's epochs (12 characters) and positions below ten billion, a cursor takes at
/// most 9 + 24 bytes per topic: 2.4 KB at the default maximum of 100 topics, well inside the 8 KB
/// that servers and proxies take in one header line.
public struct TopicCursor: Sendable, Hashable, CustomStringConvertible {
    /// The topics, in the connection's order.
    public let topics: [String]
    /// Where the connection stands in each topic: the id of the last event of it that the
    /// connection was sent, or where it started.
    public var positions: [EventID]

    /// A cursor at `positions` (one per topic) of `topics`.
    public init(topics: [String], positions: [EventID]) {
        precondition(topics.count == positions.count, "a cursor has one position per topic")
        self.topics = topics
        self.positions = positions
    }

    /// Reads `text` as a cursor of `topics`; `nil` when it is not one of these topics (another
    /// list, another order, not a cursor). A list of one topic also takes its plain ``EventID``.
    public init?(_ text: String, topics: [String]) {
        let text = String(text.trimmingASCIIWhitespace())
        if topics.count == 1, let id = EventID(text) {
            self.init(topics: topics, positions: [id])
            return
        }
        guard let slash = text.firstIndex(of: "/"), text[..<slash] == Self.check(of: topics) else { return nil }
        let entries = text[text.index(after: slash)...].split(separator: ",", omittingEmptySubsequences: false)
        guard entries.count == topics.count else { return nil }
        var positions: [EventID] = []
        positions.reserveCapacity(entries.count)
        for entry in entries {
            if let id = EventID(String(entry)) {
                positions.append(id)
            } else if let previous = positions.last, !entry.isEmpty,
                      entry.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let position = UInt64(entry) {
                positions.append(EventID(uncheckedEpoch: previous.epoch, position: position))
            } else {
                return nil
            }
        }
        self.init(topics: topics, positions: positions)
    }

    /// Where each of `topics` resumes for a request whose `Last-Event-ID` (or `lastEventId`) is
    /// `lastEventID`: ``ResumePoint/live`` for every topic without one; each topic's position
    /// when it is a cursor of these topics; ``ResumePoint/unreadable(_:)`` for every topic
    /// otherwise (each gets a reset, then its live events).
    public static func resumePoints(lastEventID: String?, topics: [String]) -> [ResumePoint] {
        guard let lastEventID, !lastEventID.trimmingASCIIWhitespace().isEmpty else {
            return Array(repeating: .live, count: topics.count)
        }
        guard let cursor = TopicCursor(lastEventID, topics: topics) else {
            return Array(repeating: .unreadable(lastEventID), count: topics.count)
        }
        return cursor.positions.map(ResumePoint.after)
    }

    /// `<check>/<entry>,…`.
    public var description: String {
        var text = ByteBuffer(string: Self.check(of: topics))
        text.writeStaticString("/")
        Self.write(positions, into: &text)
        return String(buffer: text)
    }

    /// Appends the entries of `positions` to `buffer`, in one write of its memory: a stream of
    /// several topics writes a cursor for every event of every connection.
    static func write(_ positions: [EventID], into buffer: inout ByteBuffer) {
        var most = 0
        for id in positions { most += id.epoch.utf8.count + 22 }   // `<epoch>-<20 digits>,`
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: most) { memory in
            var at = 0
            var epoch: String?
            for (index, id) in positions.enumerated() {
                if index > 0 {
                    memory[at] = UInt8(ascii: ",")
                    at += 1
                }
                if id.epoch != epoch {
                    for byte in id.epoch.utf8 {
                        memory[at] = byte
                        at += 1
                    }
                    memory[at] = UInt8(ascii: "-")
                    at += 1
                    epoch = id.epoch
                }
                at += writeDecimal(id.position, into: UnsafeMutableRawBufferPointer(rebasing: memory[at...]))
            }
            return at
        }
    }

    /// Writes `value` in decimal digits at the start of `memory` (20 bytes at least); how many.
    private static func writeDecimal(_ value: UInt64, into memory: UnsafeMutableRawBufferPointer) -> Int {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        rest = value
        for index in stride(from: digits - 1, through: 0, by: -1) {
            memory[index] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
            rest /= 10
        }
        return digits
    }

    /// The check of a list of topics: FNV-1a (32 bits) of their names, each ended by a NUL, in
    /// 8 lowercase hexadecimal digits.
    static func check(of topics: [String]) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for topic in topics {
            for byte in topic.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
            hash = (hash ^ 0) &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
#endif
