import SluiceEventSource
import Testing

/// What a parser makes of a whole stream: its events, and its state at the end.
private struct Parsed: Equatable, CustomStringConvertible {
    var messages: [EventSource.Message] = []
    var lastEventID = ""
    var reconnectionTime: Int?

    var description: String { "\(messages) lastEventID: \(lastEventID) retry: \(reconnectionTime.map(String.init) ?? "nil")" }
}

/// Parses `chunks` in order, taking the events after each chunk.
private func parse(_ chunks: [[UInt8]]) -> Parsed {
    var parser = EventStreamParser()
    var parsed = Parsed()
    for chunk in chunks {
        parser.append(chunk)
        while let message = parser.next() { parsed.messages.append(message) }
    }
    parsed.lastEventID = parser.lastEventID
    parsed.reconnectionTime = parser.reconnectionTime
    return parsed
}

/// The stream parsed whole, and checks that it parses the same split in two at every byte
/// boundary, and one byte at a time.
private func parseEverySplit(_ stream: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Parsed {
    let whole = parse([stream])
    for split in 0...stream.count {
        let parsed = parse([Array(stream[..<split]), Array(stream[split...])])
        #expect(parsed == whole, "split at byte \(split)", sourceLocation: sourceLocation)
    }
    #expect(parse(stream.map { [$0] }) == whole, "one byte at a time", sourceLocation: sourceLocation)
    return whole
}

private func parseEverySplit(_ stream: String, sourceLocation: SourceLocation = #_sourceLocation) -> Parsed {
    parseEverySplit(Array(stream.utf8), sourceLocation: sourceLocation)
}

private func message(_ data: String, id: String = "", event: String = "message", retry: Int? = nil) -> EventSource.Message {
    EventSource.Message(id: id, event: event, data: data, retry: retry)
}

@Suite("EventStreamParser")
struct EventStreamParserTests {
    // The four examples of the standard's "Event stream interpretation".

    @Test func theStandardsFirstExampleJoinsDataLinesWithLineFeeds() {
        let parsed = parseEverySplit("data: YHOO\ndata: +2\ndata: 10\n\n")
        #expect(parsed.messages == [message("YHOO\n+2\n10")])
    }

    @Test func theStandardsSecondExampleKeepsAndClearsTheLastEventID() {
        let parsed = parseEverySplit(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n")
        #expect(parsed.messages == [message("first event", id: "1"), message("second event"), message(" third event")])
        #expect(parsed.lastEventID == "")
    }

    @Test func theStandardsThirdExampleDispatchesEmptyDataAndDiscardsTheUnfinishedEvent() {
        let parsed = parseEverySplit("data\n\ndata\ndata\n\ndata:")
        #expect(parsed.messages == [message(""), message("\n")])
    }

    @Test func theStandardsFourthExampleStripsOneSpaceOnly() {
        let parsed = parseEverySplit("data:test\n\ndata: test\n\n")
        #expect(parsed.messages == [message("test"), message("test")])
    }

    // Line ends.

    @Test func carriageReturnLineFeedAndBothEndLines() {
        let parsed = parseEverySplit("data: a\rdata: b\ndata: c\r\n\revent: e\r\ndata: d\r\n\r\nid: 9\n\n")
        #expect(parsed.messages == [message("a\nb\nc"), message("d", event: "e")])
        #expect(parsed.lastEventID == "9")
    }

    @Test func aCarriageReturnAtAChunksEndAndALineFeedAtTheNextsStartAreOneLineEnd() {
        let parsed = parse([Array("data: a\r".utf8), Array("\ndata: b\r".utf8), Array("\n\r".utf8), Array("\n".utf8)])
        #expect(parsed.messages == [message("a\nb")])
        // Two CRs are two line ends: the second is the blank line.
        #expect(parse([Array("data: a\r".utf8), Array("\r".utf8)]).messages == [message("a")])
    }

    // Byte order mark and decoding.

    @Test func aLeadingByteOrderMarkIsSkippedOnce() {
        let parsed = parseEverySplit([0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8))
        #expect(parsed.messages == [message("a")])
        // A second mark is part of the first line: the field "\u{FEFF}data" is unknown.
        let twice = parseEverySplit([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: a\n\ndata: b\n\n".utf8))
        #expect(twice.messages == [message("b")])
        // A mark later in the stream is data.
        let later = parseEverySplit(Array("data: ".utf8) + [0xEF, 0xBB, 0xBF] + Array("x\n\n".utf8))
        #expect(later.messages == [message("\u{FEFF}x")])
    }

    @Test func linesAreDecodedAsUTF8WithReplacementCharacters() {
        let parsed = parseEverySplit(Array("data: caf\u{E9} \u{1F30A}\n\ndata: ".utf8) + [0xC3, 0x28, 0xFF] + Array("\n\n".utf8))
        #expect(parsed.messages == [message("caf\u{E9} \u{1F30A}"), message("\u{FFFD}(\u{FFFD}")])
    }

    // Fields.

    @Test func commentsAreIgnored() {
        let parsed = parseEverySplit(":\n: heartbeat\n:data: no\ndata: yes\n:\n\n")
        #expect(parsed.messages == [message("yes")])
    }

    @Test func aLineWithoutAColonIsAFieldWithAnEmptyValue() {
        let parsed = parseEverySplit("data: x\nevent\ndata\n\nid: 4\nid\ndata: y\n\n")
        #expect(parsed.messages == [message("x\n"), message("y")])
        #expect(parsed.lastEventID == "")
    }

    @Test func onlyOneLeadingSpaceIsStripped() {
        let parsed = parseEverySplit("data:  two\nevent:  spaced\n\ndata:\ttab\n\ndata: \n\n")
        #expect(parsed.messages == [message(" two", event: " spaced"), message("\ttab"), message("")])
    }

    @Test func theValueIsWhatFollowsTheFirstColon() {
        let parsed = parseEverySplit("data: a:b: c\nid: 1:2\n\n")
        #expect(parsed.messages == [message("a:b: c", id: "1:2")])
    }

    @Test func anIdContainingNullIsIgnored() {
        let parsed = parseEverySplit("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n")
        #expect(parsed.messages == [message("a", id: "1"), message("b", id: "1")])
        #expect(parsed.lastEventID == "1")
    }

    @Test func theLastEventIDMovesAtABlankLineEvenWithoutData() {
        let parsed = parseEverySplit("id: 7\n\n")
        #expect(parsed.messages.isEmpty)
        #expect(parsed.lastEventID == "7")
        let later = parseEverySplit("id: 7\n\ndata: x\n\n")
        #expect(later.messages == [message("x", id: "7")])
    }

    @Test func anEventTypeWithoutDataIsForgottenAtTheBlankLine() {
        let parsed = parseEverySplit("event: ping\n\ndata: x\n\nevent: named\ndata: y\n\ndata: z\n\n")
        #expect(parsed.messages == [message("x"), message("y", event: "named"), message("z")])
    }

    @Test func unknownFieldsAreIgnored() {
        let parsed = parseEverySplit("foo: bar\nDATA: no\nData: no\ndata: yes\n\n")
        #expect(parsed.messages == [message("yes")])
    }

    @Test func retryTakesOnlyASCIIDigits() {
        #expect(parseEverySplit("retry: 1500\n\n").reconnectionTime == 1500)
        #expect(parseEverySplit("retry:0\n\n").reconnectionTime == 0)
        for ignored in ["retry: 10x\n", "retry: -1\n", "retry: 1.5\n", "retry: \n", "retry\n", "retry:  5\n", "retry: +5\n",
                        "retry: \u{0661}\n", "retry: 99999999999999999999999\n"] {
            #expect(parseEverySplit(ignored + "\n").reconnectionTime == nil, "\(ignored.debugDescription)")
        }
        // An invalid value leaves the previous one.
        #expect(parseEverySplit("retry: 20\n\nretry: x\n\n").reconnectionTime == 20)
    }

    @Test func retryIsAppliedWithoutAnEventAndReportedWithOne() {
        let parsed = parseEverySplit("retry: 30\n\nretry: 40\ndata: a\n\ndata: b\n\n")
        #expect(parsed.messages == [message("a", retry: 40), message("b")])
        #expect(parsed.reconnectionTime == 40)
    }

    @Test func anUnfinishedEventAtTheEndIsNeverReturned() {
        let parsed = parseEverySplit("id: 1\ndata: a\n\nid: 2\ndata: b\n")
        #expect(parsed.messages == [message("a", id: "1")])
        #expect(parsed.lastEventID == "1")   // the unfinished event's id does not count
    }

    @Test func aParserStartedWithALastEventIDCarriesItOn() {
        var parser = EventStreamParser(lastEventID: "k3j2h1g0f9e8-42")
        parser.append(Array("data: a\n\n".utf8))
        #expect(parser.next() == message("a", id: "k3j2h1g0f9e8-42"))
        #expect(parser.lastEventID == "k3j2h1g0f9e8-42")
    }

    @Test func eventsAreParsedOnlyAsTheyAreTaken() {
        var parser = EventStreamParser()
        parser.append(Array("id: 1\ndata: a\n\nid: 2\ndata: b\n\n".utf8))
        #expect(parser.next()?.data == "a")
        #expect(parser.lastEventID == "1")
        #expect(parser.hasUnparsedBytes)
        #expect(parser.next()?.data == "b")
        #expect(parser.lastEventID == "2")
        #expect(parser.next() == nil)
        #expect(!parser.hasUnparsedBytes)
    }

    @Test func aSluiceFeedsFramesParse() {
        let parsed = parseEverySplit("retry: 3000\n\n: heartbeat\n\nid: k3j2h1g0f9e8-42\nevent: price\ndata: {\"p\":1}\n\nevent: dropped\ndata: {\"dropped\":3}\n\n")
        #expect(parsed.messages == [message("{\"p\":1}", id: "k3j2h1g0f9e8-42", event: "price"),
                                    message("{\"dropped\":3}", id: "k3j2h1g0f9e8-42", event: "dropped")])
        #expect(parsed.reconnectionTime == 3000)
    }
}
