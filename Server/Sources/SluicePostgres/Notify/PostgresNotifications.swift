#if Server
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Sluice

/// The notifications on one PostgreSQL channel (`LISTEN`/`NOTIFY`) as a publisher, on a connection
/// of its own that survives being lost.
///
/// **Lossy by nature**: PostgreSQL keeps nothing for a channel nobody listens on, so what is sent
/// while the connection is down is gone (told as a gap, never caught up), and a payload is under
/// 8,000 bytes. For events that must all arrive, use the event log (``PostgresEventLog`` and
/// ``PostgresEventLogListener``), which reads a table and catches up after any reconnect.
///
/// ```swift
/// let config = PostgresConnection.Configuration(host: "127.0.0.1", port: 5432, username: "app",
///                                               password: "secret", database: "app", tls: .disable)
/// let cancellable = PostgresNotifications(channel: "prices", configuration: config, as: Price.self)
///     .sink(receiveCompletion: { print($0) }) { event in
///         switch event {
///         case .listening: print("listening")
///         case .notification(let price): print(price)
///         case .gap(let gap): print("may have missed some:", gap)   // refetch state here
///         case .undecodable(let text, let error): print("bad payload", text, error)
///         }
///     }
/// ```
///
/// - **Connection**: each subscription opens its own connection from the configuration, at its
///   first demand, and issues `LISTEN`; ``PostgresNotificationEvent/listening`` says it is in place.
/// - **Demand**: events wait in a buffer of ``Options/bufferSize`` until the subscriber asks for
///   them. When the subscriber is slower than `NOTIFY` and the buffer is full, **the oldest event
///   is dropped**, and the subscriber gets one ``PostgresNotificationGap/dropped(count:)`` gap
///   before what follows — never a silent loss.
/// - **Reconnect**: when the connection drops (a restart, a network fault, `pg_terminate_backend`),
///   the publisher connects again with exponential backoff (``Options/reconnect``), issues `LISTEN`
///   again and delivers a ``PostgresNotificationGap/reconnected(after:attempts:)`` gap: what was
///   sent while no connection listened is lost (PostgreSQL keeps nothing for it).
/// - **Refusal**: wrong credentials, a database that does not exist, a channel name the server
///   rejects: the subscriber fails with a ``PostgresFailure`` that says what the server said, at
///   once, without retrying. Other errors are retried up to ``ReconnectPolicy/maximumAttempts``
///   consecutive attempts, then fail the same way.
/// - **Half-open connections**: the listening connection is probed every
///   ``Options/probeInterval``; one that does not answer within ``Options/timeout`` is closed and
///   replaced, with a ``PostgresNotificationGap/reconnected(after:attempts:)`` gap.
/// - **Cancel**: stops listening (`UNLISTEN`, awaited) and closes the connection.
/// - Events arrive on a task of the Swift concurrency pool, one at a time.
public struct PostgresNotifications<Payload>: Publisher {
    /// The channel's events.
    public typealias Output = PostgresNotificationEvent<Payload>
    /// A ``PostgresFailure``.
    public typealias Failure = any Error

    /// The channel listened to.
    public let channel: String
    /// How to reach the server.
    public let configuration: PostgresConnection.Configuration
    /// Buffering and reconnection.
    public let options: Options
    let group: any EventLoopGroup
    let logger: Logger
    let decode: (String) throws -> Payload

    /// Buffering and reconnection settings.
    public struct Options: Sendable {
        /// How many events wait for a slow subscriber before the oldest is dropped (1,024).
        public var bufferSize: Int
        /// When and how often to connect again after the connection is lost.
        public var reconnect: ReconnectPolicy
        /// How long connecting, a probe, and `UNLISTEN` when the subscriber cancels, may take
        /// (10 s): past it the attempt fails (and is made again), or the connection is closed
        /// without a word.
        public var timeout: Duration
        /// How often the listening connection is probed (`SELECT 1`; 10 s): a probe unanswered
        /// within ``timeout`` — a half-open connection, which a NAT or a load balancer dropped
        /// without a word, and on which no notification would ever arrive again — closes the
        /// connection, which is replaced (the subscriber gets a
        /// ``PostgresNotificationGap/reconnected(after:attempts:)`` gap). `nil`: never probed.
        public var probeInterval: Duration?

        /// Options with a buffer of `bufferSize` events, the given reconnection policy, time limit
        /// and probe interval.
        public init(bufferSize: Int = 1_024, reconnect: ReconnectPolicy = ReconnectPolicy(), timeout: Duration = .seconds(10),
                    probeInterval: Duration? = .seconds(10)) {
            precondition(bufferSize > 0, "bufferSize must be positive")
            self.bufferSize = bufferSize
            self.reconnect = reconnect
            self.timeout = timeout
            self.probeInterval = probeInterval
        }
    }

    /// A publisher of the channel's payloads decoded by `decode`: a payload it throws on arrives as
    /// ``PostgresNotificationEvent/undecodable(_:_:)``. `decode` is called on the listener's task,
    /// one payload at a time.
    public init(channel: String, configuration: PostgresConnection.Configuration, options: Options = Options(),
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "SluicePostgres"),
                decode: @escaping (String) throws -> Payload) {
        self.channel = channel
        self.configuration = configuration
        self.options = options
        self.group = eventLoopGroup
        self.logger = logger
        self.decode = decode
    }

    /// Attaches `subscriber`; the connection opens at its first demand.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
        let subscription = ListenerSubscription(publisher: self, downstream: subscriber)
        subscriber.receive(subscription: subscription)
    }
}

extension PostgresNotifications where Payload == String {
    /// A publisher of the channel's payloads as they are: text.
    public init(channel: String, configuration: PostgresConnection.Configuration, options: Options = Options(),
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "SluicePostgres")) {
        self.init(channel: channel, configuration: configuration, options: options, eventLoopGroup: eventLoopGroup,
                  logger: logger) { $0 }
    }
}

extension PostgresNotifications where Payload: Decodable {
    /// A publisher of the channel's payloads decoded from JSON as `type`.
    public init(channel: String, configuration: PostgresConnection.Configuration, as type: Payload.Type,
                decoder: JSONDecoder = JSONDecoder(), options: Options = Options(),
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "SluicePostgres")) {
        self.init(channel: channel, configuration: configuration, options: options, eventLoopGroup: eventLoopGroup,
                  logger: logger) { text in try decoder.decode(Payload.self, from: Data(text.utf8)) }
    }
}

/// When to connect again after the listening connection is lost: after `initialDelay`, then
/// doubling up to `maximumDelay`; failing after `maximumAttempts` consecutive failed attempts
/// (`nil`: never).
public struct ReconnectPolicy: Sendable {
    /// The wait before the first attempt to reconnect (100 ms).
    public var initialDelay: Duration
    /// The longest wait between attempts (5 s).
    public var maximumDelay: Duration
    /// How many attempts in a row may fail before the subscriber fails (10); `nil` for no limit.
    public var maximumAttempts: Int?

    /// A policy.
    public init(initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5),
                maximumAttempts: Int? = 10) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// The wait before attempt `attempt` (1-based) to connect again.
    func delay(before attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay)
    }
}
#endif
