/// A publisher that performs type erasure by wrapping another publisher.
///
/// Use ``Publisher/eraseToAnyPublisher()`` to expose an `AnyPublisher` at an API boundary instead
/// of the concrete chain of operator types. Subscribing forwards to the wrapped publisher
/// unchanged, so demand, threading and completion behave exactly as the wrapped publisher's do.
@frozen
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline
    let box: PublisherBoxBase<Output, Failure>

    /// Creates a type-erasing publisher to wrap the provided publisher.
    @inlinable
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            box = erased.box
        } else {
            box = PublisherBox(publisher)
        }
    }

    /// Forwards the subscriber to the wrapped publisher.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        box.receive(subscriber: subscriber)
    }

    /// `"AnyPublisher"`.
    public var description: String { "AnyPublisher" }

    /// `"AnyPublisher"`.
    public var playgroundDescription: Any { description }
}

extension Publisher {
    /// Wraps this publisher with a type eraser, hiding its concrete type.
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}

extension AnyPublisher {
    /// Returns `self`: an `AnyPublisher` is already erased, so it is not wrapped again.
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        self
    }
}

/// The erased interface: subscribe any matching subscriber.
@usableFromInline
class PublisherBoxBase<Output, Failure: Error>: @unchecked Sendable {
    @inlinable
    init() {}

    @inlinable
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        fatalError("abstract")
    }
}

/// Holds the concrete publisher.
@usableFromInline
final class PublisherBox<P: Publisher>: PublisherBoxBase<P.Output, P.Failure>, @unchecked Sendable {
    @usableFromInline
    let publisher: P

    @inlinable
    init(_ publisher: P) {
        self.publisher = publisher
    }

    @inlinable
    override func receive<S: Subscriber>(subscriber: S) where S.Input == P.Output, S.Failure == P.Failure {
        publisher.receive(subscriber: subscriber)
    }
}

// Not `Sendable` in Apple's Combine. Frozen, so Swift would infer `Sendable` from its stored
// properties: under the `AppleConcurrencyShape` trait, that inference is switched off.
#if AppleConcurrencyShape
@available(*, unavailable)
extension AnyPublisher: Sendable {}
#endif
