/// An incremental parser of a `text/event-stream` body, exactly as the WHATWG HTML standard's
/// "Server-sent events" section interprets one ("Event stream interpretation").
///
/// Feed it the body's bytes as they arrive, in chunks of any size, with ``append(_:)``, and take
/// the events it completed with ``next()``; it parses lazily, one event per call, so a reader that
/// stops calling ``next()`` leaves the rest of the bytes unparsed.
///
/// ```swift
/// var parser = EventStreamParser()
/// parser.append(Array("data: hello\n\n".utf8))
/// while let message = parser.next() { print(message.data) }   // hello
/// ```
///
/// What the standard says, and this parser does:
/// - Lines end at CR, LF or CRLF; a CR at the end of one chunk and an LF at the start of the next
///   are one line end. A UTF-8 byte order mark at the start of the stream is skipped, once. Each
///   line is decoded as UTF-8, invalid sequences replaced with U+FFFD.
/// - A line starting with `:` is a comment. Otherwise the field name is what precedes the first
///   `:` and the value what follows it, less one leading space; a line without a colon is a field
///   name with an empty value. Unknown fields are ignored.
/// - `data` appends its value and an LF to the data buffer; `event` sets the event type; `id` sets
///   the last event ID buffer unless the value contains U+0000 NULL; `retry` sets the
///   reconnection time if the value is ASCII digits only.
/// - A blank line dispatches: the last event ID (``lastEventID``) becomes the buffer's; then, if the
///   data buffer is empty, nothing is dispatched; otherwise its final LF is removed and an event is
///   dispatched, with the type `message` if none was set. The data and type buffers are then
///   cleared; the last event ID buffer is not.
/// - What follows the last blank line when the stream ends is discarded (there is nothing to call:
///   an incomplete event is simply never returned).
public struct EventStreamParser: Sendable {
    /// Bytes received and not yet parsed; those before `start` are consumed.
    private var pending: [UInt8] = []
    private var start = 0
    /// Whether the stream's first bytes have been checked for a byte order mark.
    private var checkedByteOrderMark = false
    /// The previous line ended with a CR: an LF at the start of what follows belongs to it.
    private var skipLineFeed = false
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var idBuffer: String
    private var blockRetry: Int?
    private var lastEventTypeBytes: [UInt8] = []
    private var lastEventType = ""

    /// The last event ID: the last event ID buffer as of the most recent blank line. This is what a
    /// client sends as `Last-Event-ID` when it reconnects.
    public private(set) var lastEventID: String

    /// The reconnection time in milliseconds set by the most recent valid `retry` field, or `nil`
    /// if the stream had none.
    public private(set) var reconnectionTime: Int?

    /// A parser at the start of a stream. A client that reconnects starts the new stream's parser
    /// with the last event ID of the previous one, so that events without an `id` field carry it on.
    ///
    /// - Parameter lastEventID: The initial last event ID and last event ID buffer (empty by default).
    public init(lastEventID: String = "") {
        self.lastEventID = lastEventID
        idBuffer = lastEventID
    }

    /// Adds bytes received from the stream. Nothing is parsed until ``next()`` is called.
    ///
    /// - Parameter bytes: The next bytes of the body, in order.
    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        if start > 0 && start >= pending.count / 2 {
            pending.removeFirst(start)
            start = 0
        }
        pending.append(contentsOf: bytes)
    }

    /// The bytes held of the event being parsed once ``next()`` has returned `nil`: its data and
    /// type so far and its unfinished line.
    var unfinishedEventSize: Int { data.count + eventType.count + pending.count - start }

    /// Whether bytes remain that ``next()`` has not yet consumed (part of a line, or whole lines
    /// after the last event it returned).
    public var hasUnparsedBytes: Bool { start < pending.count }

    /// Parses lines until an event is dispatched and returns it, or returns `nil` once the bytes
    /// received so far hold no further complete event (an incomplete line stays for the next call).
    ///
    /// - Returns: The next event, or `nil` if more bytes are needed.
    public mutating func next() -> EventSource.Message? {
        if !checkedByteOrderMark {
            let available = pending.count - start
            let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
            let compared = min(available, 3)
            if pending[start..<start + compared].elementsEqual(mark[0..<compared]) {
                if available < 3 { return nil }   // could still be the mark: wait for more bytes
                start += 3
            }
            checkedByteOrderMark = true
        }
        // Lines are read from a second reference to the bytes (no copy: nothing appends to them
        // meanwhile) while the parser's state changes.
        let bytes = pending
        return bytes.withUnsafeBufferPointer { nextEvent(in: $0) }
    }

    private mutating func nextEvent(in buffer: UnsafeBufferPointer<UInt8>) -> EventSource.Message? {
        let count = buffer.count
        while start < count {
            if skipLineFeed {
                skipLineFeed = false
                if buffer[start] == 0x0A {
                    start += 1
                    continue
                }
            }
            var end = start
            while end < count {
                let byte = buffer[end]
                if byte == 0x0A || byte == 0x0D { break }
                end += 1
            }
            guard end < count else { return nil }   // an unfinished line: wait for more bytes
            let line = UnsafeBufferPointer(rebasing: buffer[start..<end])
            start = end + 1
            if buffer[end] == 0x0D {
                if start < count {
                    if buffer[start] == 0x0A { start += 1 }
                } else {
                    skipLineFeed = true
                }
            }
            if let message = processLine(line) {
                return message
            }
        }
        return nil
    }

    /// Processes one line (without its end); returns the event a blank line dispatches.
    private mutating func processLine(_ line: UnsafeBufferPointer<UInt8>) -> EventSource.Message? {
        let count = line.count
        if count == 0 { return dispatch() }
        if line[0] == 0x3A { return nil }   // ":" — a comment
        var colon = 0
        while colon < count && line[colon] != 0x3A { colon += 1 }
        var valueStart = colon
        if colon < count {
            valueStart = colon + 1
            if valueStart < count && line[valueStart] == 0x20 { valueStart += 1 }
        }
        let value = UnsafeBufferPointer(rebasing: line[valueStart..<count])
        switch colon {
        case 4 where line[0] == 0x64 && line[1] == 0x61 && line[2] == 0x74 && line[3] == 0x61:   // data
            data.append(contentsOf: value)
            data.append(0x0A)
        case 5 where line[0] == 0x65 && line[1] == 0x76 && line[2] == 0x65 && line[3] == 0x6E && line[4] == 0x74:   // event
            eventType.removeAll(keepingCapacity: true)
            eventType.append(contentsOf: value)
        case 2 where line[0] == 0x69 && line[1] == 0x64:   // id
            if !value.contains(0) {
                idBuffer = String(decoding: value, as: UTF8.self)
            }
        case 5 where line[0] == 0x72 && line[1] == 0x65 && line[2] == 0x74 && line[3] == 0x72 && line[4] == 0x79:   // retry
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                var milliseconds = 0
                var overflow = false
                for digit in value {
                    let (times10, o1) = milliseconds.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(Int(digit - 0x30))
                    overflow = overflow || o1 || o2
                    milliseconds = sum
                }
                if !overflow {
                    reconnectionTime = milliseconds
                    blockRetry = milliseconds
                }
            }
        default:
            break
        }
        return nil
    }

    /// A blank line: the standard's "dispatch the event".
    private mutating func dispatch() -> EventSource.Message? {
        lastEventID = idBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            eventType.removeAll(keepingCapacity: true)
            blockRetry = nil
        }
        if data.isEmpty { return nil }
        data.removeLast()   // the final LF
        let type: String
        if eventType.isEmpty {
            type = "message"
        } else if eventType == lastEventTypeBytes {
            type = lastEventType   // a stream's events mostly share a few types: decode each once in a row
        } else {
            type = String(decoding: eventType, as: UTF8.self)
            lastEventTypeBytes = eventType
            lastEventType = type
        }
        return EventSource.Message(id: lastEventID, event: type, data: String(decoding: data, as: UTF8.self),
                                   retry: blockRetry)
    }
}
