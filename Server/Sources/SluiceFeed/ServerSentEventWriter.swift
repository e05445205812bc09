#if Server
import NIOCore

/// What one connection's `text/event-stream` body is made of, message by message: the one place
/// where a client's messages become SSE bytes, whichever transport carries them (a task's writer,
/// a writer on the connection's event loop, Hummingbird, Vapor).
///
/// A stream of one feed writes each event as its `id:` (`<epoch>-<position>`), `event:` if named,
/// and `data:` lines — the frame its feed made once for every client, when it did. A stream of
/// several topics writes each event with the connection's ``TopicCursor`` as its `id:` and its
/// topic's name as its `event:`, then the event's `data:` lines; its `reset` and `dropped` name
/// their topic (`{"topic":"…","missed":n}`). Used by one writer at a time.
package final class ServerSentEventWriter<Output: Sendable>: @unchecked Sendable {
    private let encode: @Sendable (Output) -> ServerSentEvent
    private let writesFrames: Bool
    /// A stream of one feed: its filter.
    private let filter: (@Sendable (Output) -> Bool)?
    /// A stream of several topics: their names, filters, and where the connection stands in each.
    private let topics: [String]
    /// Empty when no topic has a filter (most streams have none: no lookup per event, and no
    /// entry per topic kept for the connection's life).
    private let filters: [(@Sendable (Output) -> Bool)?]
    /// Changed and read by the one writer at a time (the class's contract), per event: not
    /// checked for exclusive access at run time.
    @exclusivity(unchecked) private var positions: [EventID]
    /// The cursor's check, written before its entries.
    private let check: String
    /// The bytes of the last cursor written, a hint for the size of the next.
    private var cursorBytes = 0
    /// The `retry:` lines one of which is written before the stream's `shutdown`, if any.
    private let shutdownRetry: RetryLines

    /// A writer of a stream of one feed; one of `shutdownRetry`'s lines goes before its `shutdown`.
    package init(encode: @escaping @Sendable (Output) -> ServerSentEvent, writesFrames: Bool, filter: (@Sendable (Output) -> Bool)?,
                 shutdownRetry: RetryLines = RetryLines(retry: nil, jitter: 0)) {
        self.encode = encode
        self.shutdownRetry = shutdownRetry
        self.writesFrames = writesFrames
        self.filter = filter
        topics = []
        filters = []
        positions = []
        check = ""
    }

    /// A writer of a stream of `topics`, in their order; one of `shutdownRetry`'s lines goes before
    /// its `shutdown`.
    package init(encode: @escaping @Sendable (Output) -> ServerSentEvent, writesFrames: Bool, topics: [FeedTopic<Output>],
                 shutdownRetry: RetryLines = RetryLines(retry: nil, jitter: 0)) {
        self.encode = encode
        self.shutdownRetry = shutdownRetry
        self.writesFrames = writesFrames
        filter = nil
        self.topics = topics.map(\.name)
        filters = topics.contains { $0.filter != nil } ? topics.map(\.filter) : []
        positions = topics.map(\.position)
        check = TopicCursor.check(of: self.topics)
    }

    /// Whether the stream follows several topics.
    package var isTopicSet: Bool { !topics.isEmpty }

    /// The bytes of a batch (`nil`: none, every event filtered out): a lone event's own frame,
    /// shared, when its feed made one and this stream writes it as it is.
    package func bytes(of messages: [ClientMessage]) -> ByteBuffer? {
        if messages.count == 1, !isTopicSet, filter == nil, writesFrames, case .event(let event, _) = messages[0], let frame = event.frame {
            return frame
        }
        var buffer = ByteBuffer()
        if isTopicSet, writesFrames { buffer.reserveCapacity(topicEventBytes(messages)) }
        append(messages, to: &buffer)
        return buffer.readableBytes > 0 ? buffer : nil
    }

    /// About what the events of `messages` take in a stream of several topics of ready-encoded
    /// events (their `id:` and `event:` lines, their `data:` lines), so that the buffer is made at
    /// its size once instead of grown as it is written.
    private func topicEventBytes(_ messages: [ClientMessage]) -> Int {
        var bytes = 0
        for message in messages {
            guard case .event(let event, let topic) = message else {
                bytes += 64
                continue
            }
            bytes += cursorBytes + topics[Int(topic)].utf8.count + 16 + event.value(as: ServerSentEvent.self).dataLines.readableBytes
        }
        return bytes
    }

    /// Appends the bytes of `messages` to `buffer`.
    package func append(_ messages: [ClientMessage], to buffer: inout ByteBuffer) {
        for message in messages { append(message, to: &buffer) }
    }

    /// Appends `message`'s bytes to `buffer`.
    package func append(_ message: ClientMessage, to buffer: inout ByteBuffer) {
        switch message {
        case .event(let event, let topic):
            isTopicSet ? appendTopicEvent(event, topic: Int(topic), to: &buffer) : appendEvent(event, to: &buffer)
        case .dropped(let count, let topic):
            buffer.writeStaticString("event: dropped\ndata: {")
            if isTopicSet { writeTopic(Int(topic), to: &buffer) }
            buffer.writeString("\"dropped\":\(count)}\n\n")
        case .reset(let gap, let topic):
            // Its `id:` is where the client now stands, so that it resumes from there, not from
            // before the break (which would reset it again).
            if isTopicSet {
                positions[Int(topic)] = gap.eventID
                writeCursorID(to: &buffer)
            } else {
                writeID(gap, to: &buffer)
            }
            buffer.writeStaticString("event: reset\ndata: {")
            if isTopicSet { writeTopic(Int(topic), to: &buffer) }
            buffer.writeString("\"missed\":\(gap.missed.map(String.init) ?? "null")}\n\n")
        case .shutdown(let reason):
            if var line = shutdownRetry.pick() { buffer.writeBuffer(&line) }
            var encoded = ServerSentEvent(data: reason, event: "shutdown").encoded
            buffer.writeBuffer(&encoded)
        }
    }

    private func appendEvent(_ event: FeedEvent, to buffer: inout ByteBuffer) {
        if let filter, !filter(event.value(as: Output.self)) { return }
        if writesFrames, let frame = event.frame {
            buffer.writeImmutableBuffer(frame)
            return
        }
        writeID(event, to: &buffer)
        var encoded = encode(event.value(as: Output.self)).encoded
        buffer.writeBuffer(&encoded)
    }

    /// `id: <epoch>-<position>` of `event`.
    private func writeID(_ event: FeedEvent, to buffer: inout ByteBuffer) {
        buffer.writeStaticString("id: ")
        buffer.writeString(event.epoch)
        buffer.writeStaticString("-")
        buffer.writeString(String(event.id))
        buffer.writeStaticString("\n")
    }

    /// `id: <cursor>`: where the connection stands in every topic.
    private func writeCursorID(to buffer: inout ByteBuffer) {
        let start = buffer.writerIndex
        buffer.writeStaticString("id: ")
        buffer.writeString(check)
        buffer.writeStaticString("/")
        TopicCursor.write(positions, into: &buffer)
        buffer.writeStaticString("\n")
        cursorBytes = buffer.writerIndex - start
    }

    private func appendTopicEvent(_ event: FeedEvent, topic: Int, to buffer: inout ByteBuffer) {
        positions[topic] = event.eventID   // passed, shown or not
        if !filters.isEmpty, let filter = filters[topic], !filter(event.value(as: Output.self)) { return }
        writeCursorID(to: &buffer)
        buffer.writeStaticString("event: ")
        buffer.writeString(topics[topic])
        buffer.writeStaticString("\n")
        if writesFrames {
            buffer.writeImmutableBuffer(event.value(as: ServerSentEvent.self).dataLines)
        } else {
            buffer.writeImmutableBuffer(encode(event.value(as: Output.self)).dataLines)
        }
    }

    /// `"topic":"<name>",`.
    private func writeTopic(_ topic: Int, to buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"topic\":")
        buffer.writeString(jsonString(topics[topic]))
        buffer.writeStaticString(",")
    }
}
#endif
