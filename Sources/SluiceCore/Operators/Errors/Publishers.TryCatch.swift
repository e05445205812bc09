extension Publishers {
    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher
    /// with another publisher or producing a new error.
    ///
    /// Because the handler can throw, this publisher's failure type is `Error`.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher publishes.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that accepts the upstream failure as input and either returns a publisher to
        /// replace the upstream publisher or throws an error.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that handles errors from an upstream publisher by replacing the
        /// failed publisher with another publisher or by throwing an error.
        @inlinable
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber through the shared catching subscription.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let handler = self.handler
            upstream.attachSubscriber(CatchingSubscription<Upstream.Failure, NewPublisher, S>(
                downstream: subscriber, name: "TryCatch",
                handler: { error in Result { try handler(error) } }, mapNewFailure: { $0 }))
        }
    }
}

extension Publisher {
    /// Handles errors from an upstream publisher by either replacing it with another publisher or
    /// throwing a new error.
    ///
    /// - Parameter handler: A throwing closure that accepts the upstream failure as input. It either
    ///   returns a publisher to replace the upstream or throws; a thrown error fails the stream.
    /// - Returns: A publisher that handles errors from an upstream publisher by replacing the
    ///   failed publisher with another publisher or producing a new error.
    @inlinable
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
    where Output == P.Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}
