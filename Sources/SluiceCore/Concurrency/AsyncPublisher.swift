/// A publisher that exposes its elements as an asynchronous sequence (for publishers that cannot
/// fail).
///
/// Each iteration subscribes to the publisher when its iterator is made, and asks for one value
/// per `next()`; cancelling the task that awaits `next()` cancels the subscription.
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    /// The iterator that produces elements of the asynchronous publisher sequence.
    public struct Iterator: AsyncIteratorProtocol {
        /// The type of element produced by the iterator.
        public typealias Element = P.Output

        @usableFromInline let inner: IterationHandle<P.Output, Never>

        @inlinable
        init(_ publisher: P) {
            inner = IterationHandle(publisher)
        }

        /// Produces the next element in the sequence, or `nil` when the publisher finishes (or the
        /// waiting task is cancelled).
        @inlinable
        public mutating func next() async -> P.Output? {
            try? await inner.core.next()
        }
    }

    @usableFromInline let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as a
    /// non-throwing asynchronous sequence.
    @inlinable
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Creates the asynchronous iterator that produces elements of this sequence; it subscribes
    /// to the publisher.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(publisher)
    }
}

/// A publisher that exposes its elements as a throwing asynchronous sequence.
///
/// Each iteration subscribes to the publisher when its iterator is made, and asks for one value
/// per `next()`; a failure is thrown; cancelling the task that awaits `next()` cancels the
/// subscription.
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
    /// The type of element produced by this asynchronous sequence.
    public typealias Element = P.Output

    /// The iterator that produces elements of the asynchronous publisher sequence.
    public struct Iterator: AsyncIteratorProtocol {
        /// The type of element produced by the iterator.
        public typealias Element = P.Output

        @usableFromInline let inner: IterationHandle<P.Output, P.Failure>

        @inlinable
        init(_ publisher: P) {
            inner = IterationHandle(publisher)
        }

        /// Produces the next element in the sequence, `nil` when the publisher finishes, or throws
        /// the publisher's failure.
        @inlinable
        public mutating func next() async throws -> P.Output? {
            try await inner.core.next()
        }
    }

    @usableFromInline let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as a
    /// throwing asynchronous sequence.
    @inlinable
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Creates the asynchronous iterator that produces elements of this sequence; it subscribes
    /// to the publisher.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(publisher)
    }
}

/// Owns an iteration's subscriber: subscribes it, and cancels it when the last copy of the
/// iterator goes away.
///
/// Inlinable, with ``AsyncIteratorCore``: the client specialises the subscription and each value's
/// path for its publisher and element type (unspecialised, every value looked up generic metadata:
/// more than half of the bridge's cost).
@usableFromInline
final class IterationHandle<Input, Failure: Error>: @unchecked Sendable {
    @usableFromInline let core = AsyncIteratorCore<Input, Failure>()

    @inlinable
    init<P: Publisher>(_ publisher: P) where P.Output == Input, P.Failure == Failure {
        publisher.subscribe(core)
    }

    deinit { core.cancel() }
}

extension Publisher where Failure == Never {
    /// The elements produced by the publisher, as an asynchronous sequence.
    ///
    /// Iterating asks the publisher for one value at a time.
    public var values: AsyncPublisher<Self> { AsyncPublisher(self) }
}

extension Publisher {
    /// The elements produced by the publisher, as a throwing asynchronous sequence.
    ///
    /// Iterating asks the publisher for one value at a time; its failure is thrown.
    public var values: AsyncThrowingPublisher<Self> { AsyncThrowingPublisher(self) }
}

extension Future where Failure == Never {
    /// The published value of the future, delivered asynchronously.
    ///
    /// Awaiting it subscribes to the future and waits for its value.
    public var value: Output {
        get async {
            // A future publishes exactly one value (or none if it never completes).
            var iterator = values.makeAsyncIterator()
            guard let value = await iterator.next() else { fatalError("Future finished without a value") }
            return value
        }
    }
}

extension Future {
    /// The published value of the future or an error, delivered asynchronously.
    ///
    /// Awaiting it subscribes to the future; its failure is thrown.
    public var value: Output {
        get async throws {
            var iterator = values.makeAsyncIterator()
            guard let value = try await iterator.next() else { throw CancellationError() }
            return value
        }
    }
}
