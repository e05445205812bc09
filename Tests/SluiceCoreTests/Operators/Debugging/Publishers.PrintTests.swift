import SluiceCore
import SluiceTesting
import Testing

/// Collects printed text.
private final class Lines: TextOutputStream {
    var text = ""
    func write(_ string: String) { text += string }
}

/// A reference-semantics stream, so the test can read what `print` wrote.
private struct Capture: TextOutputStream {
    let lines: Lines
    mutating func write(_ string: String) { lines.write(string) }
}

@Suite("Publishers.Print")
struct PrintTests {
    @Test func linesForJust() {
        let lines = Lines()
        let subscriber = TestSubscriber<Int, Never>()
        Just(1).print(to: Capture(lines: lines)).subscribe(subscriber)
        #expect(lines.text == """
            receive subscription: (Just)
            request unlimited
            receive value: (1)
            receive finished

            """)
        #expect(subscriber.eventDescriptions == ["subscription(Print)", "value(1)", "finished"])
    }

    @Test func prefixDemandErrorAndCancel() {
        let lines = Lines()
        let upstream = ManualPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.print("p", to: Capture(lines: lines)).subscribe(subscriber)
        upstream.send(7)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(lines.text == """
            p: receive subscription: (ManualSubscription)
            p: request max: (1)
            p: receive value: (7)
            p: request max: (2) (synchronous)
            p: receive error: (TestError(code: 1))

            """)
        let cancelled = Lines()
        let other = ManualPublisher<Int, Never>()
        let cancelling = TestSubscriber<Int, Never>()
        other.print(to: Capture(lines: cancelled)).subscribe(cancelling)
        cancelling.cancel()
        #expect(cancelled.text.hasSuffix("receive cancel\n"))
        #expect(other.subscription.cancelCount == 1)
    }

    @Test func writesEachLineAsSwiftPrintDoes() {
        // As Apple's: three writes per line — an empty string, the line, the newline.
        final class Writes: TextOutputStream {
            var parts: [String] = []
            func write(_ string: String) { parts.append(string) }
        }
        struct Stream: TextOutputStream {
            let writes: Writes
            mutating func write(_ string: String) { writes.write(string) }
        }
        let writes = Writes()
        Just(1).print("x", to: Stream(writes: writes)).subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        #expect(writes.parts == ["", "x: receive subscription: (Just)", "\n"])
    }

    @Test func describedAsPrintWithAnEmptyMirror() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        ManualPublisher<Int, Never>().print(to: Capture(lines: Lines())).subscribe(subscriber)
        #expect(String(describing: subscriber.subscription!) == "Print")
        #expect(Mirror(reflecting: subscriber.subscription!).children.isEmpty)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...5).publisher.eraseToAnyPublisher().print(to: Capture(lines: Lines())) }
    }

    // Apple's print logs a request and a cancel that arrive after the completion, and passes them
    // on to the upstream subscription.
    @Test func logsAndPassesOnARequestAndACancelAfterTheCompletion() throws {
        let lines = Lines()
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.print(to: Capture(lines: lines)).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        upstream.send(completion: .finished)
        subscription.request(.max(3))
        subscription.cancel()
        #expect(lines.text == """
            receive subscription: (ManualSubscription)
            request max: (1)
            receive finished
            request max: (3)
            receive cancel

            """)
        #expect(upstream.subscription.requests == [.max(1), .max(3)])
        #expect(upstream.subscription.cancelCount == 1)
        #expect(subscriber.eventDescriptions == ["subscription(Print)", "finished"])
    }

    // Apple's print logs every request and cancel, those after a cancel too; after the cancel it
    // passes nothing on.
    @Test func logsARequestAndACancelAfterACancelAndPassesThemNowhere() throws {
        let lines = Lines()
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.print(to: Capture(lines: lines)).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        subscription.request(.max(1))
        subscription.cancel()
        #expect(lines.text == """
            receive subscription: (ManualSubscription)
            receive cancel
            request max: (1)
            receive cancel

            """)
        #expect(upstream.subscription.requests.isEmpty)
        #expect(upstream.subscription.cancelCount == 1)
    }

    @Test func types() {
        let subject = PassthroughSubject<Int, Never>()
        let printed = subject.print("x")
        #expect(type(of: printed) == Publishers.Print<PassthroughSubject<Int, Never>>.self)
        #expect(printed.prefix == "x")
    }
}

/// Transcripts that Apple's Combine is widely observed to print (playground output published with
/// its book examples), reproduced line for line.
extension PrintTests {
    @Test func matchesCombinesTranscriptForOutputAt() {
        let lines = Lines()
        let subscriber = TestSubscriber<String, Never>()
        ["A", "B", "C"].publisher.print("publisher", to: Capture(lines: lines)).output(at: 1).subscribe(subscriber)
        #expect(subscriber.values == ["B"])
        #expect(lines.text == """
            publisher: receive subscription: (["A", "B", "C"])
            publisher: request unlimited
            publisher: receive value: (A)
            publisher: request max: (1) (synchronous)
            publisher: receive value: (B)
            publisher: receive cancel

            """)
    }

    @Test func matchesCombinesTranscriptForRemoveDuplicates() {
        let lines = Lines()
        let subscriber = TestSubscriber<String, Never>()
        ["one", "two", "three", "three", "four"].publisher.print("sb", to: Capture(lines: lines))
            .removeDuplicates().subscribe(subscriber)
        #expect(subscriber.values == ["one", "two", "three", "four"])
        #expect(lines.text == """
            sb: receive subscription: (["one", "two", "three", "three", "four"])
            sb: request unlimited
            sb: receive value: (one)
            sb: receive value: (two)
            sb: receive value: (three)
            sb: receive value: (three)
            sb: request max: (1) (synchronous)
            sb: receive value: (four)
            sb: receive finished

            """)
    }

    @Test func matchesCombinesTranscriptForAFusedReduce() {
        let lines = Lines()
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2, 3, 4].publisher.reduce(0, +).print(to: Capture(lines: lines)).subscribe(subscriber)
        #expect(lines.text == """
            receive subscription: (Once)
            request unlimited
            receive value: (10)
            receive finished

            """)
    }
}
