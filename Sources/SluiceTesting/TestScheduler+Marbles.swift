import SluiceCore

extension TestScheduler {
    /// A publisher that plays `diagram` (see ``MarbleDiagram``) for each subscriber, from the
    /// moment it subscribes, one frame every `tick` of this scheduler's time.
    ///
    /// Cold: every subscription gets the whole timeline of its own. It honours demand: a value
    /// whose frame comes while the subscriber has no demand waits, in order, until demand arrives
    /// (the completion waits behind it).
    public func coldPublisher<Output, Failure: Error>(
        _ diagram: String, values: [Character: Output] = [:], error: Failure? = nil, tick: SchedulerTimeType.Stride
    ) -> AnyPublisher<Output, Failure> {
        let timeline = MarbleDiagram(diagram, values: values, error: error)
        return Deferred { [self] in
            let player = MarblePlayer<Output, Failure>()
            schedule(timeline, tick: tick) { player.play($0) }
            return player
        }.eraseToAnyPublisher()
    }

    /// A publisher that plays `diagram` (see ``MarbleDiagram``) once, starting now, one frame
    /// every `tick`, whoever is subscribed: a subscriber sees only what happens after it
    /// subscribes, and a value that finds it without demand is dropped (a `PassthroughSubject`
    /// plays it). Events before a `^` in the diagram have already happened.
    public func hotPublisher<Output, Failure: Error>(
        _ diagram: String, values: [Character: Output] = [:], error: Failure? = nil, tick: SchedulerTimeType.Stride
    ) -> AnyPublisher<Output, Failure> {
        let timeline = MarbleDiagram(diagram, values: values, error: error)
        let subject = PassthroughSubject<Output, Failure>()
        schedule(timeline, tick: tick) { event in
            switch event {
            case .value(let value): subject.send(value)
            case .completion(let completion): subject.send(completion: completion)
            }
        }
        return subject.eraseToAnyPublisher()
    }

    /// Schedules `play` for each event of `timeline` at its frame: frame 0 now, one `tick` a frame.
    private func schedule<Output, Failure: Error>(
        _ timeline: MarbleDiagram<Output, Failure>, tick: SchedulerTimeType.Stride,
        _ play: @escaping (MarbleDiagram<Output, Failure>.Event) -> Void
    ) {
        var date = now
        var frame = 0
        for (eventFrame, event) in timeline.events {
            while frame < eventFrame {
                date = date.advanced(by: tick)
                frame += 1
            }
            schedule(after: date, tolerance: .zero, options: nil) { play(event) }
        }
    }

    /// Subscribes to `publisher` now with unlimited demand, moves the clock `frames` frames of
    /// `tick` (frame 0 is now), and writes what it saw as a marble diagram (see ``MarbleDiagram``):
    /// values as their keys in `values` (or as themselves when one character long), `|` and `#`
    /// for the completions, nothing after a completion. The subscription is cancelled at the end.
    public func marbles<P: Publisher>(
        of publisher: P, frames: Int, values: [Character: P.Output] = [:], tick: SchedulerTimeType.Stride
    ) -> String where P.Output: Equatable {
        marbles(of: [publisher], frames: frames, values: values, tick: tick)[0]
    }

    /// Subscribes to each of `publishers` now, in order, with unlimited demand, moves the clock
    /// `frames` frames of `tick` (frame 0 is now), and writes what each saw as a marble diagram,
    /// as ``marbles(of:frames:values:tick:)->String`` does for one: one run, so publishers that share
    /// state (subscribers of one `share()`, say) are drawn on one time axis. The subscriptions are
    /// cancelled at the end.
    public func marbles<P: Publisher>(
        of publishers: [P], frames: Int, values: [Character: P.Output] = [:], tick: SchedulerTimeType.Stride
    ) -> [String] where P.Output: Equatable {
        let recorders = publishers.map { _ in TestSubscriber<P.Output, P.Failure>() }
        var seen = Array(repeating: 0, count: publishers.count)
        var timelines = Array(repeating: [[MarbleDiagram<P.Output, P.Failure>.Event]](), count: publishers.count)
        var date = now
        for (publisher, recorder) in zip(publishers, recorders) { publisher.subscribe(recorder) }
        for frame in 0..<max(frames, 1) {
            if frame > 0 { date = date.advanced(by: tick) }
            advance(to: date)
            for (index, recorder) in recorders.enumerated() {
                let events = recorder.events
                timelines[index].append(events[seen[index]...].compactMap { event in
                    switch event {
                    case .value(let value): .value(value)
                    case .completion(let completion): .completion(completion)
                    case .subscription: nil
                    }
                })
                seen[index] = events.count
            }
            if recorders.allSatisfy({ $0.completion != nil }) { break }
        }
        recorders.forEach { $0.cancel() }
        return timelines.map { MarbleDiagram<P.Output, P.Failure>.render(frames: $0, values: values) }
    }

    /// Checks that `publisher`, subscribed now with unlimited demand, produces the events of
    /// `diagram` (see ``MarbleDiagram``) frame by frame, one frame every `tick`; throws a
    /// ``MarbleMismatch`` that shows both diagrams when it does not.
    ///
    /// ```swift
    /// let scheduler = TestScheduler<VirtualTime, Never>()
    /// let typing = scheduler.hotPublisher("-a-b-----c---|", tick: .milliseconds(100)) as AnyPublisher<String, Never>
    /// try scheduler.expect(typing.debounce(for: .milliseconds(300), scheduler: scheduler),
    ///                      emits: "------b-----c|", tick: .milliseconds(100))
    /// ```
    public func expect<P: Publisher>(
        _ publisher: P, emits diagram: String, values: [Character: P.Output] = [:], error: P.Failure? = nil,
        tick: SchedulerTimeType.Stride
    ) throws(MarbleMismatch) where P.Output: Equatable {
        let expected = MarbleDiagram(diagram, values: values, error: error)
        let normalized = MarbleDiagram<P.Output, P.Failure>.render(
            frames: expected.events.reduce(into: Array(repeating: [], count: expected.frameCount)) { frames, entry in
                frames[entry.frame].append(entry.event)
            },
            values: values)
        let actual = marbles(of: publisher, frames: expected.frameCount, values: values, tick: tick)
        if actual != normalized { throw MarbleMismatch(expected: normalized, actual: actual) }
    }
}

/// The subscription side of a cold marble publisher: events arrive from the scheduler and wait
/// for demand. Everything happens on the thread that advances the test scheduler.
final class MarblePlayer<Output, Failure: Error>: Publisher, Subscription, @unchecked Sendable {
    private var downstream: AnySubscriber<Output, Failure>?
    private var pending: [MarbleDiagram<Output, Failure>.Event] = []
    private var demand = Subscribers.Demand.none
    private var delivering = false

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        precondition(downstream == nil, "a cold marble publisher's player serves one subscriber")
        downstream = AnySubscriber(subscriber)
        subscriber.receive(subscription: self)
    }

    func play(_ event: MarbleDiagram<Output, Failure>.Event) {
        guard downstream != nil else { return }
        pending.append(event)
        drain()
    }

    func request(_ demand: Subscribers.Demand) {
        guard downstream != nil else { return }
        self.demand += demand
        drain()
    }

    func cancel() {
        downstream = nil
        pending = []
    }

    /// Delivers what is pending as far as demand allows; re-entrant calls leave the work to the
    /// loop already running.
    private func drain() {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        while let downstream, let next = pending.first {
            switch next {
            case .value(let value):
                guard demand > .none else { return }
                pending.removeFirst()
                demand -= 1
                demand += downstream.receive(value)
            case .completion(let completion):
                pending.removeFirst()
                self.downstream = nil
                downstream.receive(completion: completion)
            }
        }
    }
}
