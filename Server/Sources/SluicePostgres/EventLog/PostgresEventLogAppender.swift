#if Server
import Foundation
import NIOConcurrencyHelpers
import Sluice
import SluiceFeed

/// A subscriber that appends each value it receives to a topic of a ``PostgresEventLog``, one
/// value at a time, in the order received, each its own transaction.
///
/// ```swift
/// let appender = orders.appendToLog(log, topic: "orders")          // Encodable values, as JSON
/// let report = appender.outcomes.sink { outcome in
///     if case .failed(_, let error) = outcome { logger.warning("not appended: \(error)") }
/// }
/// ```
///
/// - **Demand** is bounded by what is queued or being appended: the appender requests
///   `maxInFlight` values, then one more each time a value has been appended (or has failed).
/// - **Each value's fate** is reported on ``outcomes``, in the order the values came:
///   ``Outcome/appended(_:_:)`` with the event's id once its transaction has committed, or
///   ``Outcome/failed(_:_:)`` — the encoder threw, the log refused it, or its append still failed
///   after ``maxAttempts`` — and the next value goes on.
/// - **Retries**: an append that was not made (``PostgresEventLogError/Kind/unavailable``) is tried
///   again, after 100 ms, then twice as long each time (up to 5 s); one whose outcome is unknown (a
///   timeout, a connection lost under it) only when the value has an idempotency key (`key`), which
///   makes the retry append it once.
/// - When the upstream completes, what is queued is appended, then ``outcomes`` finishes.
///   ``cancel()`` stops at once: the upstream is cancelled and what is queued is dropped.
public final class PostgresEventLogAppender<Input, UpstreamFailure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    /// The appender takes its upstream's values.
    public typealias Failure = UpstreamFailure

    /// What became of one value.
    public enum Outcome {
        /// Appended and committed, under this id.
        case appended(Input, EventID)
        /// Not appended, and why; the next value goes on.
        case failed(Input, any Error)
    }

    /// The log appended to.
    public let log: PostgresEventLog
    /// The topic appended to.
    public let topic: String
    /// The most values queued or being appended at once (the upstream demand).
    public var maxInFlight: Int { work.maxInFlight }
    /// How many times a value's append is tried before it is reported failed (5).
    public let maxAttempts: Int

    private let encode: (Input) throws -> String
    private let key: ((Input) -> String?)?
    private let subject = PassthroughSubject<Outcome, Never>()
    private let work: SerialWork<Pending>

    private struct Pending: @unchecked Sendable {
        let input: Input
        let payload: Result<String, any Error>
        let key: String?
    }

    /// What became of each value, in order; finishes after the upstream completes and the last
    /// value has gone, or at cancel. Not replayed: watch it before the appender gets its first value.
    public var outcomes: AnyPublisher<Outcome, Never> { subject.eraseToAnyPublisher() }

    /// An appender to `topic` of `log` that turns each value into a payload with `encode`, and
    /// into its idempotency key with `key` (a value without one, or every value when `key` is
    /// `nil`, is not retried when its outcome is unknown).
    public init(log: PostgresEventLog, topic: String, maxInFlight: Int = 16, maxAttempts: Int = 5,
                key: ((Input) -> String?)? = nil, encode: @escaping (Input) throws -> String) {
        precondition(maxAttempts > 0, "maxAttempts must be positive")
        self.log = log
        self.topic = topic
        self.maxAttempts = maxAttempts
        self.key = key
        self.encode = encode
        work = SerialWork(maxInFlight: maxInFlight)
        work.start { [self] values in await append(values) }
    }

    /// Requests `maxInFlight` values.
    public func receive(subscription: any Subscription) {
        work.receive(subscription: subscription)
    }

    /// Queues the value (encoded now; one the encoder throws on is reported as failed in its turn).
    public func receive(_ input: Input) -> Subscribers.Demand {
        work.enqueue(Pending(input: input, payload: Result { try encode(input) }, key: key?(input)))
        return .none
    }

    /// Appends what is queued, then finishes ``outcomes``.
    public func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        work.complete()
    }

    /// Cancels the upstream and drops what is queued.
    public func cancel() {
        work.cancel()
    }

    /// The worker: one value at a time, in order.
    private func append(_ values: SerialWork<Pending>.Values) async {
        for await pending in values {
            do {
                subject.send(.appended(pending.input, try await append(pending)))
            } catch {
                subject.send(.failed(pending.input, error))
            }
        }
        subject.send(completion: .finished)
    }

    /// One value's append, tried again while a retry can neither fail for good nor duplicate it.
    private func append(_ pending: Pending) async throws -> EventID {
        let payload = try pending.payload.get()
        var delay = Duration.milliseconds(100)
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await log.append(payload, to: topic, idempotencyKey: pending.key)
            } catch let error as PostgresEventLogError
                        where attempt < maxAttempts && !Task.isCancelled
                        && (error.kind == .unavailable || (error.kind == .outcomeUnknown && pending.key != nil)) {
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }
}

extension Publisher {
    /// Appends each value to `topic` of `log`, as the text `encode` makes of it: see
    /// ``PostgresEventLogAppender``. Keep the appender (it is the subscription's `Cancellable`).
    public func appendToLog(_ log: PostgresEventLog, topic: String, maxInFlight: Int = 16, key: ((Output) -> String?)? = nil,
                            encode: @escaping (Output) throws -> String) -> PostgresEventLogAppender<Output, Failure> {
        let appender = PostgresEventLogAppender<Output, Failure>(log: log, topic: topic, maxInFlight: maxInFlight,
                                                                 key: key, encode: encode)
        subscribe(appender)
        return appender
    }
}

extension Publisher where Output == String {
    /// Appends each string as it is to `topic` of `log`: see ``PostgresEventLogAppender``.
    public func appendToLog(_ log: PostgresEventLog, topic: String, maxInFlight: Int = 16) -> PostgresEventLogAppender<String, Failure> {
        appendToLog(log, topic: topic, maxInFlight: maxInFlight) { $0 }
    }
}

extension Publisher where Output: Encodable {
    /// Appends each value as JSON to `topic` of `log`: see ``PostgresEventLogAppender``.
    public func appendToLog(_ log: PostgresEventLog, topic: String, encoder: JSONEncoder = JSONEncoder(),
                            maxInFlight: Int = 16) -> PostgresEventLogAppender<Output, Failure> {
        appendToLog(log, topic: topic, maxInFlight: maxInFlight) { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }
}
#endif
