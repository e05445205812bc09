#if Server
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Sluice
import NIOConcurrencyHelpers

/// A subscriber that publishes each value it receives on a PostgreSQL channel, with
/// `SELECT pg_notify(channel, payload)`, on a connection of its own — the way out that
/// ``PostgresNotifications`` listens to, on this instance or any other. Lossy by nature, as
/// `NOTIFY` is: a listener that is not connected when a value is sent never gets it. For events that
/// must all arrive, append to a ``PostgresEventLog``.
///
/// ```swift
/// let notifier = events.notifyPostgres(channel: "events", configuration: config)   // Encodable values, as JSON
/// let report = notifier.outcomes.sink { outcome in
///     if case .failed(_, let error) = outcome { log.warning("not sent: \(error)") }
/// }
/// ```
///
/// - **Demand** is bounded by the queries in flight: the notifier requests `maxInFlight` values,
///   then one more each time a value has been sent (or has failed). Values are sent one at a time,
///   in the order received: `NOTIFY` order is arrival order.
/// - **A value that cannot be sent is a failure of that value only**: a payload of 8,000 bytes or
///   more (PostgreSQL's limit), a value the encoder throws on, a query that fails. Each is
///   reported on ``outcomes`` as ``Outcome/failed(_:_:)`` and the next value goes on. A lost
///   connection is opened again for the next value.
/// - **No value waits for ever**: connecting and each `pg_notify` have ``timeout`` (10 s); past it
///   the value fails with ``PostgresNotifyError/queryFailed(_:)``, the connection is closed (one
///   that stopped answering — half-open, a frozen proxy — is not used again) and the next value goes
///   on a new one.
/// - When the upstream completes, the values still queued are sent, then the connection closes and
///   ``outcomes`` finishes. ``cancel()`` stops at once: the upstream is cancelled, queued values are
///   dropped, the connection closes.
public final class PostgresNotifier<Input, UpstreamFailure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    /// The notifier takes its upstream's values.
    public typealias Failure = UpstreamFailure

    /// What became of one value.
    public enum Outcome {
        /// Sent with `pg_notify`: the payload that went.
        case sent(String)
        /// Not sent, and why; the next value goes on.
        case failed(Input, PostgresNotifyError)
    }

    /// The channel notified.
    public let channel: String
    /// The most values queued or in flight at once (the upstream demand).
    public var maxInFlight: Int { work.maxInFlight }
    /// How long connecting, or one `pg_notify`, may take before the value fails.
    public let timeout: Duration

    private let configuration: PostgresConnection.Configuration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let encode: (Input) throws -> String
    private let subject = PassthroughSubject<Outcome, Never>()
    private let work: SerialWork<Pending>

    private struct Pending: @unchecked Sendable {
        let input: Input
        let payload: String
    }

    /// What became of each value, in order; finishes after the upstream completes and the last
    /// value has gone, or at cancel. Outcomes are not replayed: subscribe before the notifier gets
    /// its first value (make the notifier, watch this, then subscribe it to the upstream).
    public var outcomes: AnyPublisher<Outcome, Never> { subject.eraseToAnyPublisher() }

    /// A notifier for `channel` that turns each value into a payload with `encode`.
    public init(channel: String, configuration: PostgresConnection.Configuration, maxInFlight: Int = 16,
                timeout: Duration = .seconds(10),
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "SluicePostgres"), encode: @escaping (Input) throws -> String) {
        self.channel = channel
        self.timeout = timeout
        self.configuration = configuration
        self.group = eventLoopGroup
        self.logger = logger
        self.encode = encode
        work = SerialWork(maxInFlight: maxInFlight)
        work.start { [self] values in await send(values) }
    }

    /// Requests `maxInFlight` values.
    public func receive(subscription: any Subscription) {
        work.receive(subscription: subscription)
    }

    /// Queues the value to be sent; a value that cannot be encoded, or whose payload is too large,
    /// fails here (reported on ``outcomes``) and one more value is requested in its place.
    public func receive(_ input: Input) -> Subscribers.Demand {
        let payload: String
        do {
            payload = try encode(input)
        } catch {
            subject.send(.failed(input, .encodingFailed(error)))
            return .max(1)
        }
        guard payload.utf8.count < PostgresNotifyError.payloadLimit else {
            subject.send(.failed(input, .payloadTooLarge(bytes: payload.utf8.count)))
            return .max(1)
        }
        work.enqueue(Pending(input: input, payload: payload))
        return .none
    }

    /// Sends what is queued, then closes the connection and finishes ``outcomes``.
    public func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        work.complete()
    }

    /// Cancels the upstream, drops what is queued and closes the connection.
    public func cancel() {
        work.cancel()
    }

    /// The worker: one value at a time, in order, on one connection opened when needed.
    private func send(_ values: SerialWork<Pending>.Values) async {
        var connection: PostgresConnection?
        var connectionID = 0
        for await pending in values {
            do {
                if connection == nil {
                    connectionID += 1
                    let (loop, configuration, id, logger) = (group.next(), configuration, connectionID, logger)
                    connection = try await withTimeout(timeout) {
                        let made = try await PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger).get()
                        if Task.isCancelled {   // too late: the value has failed
                            try? await made.close()
                            throw CancellationError()
                        }
                        return made
                    }
                }
                let open = connection!
                let (query, logger): (PostgresQuery, Logger) = ("SELECT pg_notify(\(channel), \(pending.payload))", logger)
                try await withTimeout(timeout, onTimeout: { try? await open.close() }) {
                    _ = try await open.query(query, logger: logger)
                }
                subject.send(.sent(pending.payload))
            } catch {
                subject.send(.failed(pending.input, .queryFailed(PostgresFailure(error))))
                if let lost = connection {
                    connection = nil
                    try? await lost.close()
                }
            }
        }
        if let connection {
            await Task { try? await connection.close() }.value
        }
        subject.send(completion: .finished)
    }
}

/// Why a value was not sent by a ``PostgresNotifier``.
public enum PostgresNotifyError: Error, Sendable, CustomStringConvertible {
    /// PostgreSQL takes payloads shorter than 8,000 bytes.
    case payloadTooLarge(bytes: Int)
    /// The encoder threw.
    case encodingFailed(any Error)
    /// The `pg_notify` query failed (the connection is opened again for the next value).
    case queryFailed(PostgresFailure)

    /// PostgreSQL's limit on a payload: it must be shorter than this many bytes.
    public static let payloadLimit = 8_000

    /// The reason, for logs.
    public var description: String {
        switch self {
        case .payloadTooLarge(let bytes): "payload of \(bytes) bytes: PostgreSQL's limit is \(Self.payloadLimit - 1)"
        case .encodingFailed(let error): "could not encode the value: \(error)"
        case .queryFailed(let failure): "pg_notify failed: \(failure)"
        }
    }
}

extension Publisher {
    /// Publishes each value on `channel` with `pg_notify`, as the text `encode` makes of it: see
    /// ``PostgresNotifier``. Keep the notifier (it is the subscription's `Cancellable`).
    public func notifyPostgres(channel: String, configuration: PostgresConnection.Configuration, maxInFlight: Int = 16,
                               timeout: Duration = .seconds(10),
                               eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                               logger: Logger = Logger(label: "SluicePostgres"),
                               encode: @escaping (Output) throws -> String) -> PostgresNotifier<Output, Failure> {
        let notifier = PostgresNotifier<Output, Failure>(channel: channel, configuration: configuration,
                                                         maxInFlight: maxInFlight, timeout: timeout, eventLoopGroup: eventLoopGroup,
                                                         logger: logger, encode: encode)
        subscribe(notifier)
        return notifier
    }
}

extension Publisher where Output == String {
    /// Publishes each string as it is on `channel` with `pg_notify`: see ``PostgresNotifier``.
    public func notifyPostgres(channel: String, configuration: PostgresConnection.Configuration, maxInFlight: Int = 16,
                               timeout: Duration = .seconds(10),
                               eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                               logger: Logger = Logger(label: "SluicePostgres")) -> PostgresNotifier<String, Failure> {
        notifyPostgres(channel: channel, configuration: configuration, maxInFlight: maxInFlight, timeout: timeout,
                       eventLoopGroup: eventLoopGroup, logger: logger) { $0 }
    }
}

extension Publisher where Output: Encodable {
    /// Publishes each value as JSON on `channel` with `pg_notify`: see ``PostgresNotifier``.
    public func notifyPostgres(channel: String, configuration: PostgresConnection.Configuration,
                               encoder: JSONEncoder = JSONEncoder(), maxInFlight: Int = 16, timeout: Duration = .seconds(10),
                               eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                               logger: Logger = Logger(label: "SluicePostgres")) -> PostgresNotifier<Output, Failure> {
        notifyPostgres(channel: channel, configuration: configuration, maxInFlight: maxInFlight, timeout: timeout,
                       eventLoopGroup: eventLoopGroup, logger: logger) { value in
            String(decoding: try encoder.encode(value), as: UTF8.self)
        }
    }
}
#endif
