import Foundation
import Sluice
import SluiceTesting
import Testing

/// When `Timer.publish` ticks, on a real run loop. A late tick is fine (a loaded machine runs the
/// loop late); an early one is the fault these tests look for, so they only compare each tick's
/// date with the earliest it may come, and wait for the ticks with a generous deadline.
@Suite struct TimerPublisherTests {
    /// The ways to start a timer publisher.
    enum Form: String, CaseIterable, CustomTestStringConvertible {
        case connect, autoconnect, tolerance
        var testDescription: String { rawValue }
    }

    static let interval: TimeInterval = 0.2
    /// Slack for the clocks the run loop and `Date()` read; far below the fault (a first tick at
    /// once, ~0.2 s early).
    static let epsilon: TimeInterval = 0.02

    @Test(arguments: Form.allCases)
    func firstTickAfterOneIntervalThenOnePerInterval(_ form: Form) {
        let subscriber = TestSubscriber<Date, Never>(initialDemand: .max(3))
        let publisher = form == .tolerance
            ? Timer.publish(every: Self.interval, tolerance: 0.05, on: .current, in: .default)
            : Timer.publish(every: Self.interval, on: .current, in: .default)
        var connection: (any Cancellable)?
        let start = Date()
        switch form {
        case .connect, .tolerance:
            publisher.subscribe(subscriber)
            connection = publisher.connect()
        case .autoconnect:
            publisher.autoconnect().subscribe(subscriber)
        }
        let deadline = Date(timeIntervalSinceNow: 20)
        while subscriber.values.count < 3 && Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.01))
        }
        connection?.cancel()
        subscriber.cancel()
        withExtendedLifetime(publisher) {}
        #expect(subscriber.values.count == 3)
        // The k-th tick (from 0) is due (k + 1) intervals after the start, and none comes early:
        // so nothing before one interval, and at most one per interval after that.
        for (k, date) in subscriber.values.enumerated() {
            let elapsed = date.timeIntervalSince(start)
            #expect(elapsed >= Double(k + 1) * Self.interval - Self.epsilon,
                    "tick \(k) came \(elapsed) s after connecting, every \(Self.interval) s")
        }
    }
}
