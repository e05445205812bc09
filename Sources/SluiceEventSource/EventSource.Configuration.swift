extension EventSource {
    /// How an ``EventSource`` reconnects and how much it buffers. Every property has a default.
    public struct Configuration: Sendable, Hashable {
        /// The reconnection time until the server sets one with `retry:` (3 seconds): the wait
        /// before reconnecting after a stream that was open ends.
        public var reconnectionTime: Duration
        /// The longest wait between attempts (30 seconds). After consecutive failed attempts (no
        /// response, or a status that is retried) the wait doubles each time from the reconnection
        /// time up to this cap.
        public var maximumBackoff: Duration
        /// The share of each backed-off wait drawn at random (0.5: a wait of `d` is uniform in
        /// `d/2 ... d`), so that many clients of a server that went away do not return together.
        /// 0 disables jitter. The wait after an open stream ended is the reconnection time exactly.
        public var jitter: Double
        /// How many consecutive failed attempts end the stream with
        /// ``EventSourceError/gaveUp(attempts:lastFailure:)`` (`nil`, the default: it never gives up;
        /// otherwise at least 1).
        /// An attempt fails when no stream opens: the network failed, or the server answered 408,
        /// 429 or 5xx. A stream that sends something starts the count again.
        public var maximumAttempts: Int?
        /// How long consecutive failed attempts may go on, from the first failure, before the
        /// stream ends with ``EventSourceError/gaveUp(attempts:lastFailure:)`` (`nil`, the default:
        /// no limit). The client gives up at the failure after which the next attempt would start
        /// later than this.
        public var maximumRetryTime: Duration?
        /// How many events are held for a subscriber that has not asked for them (64, at least 1).
        /// When the buffer is full the client stops reading the stream until the subscriber
        /// takes events (see ``EventSource``'s "Demand").
        public var bufferSize: Int
        /// With FoundationNetworking's data tasks (off Apple's systems: `https:`, or a session of
        /// the caller's), which cannot pause a transfer: the most bytes read past a full buffer and
        /// held unparsed before the client closes the connection, to resume it with `Last-Event-ID`
        /// once the subscriber has taken them (256 KiB, and at most half of ``maximumEventSize``;
        /// 0: close as soon as the buffer is full). A larger read-ahead resumes a stream faster than
        /// its subscriber less often, for the memory it holds. Where the reading can be paused
        /// (Apple's systems, the module's own `http:` client, an ``EventSocket``), it stops at the
        /// full buffer.
        public var readAhead: Int
        /// Whether `reset`, `dropped` and `shutdown` events are published as the typed values of a
        /// Sluice feed (`true`) or as ordinary events.
        public var recognizesSluiceControlEvents: Bool
        /// The most bytes one event may take — its lines, data and unfinished line together —
        /// before the stream fails with ``EventSourceError/eventTooLarge(limit:)`` (4 MiB): a
        /// stream that never ends its event cannot make the client hold it all, and no event
        /// whose data is larger is delivered, however it was read. It is also the
        /// most bytes held unparsed behind a full buffer when the client cannot stop reading
        /// (``EventSourceError/subscriberTooSlow(limit:)``).
        public var maximumEventSize: Int
        /// The longest silence on an open stream before the client treats the connection as lost
        /// and reconnects (60 seconds; a Sluice feed sends a heartbeat every 15 seconds). Applied
        /// as the request's `timeoutInterval`.
        public var idleTimeout: Duration
        /// Whom `https:` and `wss:` connections trust, the client certificate they present, and
        /// their proxy (the defaults: the system's roots, none, `https_proxy`). Applied by the TLS
        /// stack — off Apple's systems, with the package trait `TLS`; elsewhere options other
        /// than the defaults fail the stream with ``EventSourceError/tlsOptionsUnavailable``.
        public var tls: TLSOptions

        /// A configuration; every argument has its documented default.
        ///
        /// - Parameters:
        ///   - reconnectionTime: The wait before reconnecting until `retry:` sets one (3 s).
        ///   - maximumBackoff: The cap of the wait after consecutive failures (30 s).
        ///   - jitter: The random share of a backed-off wait (0.5).
        ///   - maximumAttempts: Consecutive failed attempts before giving up (`nil`: never).
        ///   - maximumRetryTime: How long consecutive failures may go on before giving up (`nil`: no limit).
        ///   - bufferSize: Events held beyond the subscriber's demand (64).
        ///   - readAhead: Bytes read past a full buffer before closing (FoundationNetworking: 256 KiB).
        ///   - recognizesSluiceControlEvents: Typed `reset`, `dropped` and `shutdown` (`true`).
        ///   - maximumEventSize: The most bytes one event may take (4 MiB).
        ///   - idleTimeout: The silence after which a connection is taken as lost (60 s).
        ///   - tls: Trust roots, client certificate and proxy of TLS connections (the system's roots, none, `https_proxy`).
        public init(reconnectionTime: Duration = .seconds(3), maximumBackoff: Duration = .seconds(30),
                    jitter: Double = 0.5, maximumAttempts: Int? = nil, maximumRetryTime: Duration? = nil,
                    bufferSize: Int = 64, readAhead: Int = 256 << 10,
                    recognizesSluiceControlEvents: Bool = true, maximumEventSize: Int = 4 << 20,
                    idleTimeout: Duration = .seconds(60), tls: TLSOptions = TLSOptions()) {
            precondition(maximumAttempts.map { $0 >= 1 } ?? true, "EventSource.Configuration: maximumAttempts must be at least 1")
            precondition(bufferSize >= 1, "EventSource.Configuration: bufferSize must be at least 1")
            precondition(readAhead >= 0, "EventSource.Configuration: readAhead must not be negative")
            precondition((0...1).contains(jitter), "EventSource.Configuration: jitter must be within 0...1")
            self.reconnectionTime = reconnectionTime
            self.maximumBackoff = maximumBackoff
            self.jitter = jitter
            self.maximumAttempts = maximumAttempts
            self.maximumRetryTime = maximumRetryTime
            self.bufferSize = bufferSize
            self.readAhead = readAhead
            self.recognizesSluiceControlEvents = recognizesSluiceControlEvents
            self.maximumEventSize = maximumEventSize
            self.idleTimeout = idleTimeout
            self.tls = tls
        }

        /// The wait before attempt `failures + 1`, where `failures` consecutive attempts failed
        /// (0: the previous stream was open), given the current reconnection time and a random
        /// number in `0..<1`; never less than the wait a `Retry-After` header asked for.
        func delay(afterFailures failures: Int, reconnectionTime: Duration, random: Double,
                   retryAfter: Duration? = nil) -> Duration {
            guard failures > 0 else { return reconnectionTime }
            if let retryAfter {
                return Swift.max(retryAfter, delay(afterFailures: failures, reconnectionTime: reconnectionTime, random: random))
            }
            var base = reconnectionTime
            for _ in 0..<Swift.min(failures, 62) {
                base = base * 2
                if base >= maximumBackoff { break }
            }
            base = Swift.min(base, maximumBackoff)
            return base * (1 - jitter * random)
        }
    }
}
