#if Server
/// Reads a request head as it arrives, a piece at a time, and says when it is whole or too long:
/// the request line (up to its line end) against one bound, the whole head (up to the empty line
/// that ends it) against another. Line ends before the request line are skipped, as RFC 9112
/// asks of a server, and counted against the head's bound. A head is a line feed's business: a
/// carriage return before one is part of the line end, anywhere else it is a byte of its line.
package struct RequestHeadScanner: Sendable {
    /// What the bytes read so far make of the head.
    package enum Outcome: Equatable, Sendable {
        /// Not whole yet, within both bounds.
        case incomplete
        /// Whole: its last byte is the one at this offset of the piece just scanned.
        case complete(endingAt: Int)
        /// The request line is longer than its bound (HTTP 414).
        case lineTooLong
        /// The head is longer than its bound (HTTP 431).
        case headTooLarge
    }

    /// The longest request line taken, without its line end.
    package let maximumLine: Int
    /// The longest head taken, its line ends and the empty line that ends it included.
    package let maximumHead: Int
    /// The head's bytes so far.
    private var length = 0
    /// The request line's bytes so far, a carriage return at its end included.
    private var lineLength = 0
    private var lastWasReturn = false
    private var stage = Stage.beforeLine

    private enum Stage: Sendable {
        /// Skipping line ends before the request line.
        case beforeLine
        /// In the request line.
        case inLine
        /// In a header line.
        case inHeader
        /// Right after a line feed; a carriage return may come before the next one.
        case lineStart(sawReturn: Bool)
    }

    /// A scanner of a new head with these bounds.
    package init(maximumLine: Int, maximumHead: Int) {
        self.maximumLine = maximumLine
        self.maximumHead = maximumHead
    }

    /// Reads `bytes`, the next piece of the connection's input. Once it has answered anything but
    /// ``Outcome/incomplete``, the scanner is done: a new head needs a new scanner.
    package mutating func scan<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Outcome {
        var offset = 0
        for byte in bytes {
            length += 1
            if length > maximumHead { return .headTooLarge }
            switch stage {
            case .beforeLine:
                if byte != UInt8(ascii: "\r") && byte != UInt8(ascii: "\n") {
                    stage = .inLine
                    lineLength = 1
                    lastWasReturn = byte == UInt8(ascii: "\r")
                }
            case .inLine:
                if byte == UInt8(ascii: "\n") {
                    if lineLength - (lastWasReturn ? 1 : 0) > maximumLine { return .lineTooLong }
                    stage = .lineStart(sawReturn: false)
                } else {
                    lineLength += 1
                    lastWasReturn = byte == UInt8(ascii: "\r")
                    if lineLength > maximumLine + 1 { return .lineTooLong }   // + 1: a carriage return may end it
                }
            case .lineStart(let sawReturn):
                if byte == UInt8(ascii: "\n") { return .complete(endingAt: offset) }
                stage = byte == UInt8(ascii: "\r") && !sawReturn ? .lineStart(sawReturn: true) : .inHeader
            case .inHeader:
                if byte == UInt8(ascii: "\n") { stage = .lineStart(sawReturn: false) }
            }
            offset += 1
        }
        return .incomplete
    }
}
#endif
