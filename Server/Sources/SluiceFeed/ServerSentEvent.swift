#if Server
import NIOCore

/// One Server-Sent Event's content: its optional `event:` name and its `data:` text, encoded once
/// (the `id:` line is added per event by the feed's numbering).
///
/// Map a publisher's values to this type before the ``EventFeed``, so that each event is encoded
/// once for all clients: `EventFeed(prices.map { ServerSentEvent(data: $0.json) })`.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's name (`event:`), or `nil` for the default, `message`.
    public let event: String?
    /// The event's data; each line becomes one `data:` line.
    public let data: String
    /// `event:` and `data:` lines and the blank line that ends the event.
    package let encoded: ByteBuffer
    /// The `data:` lines and the blank line alone (a slice of ``encoded``): what a stream of
    /// several topics writes after its own `id:` and `event:` lines.
    package let dataLines: ByteBuffer

    /// An event with `data` and, optionally, a name. Line breaks in `data` (LF, CRLF or CR) split it
    /// into `data:` lines, as the SSE format requires; a CR or LF in `event` is replaced by a space.
    public init(data: String, event: String? = nil) {
        self.event = event
        self.data = data
        var buffer = ByteBuffer()
        if let event {
            buffer.writeString("event: ")
            buffer.writeString(String(event.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 }))
            buffer.writeString("\n")
        }
        let dataStart = buffer.writerIndex
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            buffer.writeString("data: ")
            buffer.writeSubstring(line)
            buffer.writeString("\n")
        }
        buffer.writeString("\n")
        encoded = buffer
        dataLines = buffer.getSlice(at: dataStart, length: buffer.writerIndex - dataStart)!
    }

    /// `event`'s whole frame as the event at `position` of `epoch`: its `id:` line, then its lines.
    static func frame(of event: ServerSentEvent, epoch: String, position: UInt64) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.reserveCapacity(epoch.utf8.count + 26 + event.encoded.readableBytes)
        frame.writeStaticString("id: ")
        frame.writeString(epoch)
        frame.writeStaticString("-")
        frame.writeString(String(position))
        frame.writeStaticString("\n")
        frame.writeImmutableBuffer(event.encoded)
        return frame
    }
}
#endif
