import SluiceCore
import SluiceTesting
import Testing

private struct Boom: Error, Equatable {}

@Suite struct MarbleDiagramTests {
    typealias Scheduler = TestScheduler<VirtualTime, Never>
    let tick = VirtualTime.Stride.milliseconds(10)

    @Test func readsFramesValuesGroupsAndCompletions() {
        let diagram = MarbleDiagram<Int, Boom>(" -a-(bc)--#", values: ["a": 1, "b": 2, "c": 3], error: Boom())
        #expect(diagram.frameCount == 7)
        #expect(diagram.events.map(\.frame) == [1, 3, 3, 6])
        guard case .value(1) = diagram.events[0].event, case .value(3) = diagram.events[2].event,
              case .completion(.failure(Boom())) = diagram.events[3].event else {
            Issue.record("unexpected events \(diagram.events)")
            return
        }
    }

    @Test func theCaretMarksFrameZeroOfAHotDiagram() {
        let diagram = MarbleDiagram<String, Never>("a-b^-c|")
        #expect(diagram.events.map(\.frame) == [2, 3])   // a and b have already happened
        #expect(diagram.frameCount == 4)
    }

    @Test func stringAndCharacterValuesNeedNoDictionary() {
        #expect(MarbleDiagram<Character, Never>("xy").events.count == 2)
        guard case .value("x") = MarbleDiagram<String, Never>("x").events[0].event else {
            Issue.record("x should stand for itself")
            return
        }
    }

    @Test func aColdPublisherStartsItsTimelineForEachSubscriber() {
        let scheduler = Scheduler()
        let source: AnyPublisher<String, Never> = scheduler.coldPublisher("-a-b|", tick: tick)
        let first = TestSubscriber<String, Never>()
        source.subscribe(first)
        scheduler.advance(by: .milliseconds(20))
        let second = TestSubscriber<String, Never>()
        source.subscribe(second)
        scheduler.advance(by: .milliseconds(100))
        #expect(first.values == ["a", "b"])
        #expect(second.values == ["a", "b"])
        #expect(first.completion == .finished && second.completion == .finished)
    }

    @Test func aColdPublisherHoldsValuesUntilDemand() {
        let scheduler = Scheduler()
        let source: AnyPublisher<String, Never> = scheduler.coldPublisher("ab|", tick: tick)
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1))
        source.subscribe(subscriber)
        scheduler.advance(by: .milliseconds(50))
        #expect(subscriber.values == ["a"])
        #expect(subscriber.completion == nil)          // the completion waits behind "b"
        subscriber.request(.max(1))
        #expect(subscriber.values == ["a", "b"])
        #expect(subscriber.completion == .finished)
    }

    @Test func cancellingAColdPublisherStopsIt() {
        let scheduler = Scheduler()
        let source: AnyPublisher<String, Never> = scheduler.coldPublisher("a-b-c|", tick: tick)
        let subscriber = TestSubscriber<String, Never>()
        source.subscribe(subscriber)
        scheduler.advance(by: tick)
        subscriber.cancel()
        scheduler.run()
        #expect(subscriber.values == ["a"])
        #expect(subscriber.completion == nil)
    }

    @Test func aHotPublisherRunsWhetherOrNotAnyoneListens() {
        let scheduler = Scheduler()
        let source: AnyPublisher<String, Never> = scheduler.hotPublisher("a-b-c|", tick: tick)
        scheduler.advance(by: .milliseconds(20))                // "a" and "b" go by unseen
        let late = TestSubscriber<String, Never>()
        source.subscribe(late)
        scheduler.advance(by: .milliseconds(100))
        #expect(late.values == ["c"])
        #expect(late.completion == .finished)
    }

    @Test func recordsWhatAPublisherDoesAsADiagram() {
        let scheduler = Scheduler()
        let source = scheduler.coldPublisher("-a-b-(cd)|", values: ["a": 1, "b": 2, "c": 3, "d": 4], error: Boom(), tick: tick)
        #expect(scheduler.marbles(of: source, frames: 10, values: ["a": 1, "b": 2, "c": 3, "d": 4], tick: tick) == "-a-b-(cd)|")
        let together = scheduler.coldPublisher("-(ab|)", values: ["a": 1, "b": 2], error: Boom(), tick: tick)
        #expect(scheduler.marbles(of: together, frames: 10, values: ["a": 1, "b": 2], tick: tick) == "-(ab|)")
        let failing = scheduler.coldPublisher("--#", values: [Character: Int](), error: Boom(), tick: tick)
        #expect(scheduler.marbles(of: failing, frames: 5, tick: tick) == "--#")
        let silent: AnyPublisher<Int, Never> = Empty(completeImmediately: false).eraseToAnyPublisher()
        #expect(scheduler.marbles(of: silent, frames: 4, tick: tick) == "----")
    }

    @Test func expectPassesOnTheSameEventsAndShowsBothDiagramsOtherwise() throws {
        let scheduler = Scheduler()
        let source: AnyPublisher<String, Never> = scheduler.coldPublisher("-a--b|", tick: tick)
        try scheduler.expect(source.map { $0.uppercased() }, emits: "-A--B|", tick: tick)
        do {
            try scheduler.expect(source, emits: "-a-b|", tick: tick)
            Issue.record("a mismatch should throw")
        } catch {
            #expect(error.expected == "-a-b|")
            #expect(error.actual == "-a--b")           // recorded over the expected diagram's frames
            #expect(error.description.contains("expected: -a-b|"))
            #expect(error.description.contains("actual:   -a--b"))
            #expect(error.description.contains("from character 3"))
        }
    }

    // Time-based operators, written as marbles.

    @Test func debounceInMarbles() throws {
        let scheduler = Scheduler()
        let typing: AnyPublisher<String, Never> = scheduler.hotPublisher("-a-b-----c---|", tick: tick)
        try scheduler.expect(typing.debounce(for: .milliseconds(30), scheduler: scheduler),
                             emits: "------b-----c|", tick: tick)
    }

    @Test func throttleInMarbles() throws {
        let scheduler = Scheduler()
        let source: AnyPublisher<String, Never> = scheduler.hotPublisher("abcd----e-|", tick: tick)
        try scheduler.expect(source.throttle(for: .milliseconds(30), scheduler: scheduler, latest: true),
                             emits: "a--d----e-|", tick: tick)
        let again: AnyPublisher<String, Never> = scheduler.hotPublisher("abcd----e-|", tick: tick)
        try scheduler.expect(again.throttle(for: .milliseconds(30), scheduler: scheduler, latest: false),
                             emits: "a--b----e-|", tick: tick)
    }

    @Test func delayInMarbles() throws {
        let scheduler = Scheduler()
        let source: AnyPublisher<String, Never> = scheduler.coldPublisher("a-b|", tick: tick)
        try scheduler.expect(source.delay(for: .milliseconds(20), scheduler: scheduler), emits: "--a-b|", tick: tick)
    }

    @Test func timeoutInMarbles() throws {
        let scheduler = Scheduler()
        let source = scheduler.coldPublisher("a----b|", values: [Character: String](), error: Boom(), tick: tick)
        try scheduler.expect(source.timeout(.milliseconds(30), scheduler: scheduler, customError: { Boom() }),
                             emits: "a--#", error: Boom(), tick: tick)
    }
}
