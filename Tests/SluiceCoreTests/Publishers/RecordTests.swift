import Foundation
import SluiceCore
import SluiceTesting
import Testing

@Suite("Record")
struct RecordTests {
    // MARK: Recording

    @Test func recordsInteractively() {
        let record = Record<Int, TestError> { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .failure(TestError(code: 4)))
        }
        #expect(record.recording.output == [1, 2])
        #expect(record.recording.completion == .failure(TestError(code: 4)))
    }

    @Test func aRecordingWithoutCompletionFinishes() {
        let record = Record<Int, Never> { $0.receive(1) }
        #expect(record.recording.completion == .finished)
        let subscriber = TestSubscriber<Int, Never>()
        record.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription([1])", "value(1)", "finished"])
    }

    @Test func recordingInitializers() {
        var recording = Record<String, Never>.Recording()
        #expect(recording.output.isEmpty)
        #expect(recording.completion == .finished)
        recording.receive("a")
        #expect(recording.output == ["a"])

        let complete = Record<String, TestError>.Recording(output: ["x", "y"])
        #expect(complete.output == ["x", "y"])
        #expect(complete.completion == .finished)

        let record = Record(recording: Record<String, TestError>.Recording(output: ["z"], completion: .failure(TestError())))
        #expect(record.recording.output == ["z"])
    }

    @Test func outputAfterCompletionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var recording = Record<Int, Never>.Recording()
            recording.receive(completion: .finished)
            recording.receive(1)
        }
    }

    @Test func aSecondCompletionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var recording = Record<Int, Never>.Recording(output: [1], completion: .finished)
            recording.receive(completion: .finished)
        }
    }

    // MARK: Playback

    @Test func replaysOutputThenCompletion() {
        let record = Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        let subscriber = TestSubscriber<Int, Never>()
        record.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription([1, 2, 3])", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func replaysAFailureAfterTheOutputWithoutFurtherDemand() {
        let record = Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(code: 9)))
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        record.subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .failure(TestError(code: 9)))
    }

    @Test func anEmptyRecordingCompletesOnSubscription() {
        let finished = Record<Int, Never>(output: [], completion: .finished)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        finished.subscribe(subscriber)
        #expect(subscriber.eventDescriptions == ["subscription(Empty)", "finished"])

        let failed = Record<Int, TestError>(output: [], completion: .failure(TestError()))
        let failing = TestSubscriber<Int, TestError>(initialDemand: .none)
        failed.subscribe(failing)
        #expect(failing.completion == .failure(TestError()))
    }

    @Test func honoursLimitedDemand() {
        let record = Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError()))
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        record.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .failure(TestError()))
    }

    @Test func honoursDemandReturnedFromReceive() {
        let record = Record<Int, Never>(output: Array(1...4), completion: .finished)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        record.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completion == .finished)
    }

    @Test func replaysToEverySubscriber() {
        let record = Record<Int, Never>(output: [5, 6], completion: .finished)
        for _ in 0..<3 {
            let subscriber = TestSubscriber<Int, Never>()
            record.subscribe(subscriber)
            #expect(subscriber.values == [5, 6])
            #expect(subscriber.completion == .finished)
        }
    }

    @Test func nothingArrivesAfterCancel() {
        let record = Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError()))
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        record.subscribe(subscriber)
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscription?.request(.unlimited)
        #expect(subscriber.eventDescriptions == ["subscription([1, 2, 3])", "value(1)"])
    }

    @Test func cancelFromInsideReceive() {
        let record = Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.onValue = { value, subscriber in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        record.subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == nil)
    }

    @Test func releasesTheSubscriber() {
        weak var completed: TestSubscriber<Int, Never>?
        weak var cancelled: TestSubscriber<Int, Never>?
        do {
            let record = Record<Int, Never>(output: [1, 2], completion: .finished)
            let first = TestSubscriber<Int, Never>()
            completed = first
            record.subscribe(first)
            let second = TestSubscriber<Int, Never>(initialDemand: .max(1))
            cancelled = second
            record.subscribe(second)
            second.cancel()
        }
        #expect(completed == nil)
        #expect(cancelled == nil)
    }

    // MARK: Contract

    @Test func theSubscriptionDescribesTheOutputThenCancelledEvents() {
        // As Apple's: the recorded output while live, "Cancelled Events" once finished or
        // cancelled; the mirror shows `sequence` (empty once ended) and `completion`.
        for cancel in [false, true] {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
            Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(code: 1))).subscribe(subscriber)
            let subscription = subscriber.subscription!
            #expect(String(describing: subscription) == "[1, 2]")
            let live = Array(Mirror(reflecting: subscription).children)
            #expect(live.map(\.label) == ["sequence", "completion"])
            #expect((live.first?.value as? [Int]) == [1, 2])
            if cancel { subscription.cancel() } else { subscription.request(.unlimited) }
            #expect(String(describing: subscription) == "Cancelled Events")
            #expect((Mirror(reflecting: subscription).children.first?.value as? [Int]) == [])
        }
    }

    @Test func zeroDemandIsIgnored() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(subscriber)
        subscriber.subscription!.request(.none)
        subscriber.subscription!.request(.max(1))
        #expect(subscriber.values == [1])
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { Record<Int, Never>(output: Array(1...5), completion: .finished) }
        try await PublisherContract.verify { Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(code: 1))) }
        try await PublisherContract.verify { Record<Int, TestError>(output: [], completion: .failure(TestError())) }
    }

    // MARK: Coding

    @Test func roundTripsThroughJSON() throws {
        let record = Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(code: 5)))
        let data = try JSONEncoder().encode(record)
        let decoded = try JSONDecoder().decode(Record<Int, TestError>.self, from: data)
        #expect(decoded.recording.output == [1, 2])
        #expect(decoded.recording.completion == .failure(TestError(code: 5)))

        let recording = Record<String, TestError>.Recording(output: ["a"], completion: .finished)
        let decodedRecording = try JSONDecoder().decode(
            Record<String, TestError>.Recording.self, from: JSONEncoder().encode(recording))
        #expect(decodedRecording.output == ["a"])
        #expect(decodedRecording.completion == .finished)
    }

    @Test func aDecodedRecordingIsComplete() async {
        await #expect(processExitsWith: .failure) {
            let data = try! JSONEncoder().encode(Record<Int, TestError>.Recording(output: [1]))
            var recording = try! JSONDecoder().decode(Record<Int, TestError>.Recording.self, from: data)
            recording.receive(2)
        }
    }
}
