import Foundation

/// A Sluice feed's cursor, read: the `id:` of every event of a Server-Sent Events stream of several
/// topics, which holds where the connection stands in each of them (SluiceFeed's `TopicCursor`).
///
/// It is written `<check>/<entry>,<entry>,…`: an entry per topic in the request's order, each
/// `<epoch>-<position>`, or `<position>` alone when its epoch is the previous entry's; `<check>` is
/// 8 lowercase hexadecimal digits of FNV-1a (32 bits) over the topics' names, each followed by a
/// NUL, so that a cursor is never read against another list. The client only reads it, to give
/// each event its topic's id; it sends it back whole, as `Last-Event-ID`.
struct FeedCursor: Hashable, Sendable {
    /// Each topic's id, `<epoch>-<position>`, in the list's order.
    let entries: [String]

    /// Reads `text` as a cursor of `topics` (in the request's order, without repeats); `nil` when
    /// it is not one of them.
    init?(_ text: String, topics: [String]) {
        guard let slash = text.firstIndex(of: "/"), text[..<slash] == Self.check(of: topics) else { return nil }
        let parts = text[text.index(after: slash)...].split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == topics.count else { return nil }
        var entries: [String] = []
        var epoch: Substring?
        for part in parts {
            if let dash = part.lastIndex(of: "-") {
                let (head, digits) = (part[..<dash], part[part.index(after: dash)...])
                guard Self.isEpoch(head), Self.isPosition(digits) else { return nil }
                epoch = head
                entries.append(String(part))
            } else {
                guard let epoch, Self.isPosition(part) else { return nil }
                entries.append("\(epoch)-\(part)")
            }
        }
        self.entries = entries
    }

    /// The id `<epoch>-<position>` split, or `nil` when `id` is not one.
    static func split(_ id: String) -> (epoch: Substring, position: UInt64)? {
        guard let dash = id.lastIndex(of: "-") else { return nil }
        let (epoch, digits) = (id[..<dash], id[id.index(after: dash)...])
        guard isEpoch(epoch), isPosition(digits), let position = UInt64(digits) else { return nil }
        return (epoch, position)
    }

    /// 1 to 64 ASCII letters, digits or `_`.
    private static func isEpoch(_ text: Substring) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
        }
    }

    /// 1 to 20 ASCII digits.
    private static func isPosition(_ text: Substring) -> Bool {
        (1...20).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// The check of a list of topics: FNV-1a (32 bits) of their names, each ended by a NUL, in
    /// 8 lowercase hexadecimal digits.
    static func check(of topics: [String]) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for topic in topics {
            for byte in topic.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
            hash = hash &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `url` with a `topic` query parameter for each of `topics` after its own, each escaped as
    /// a query's value (`+`, `&`, `=` and `#` too).
    static func url(_ url: URL, adding topics: [String]) -> URL {
        guard !topics.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "+&=#")
        let added = topics.map { "topic=" + ($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0) }
        components.percentEncodedQuery = ((components.percentEncodedQuery.map { [$0] } ?? []).filter { !$0.isEmpty } + added).joined(separator: "&")
        return components.url ?? url
    }

    /// `names` without repeats, in their first order: the list a server follows.
    static func list(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}

extension EventSource.Message {
    /// The message with its topic and its id in it, when it is an event of one of `topics` (the
    /// stream's list, without repeats) — its type names the topic, its id is the connection's
    /// cursor. A list of one topic also takes a plain `<epoch>-<position>` id.
    func placed(in topics: [String]) -> Self {
        guard topic == nil, let index = topics.firstIndex(of: event) else { return self }
        var message = self
        message.topic = event
        if let cursor = FeedCursor(id, topics: topics) {
            message.topicEventID = cursor.entries[index]
        } else if topics.count == 1, FeedCursor.split(id) != nil {
            message.topicEventID = id
        }
        return message
    }
}
