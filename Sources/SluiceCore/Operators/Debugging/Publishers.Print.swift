extension Publishers {
    /// A publisher that prints log messages for all publishing events, optionally prefixed with
    /// a given string.
    ///
    /// Lines look like Combine's: `receive subscription: (Just)`, `request unlimited`,
    /// `request max: (1)`, `receive value: (1)`, `receive finished`, `receive error: (...)`,
    /// `receive cancel`, and `request max: (1) (synchronous)` for demand returned from
    /// `receive(_:)`.
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
            let log = PrintLog(prefix: prefix, stream: stream)
            let inner = EventReporter(
                downstream: subscriber,
                hooks: EventHooks(
                    receiveSubscription: { log.write("receive subscription: (\($0))") },
                    receiveOutput: { log.write("receive value: (\($0))") },
                    receiveCompletion: { completion in
                        switch completion {
                        case .finished: log.write("receive finished")
                        case .failure(let error): log.write("receive error: (\(error))")
                        }
                    },
                    receiveCancel: { log.write("receive cancel") },
                    receiveRequest: { log.write("request \(PrintLog.describe($0))") },
                    returnedDemand: { log.write("request \(PrintLog.describe($0)) (synchronous)") }),
                name: "Print")
            // While an `_Introspection` is enabled, attach through `subscribe`'s introspected path.
            if introspectionIsActive {
                upstream.subscribeIntrospected(inner)
                return
            }
            upstream.receive(subscriber: inner)
        }
    }
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
