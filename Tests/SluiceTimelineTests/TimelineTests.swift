import SluiceCore
import SluiceTimeline
import Testing

/// A recording timeline is process-wide state (the `_Introspection` hook puts forwarding objects in
/// front of every subscription made meanwhile): each test runs in a child process of its own (an
/// exit test), so that it cannot affect tests running in parallel. Inside, `precondition` failures
/// make the child exit with a failure.
@Suite struct TimelineTests {
    @Test func aSynchronousPipelineIsRecordedEventByEventInOrder() async {
        await #expect(processExitsWith: .success) {
            let subject = PassthroughSubject<Int, Never>()
            var received: [Int] = []
            let recording = Timeline.record {
                let cancellable = subject.map { $0 * 10 }.prefix(2).sink { received.append($0) }
                subject.send(1)
                subject.send(2)
                subject.send(3)
                cancellable.cancel()
            }
            precondition(received == [10, 20], "\(received)")
            precondition(recording.lanes == [
                TimelineLane(id: 1, subscriber: "Sink", publisher: "Output"),
                TimelineLane(id: 2, subscriber: "Output", publisher: "Map"),
                TimelineLane(id: 3, subscriber: "Map", publisher: "PassthroughSubject"),
            ], "\(recording.lanes)")
            let events = recording.events.map { "\($0.lane) \($0.kind)" }
            precondition(events == [
                "1 subscribe",  // the sink subscribes to prefix(2) (Publishers.Output)…
                "2 subscribe",  // …which subscribes to map…
                "3 subscribe",  // …which has its subscriber subscribe to the subject
                "1 request(unlimited)",
                "2 request(unlimited)",  // map passes the subject's subscription on: no request of its own
                "3 value(\"1\")",  // the subject's value reaches map…
                "2 value(\"10\")",  // …its result prefix(2)…
                "1 value(\"10\")",  // …and the sink
                "3 value(\"2\")",
                "2 value(\"20\")",
                "1 value(\"20\")",
                "2 cancel",  // prefix(2) has its two values: it cancels upstream…
                "1 completion(\"finished\")",  // …and finishes the sink; 3 is sent to no one
            ], "\(events)")
            precondition(recording.dropped == 0)
            precondition(Set(recording.events.map(\.thread)) == [1])
            let times = recording.events.map(\.time)
            precondition(times.allSatisfy { $0 >= .zero } && times == times.sorted(), "\(times)")
        }
    }

    @Test func demandAndReturnedDemandAreRecorded() async {
        await #expect(processExitsWith: .success) {
            let recording = Timeline.record {
                let subscriber = AnySubscriber<Int, Never>(
                    receiveSubscription: { $0.request(.max(2)) },
                    receiveValue: { $0 == 1 ? .max(1) : .none },
                    receiveCompletion: nil)
                [1, 2, 3, 4].publisher.subscribe(subscriber)
            }
            let kinds = recording.events.map(\.kind)
            precondition(kinds == [
                .subscribe, .request(.max(2)), .value("1"), .returnedDemand(.max(1)), .value("2"), .value("3"),
            ], "\(kinds)")
        }
    }

    @Test func aFullRingKeepsTheLatestEventsAndCountsTheRest() async {
        await #expect(processExitsWith: .success) {
            let recording = Timeline.record(capacity: 4) {
                _ = [1, 2, 3, 4, 5, 6].publisher.sink { _ in }
            }
            // subscribe, request, six values, finished: nine events, the last four kept.
            precondition(recording.dropped == 5, "\(recording.dropped)")
            precondition(recording.events.map(\.kind) == [
                .value("4"), .value("5"), .value("6"), .completion("finished"),
            ], "\(recording.events)")
        }
    }

    @Test func subscriptionsMadeOutsideTheBodyAreNotRecorded() async {
        await #expect(processExitsWith: .success) {
            let subject = PassthroughSubject<Int, Never>()
            let before = subject.sink { _ in }
            let recording = Timeline.record {
                subject.send(1)
            }
            precondition(recording.lanes.isEmpty && recording.events.isEmpty, "\(recording)")
            before.cancel()
        }
    }

    @Test func aCurrentTaskTimelineStartedDirectlyRecordsNothing() async {
        await #expect(processExitsWith: .success) {
            let timeline = Timeline(scope: .currentTask)
            precondition(!timeline.isRecording)
            // Started outside `record`, it has no task of its own: nothing is recorded.
            timeline.start()
            precondition(timeline.isRecording)
            _ = Just(1).sink { _ in }
            timeline.stop()
            precondition(!timeline.isRecording)
            precondition(timeline.recording.events.isEmpty, "\(timeline.recording)")
        }
    }

    @Test func aProcessTimelineRecordsWhatItsProgramSubscribesUntilStopped() async {
        await #expect(processExitsWith: .success) {
            let timeline = Timeline(scope: .process)
            timeline.start()
            let subject = PassthroughSubject<String, Never>()
            let cancellable = subject.sink { _ in }
            subject.send("hello, timeline")
            timeline.stop()
            subject.send("after the stop")
            cancellable.cancel()
            let recording = timeline.recording
            precondition(recording.lanes == [TimelineLane(id: 1, subscriber: "Sink", publisher: "PassthroughSubject")],
                         "\(recording.lanes)")
            precondition(recording.events.map(\.kind) == [.subscribe, .request(.unlimited), .value("hello, timeline")],
                         "\(recording.events)")
        }
    }

    @Test func anAsynchronousBodyIsRecordedAcrossItsAwaits() async {
        await #expect(processExitsWith: .success) {
            let recording = await Timeline.record {
                await Task.yield()
                _ = Just(1).sink { _ in }
            }
            precondition(recording.events.map(\.kind) == [
                .subscribe, .request(.unlimited), .value("1"), .completion("finished"),
            ], "\(recording.events)")
        }
    }
}
