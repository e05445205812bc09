import SluiceCore
import SluiceTimeline
import Testing

@Suite struct TimelineTests {
    /// `subject.map { $0 * 10 }.prefix(2).sink { }`, sent 1, 2, 3: the events, in order.
    private static func prefixPipeline() -> (TimelineRecording, [Int]) {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let recording = Timeline.record {
            let cancellable = subject.map { $0 * 10 }.prefix(2).sink { received.append($0) }
            subject.send(1)
            subject.send(2)
            subject.send(3)
            cancellable.cancel()
        }
        return (recording, received)
    }

    @Test func aSynchronousPipelineIsRecordedEventByEventInOrder() {
        let (recording, received) = Self.prefixPipeline()
        #expect(received == [10, 20])
        #expect(recording.lanes == [
            TimelineLane(id: 1, subscriber: "Sink", publisher: "Output"),
            TimelineLane(id: 2, subscriber: "Map", publisher: "PassthroughSubject"),
        ])
        let events = recording.events.map { "\($0.lane) \($0.kind)" }
        #expect(events == [
            "1 subscribe",  // the sink subscribes to prefix(2) (Publishers.Output)…
            "2 subscribe",  // …which has map's subscriber subscribe to the subject
            "1 request(unlimited)",
            "2 request(unlimited)",
            "2 value(\"1\")",  // the subject's value reaches map…
            "1 value(\"10\")",  // …and its result the sink
            "2 value(\"2\")",
            "1 value(\"20\")",
            "2 cancel",  // prefix(2) has its two values: it cancels upstream…
            "1 completion(\"finished\")",  // …and finishes the sink; 3 is sent to no one
        ])
        #expect(recording.dropped == 0)
        #expect(Set(recording.events.map(\.thread)) == [1])
    }

    @Test func timesRunForwardFromTheStart() {
        let (recording, _) = Self.prefixPipeline()
        let times = recording.events.map(\.time)
        #expect(times.first.map { $0 >= .zero } == true)
        #expect(times == times.sorted())
    }

    @Test func demandAndReturnedDemandAreRecorded() {
        let recording = Timeline.record {
            let subscriber = AnySubscriber<Int, Never>(
                receiveSubscription: { $0.request(.max(2)) },
                receiveValue: { $0 == 1 ? .max(1) : .none },
                receiveCompletion: nil)
            [1, 2, 3, 4].publisher.subscribe(subscriber)
        }
        let kinds = recording.events.map(\.kind)
        #expect(kinds == [
            .subscribe, .request(.max(2)), .value("1"), .returnedDemand(.max(1)), .value("2"), .value("3"),
        ])
    }

    @Test func aFullRingKeepsTheLatestEventsAndCountsTheRest() {
        let recording = Timeline.record(capacity: 4) {
            _ = [1, 2, 3, 4, 5, 6].publisher.sink { _ in }
        }
        // subscribe, request, six values, finished: nine events, the last four kept.
        #expect(recording.dropped == 5)
        #expect(recording.events.map(\.kind) == [.value("4"), .value("5"), .value("6"), .completion("finished")])
    }

    @Test func subscriptionsMadeOutsideTheBodyAreNotRecorded() {
        let subject = PassthroughSubject<Int, Never>()
        let before = subject.sink { _ in }
        let recording = Timeline.record {
            subject.send(1)
        }
        #expect(recording.lanes.isEmpty)
        #expect(recording.events.isEmpty)
        before.cancel()
    }

    @Test func aCurrentTaskTimelineStartedDirectlyRecordsNothing() {
        let timeline = Timeline(scope: .currentTask)
        #expect(!timeline.isRecording)
        // A `.currentTask` timeline started directly sees no task of its own: nothing is recorded.
        timeline.start()
        #expect(timeline.isRecording)
        _ = Just(1).sink { _ in }
        timeline.stop()
        #expect(!timeline.isRecording)
        #expect(timeline.recording.events.isEmpty)
    }

    @Test func aProcessTimelineRecordsWhatItsProgramSubscribes() async throws {
        let timeline = Timeline(scope: .process)
        timeline.start()
        let subject = PassthroughSubject<String, Never>()
        let cancellable = subject.sink { _ in }
        subject.send("hello, timeline")
        cancellable.cancel()
        timeline.stop()
        subject.send("after the stop")
        // Other tests may subscribe meanwhile: look for this pipeline's lane among them.
        let recording = timeline.recording
        let lane = try #require(recording.lanes.first { lane in
            recording.events(ofLane: lane.id).contains { $0.kind == .value("hello, timeline") }
        })
        #expect(lane.subscriber == "Sink" && lane.publisher == "PassthroughSubject")
        #expect(recording.events(ofLane: lane.id).map(\.kind) == [
            .subscribe, .request(.unlimited), .value("hello, timeline"), .cancel,
        ])
    }

    @Test func anAsynchronousBodyIsRecordedAcrossItsAwaits() async {
        let recording = await Timeline.record {
            await Task.yield()
            _ = Just(1).sink { _ in }
        }
        #expect(recording.events.map(\.kind) == [.subscribe, .request(.unlimited), .value("1"), .completion("finished")])
    }
}
