extension Publishers {
    /// A publisher that prints log messages for all publishing events, optionally prefixed with
    /// a given string.
    ///
    /// Lines look like Combine's: `receive subscription: (Just)`, `request unlimited`,
    /// `request max: (1)`, `receive value: (1)`, `receive finished`, `receive error: (...)`,
    /// `receive cancel`, and `request max: (1) (synchronous)` for demand returned from
    /// `receive(_:)`.
    ///
    /// As Apple's does, it logs every `request(_:)` and `cancel()` its subscriber makes, those
    /// that come after the stream ended included, and passes a request or a cancel that comes after
    /// the completion on to the upstream subscription. Nothing reaches the subscriber after the
    /// completion or a cancel.
    public struct Print<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// A string with which to prefix all log messages.
        public let prefix: String

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The stream to write to, or `nil` to write to standard output.
        public let stream: (any TextOutputStream)?

        /// Creates a publisher that prints log messages for all publishing events.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - prefix: A string with which to prefix all log messages.
        ///   - stream: A stream for text output that receives messages, and which directs output
        ///     to the console by default.
        @inlinable
        public init(upstream: Upstream, prefix: String, to stream: (any TextOutputStream)? = nil) {
            self.upstream = upstream
            self.prefix = prefix
            self.stream = stream
        }

        /// Attaches the subscriber through a subscription that logs every event.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = PrintReporter(downstream: subscriber, log: PrintLog(prefix: prefix, stream: stream))
            upstream.attachSubscriber(inner)
        }
    }
}

/// The subscription of `print`: logs each event, then passes it on.
@usableFromInline
final class PrintReporter<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    /// Where the subscription stands.
    @usableFromInline
    enum Phase {
        /// No upstream subscription yet (values and a completion that come first still pass, as
        /// in Apple's).
        case awaiting
        /// Subscribed: values flow.
        case subscribed
        /// The upstream completed: the subscriber is released; requests and a cancel still go to
        /// the upstream subscription, as Apple's do.
        case completed
        /// Cancelled: nothing goes anywhere any more, though requests and cancels are still logged.
        case cancelled
    }

    /// What `receive(subscription:)` does with a subscription, decided under the lock.
    @usableFromInline
    enum Attachment {
        case attach(Downstream, Subscribers.Demand)
        case refuse
        case ignore
    }

    @usableFromInline let lock = Lock()
    @usableFromInline let log: PrintLog
    // Guarded by `lock`:
    @exclusivity(unchecked) @usableFromInline var phase = Phase.awaiting
    @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
    /// The upstream subscription, while subscribed and after the completion, until a cancel.
    @exclusivity(unchecked) @usableFromInline var upstream: (any Subscription)?
    /// Demand requested before the subscription arrived.
    @exclusivity(unchecked) @usableFromInline var pendingDemand = Subscribers.Demand.none
    /// Cancelled before any subscription arrived: a subscription that comes later is ignored.
    @exclusivity(unchecked) @usableFromInline var cancelledEarly = false

    @inlinable
    init(downstream: Downstream, log: PrintLog) {
        self.downstream = downstream
        self.log = log
    }

    @inlinable
    func receive(subscription: any Subscription) {
        log.write("receive subscription: (\(subscription))")
        let outcome: Attachment = lock.withLock {
            switch phase {
            case .cancelled: return cancelledEarly ? .ignore : .refuse
            case .subscribed, .completed: return .refuse
            case .awaiting:
                guard let downstream else { return .refuse }
                phase = .subscribed
                upstream = subscription
                defer { pendingDemand = .none }
                return .attach(downstream, pendingDemand)
            }
        }
        switch outcome {
        case .ignore: return
        case .refuse: subscription.cancel()
        case .attach(let downstream, let pending):
            if pending != .none { subscription.request(pending) }
            downstream.receive(subscription: self)
        }
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        let target: Downstream? = lock.withLock { phase == .subscribed || phase == .awaiting ? downstream : nil }
        guard let target else { return .none }
        log.write("receive value: (\(input))")
        let demand = target.receive(input)
        if demand != .none { log.write("request \(PrintLog.describe(demand)) (synchronous)") }
        return demand
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        let target: Downstream? = lock.withLock {
            guard phase == .subscribed || phase == .awaiting else { return nil }
            phase = .completed
            defer { downstream = nil }
            return downstream
        }
        guard let target else { return }
        switch completion {
        case .finished: log.write("receive finished")
        case .failure(let error): log.write("receive error: (\(error))")
        }
        target.receive(completion: completion)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        log.write("request \(PrintLog.describe(demand))")
        let subscription: (any Subscription)? = lock.withLock {
            switch phase {
            case .awaiting:
                pendingDemand += demand
                return nil
            case .subscribed, .completed: return upstream
            case .cancelled: return nil
            }
        }
        subscription?.request(demand)
    }

    @inlinable
    func cancel() {
        log.write("receive cancel")
        let (subscription, released): ((any Subscription)?, Downstream?) = lock.withLock {
            guard phase != .cancelled else { return (nil, nil) }
            if phase == .awaiting { cancelledEarly = true }
            phase = .cancelled
            defer {
                upstream = nil
                downstream = nil
            }
            return (upstream, downstream)
        }
        subscription?.cancel()
        _ = released
    }

    @usableFromInline var description: String { "Print" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

/// Where one `print` subscription writes its lines.
@usableFromInline
final class PrintLog: @unchecked Sendable {
    @usableFromInline let prefix: String
    /// Written with `lock` held: `request` and `cancel` may come from other threads than the
    /// values, so lines can be written concurrently. The stream is the one call made under a lock
    /// here — writing a line is all it does, and holding the lock keeps lines whole and in order.
    @usableFromInline var stream: (any TextOutputStream)?
    @usableFromInline let lock = Lock()

    @inlinable
    init(prefix: String, stream: (any TextOutputStream)?) {
        self.prefix = prefix.isEmpty ? "" : prefix + ": "
        self.stream = stream
    }

    @usableFromInline
    static func describe(_ demand: Subscribers.Demand) -> String {
        if let max = demand.max { return "max: (\(max))" }
        return "unlimited"
    }

    /// Writes one line the way `Swift.print(_:to:)` does, as Apple's does: a custom stream sees
    /// three `write` calls (an empty string, the line, then the newline).
    @usableFromInline
    func write(_ message: String) {
        let line = prefix + message
        if stream != nil {
            lock.withLock {
                stream!.write("")
                stream!.write(line)
                stream!.write("\n")
            }
        } else {
            Swift.print(line)
        }
    }
}

extension Publisher {
    /// Prints log messages for all publishing events.
    ///
    /// - Parameters:
    ///   - prefix: A string — which defaults to empty — with which to prefix all log messages.
    ///   - stream: A stream for text output that receives messages, and which directs output to
    ///     the console by default. A custom stream can be used to log messages to other
    ///     destinations.
    /// - Returns: A publisher that prints log messages for all publishing events.
    @inlinable
    public func print(_ prefix: String = "", to stream: (any TextOutputStream)? = nil) -> Publishers.Print<Self> {
        Publishers.Print(upstream: self, prefix: prefix, to: stream)
    }
}
