/// A sequence as an `AsyncSequence` that never suspends (swift-async-algorithms calls it
/// `.async`): the cheapest possible source for AsyncSequence operators. (A plain `for await` loop
/// over it compiles to the hand-written loop, so the `for await` implementations use an
/// `AsyncStream` instead.)
struct AsyncSyncSequence<Base: Sequence>: AsyncSequence {
    typealias Element = Base.Element
    typealias Failure = Never

    let base: Base

    struct AsyncIterator: AsyncIteratorProtocol {
        var iterator: Base.Iterator

        mutating func next() async -> Element? { iterator.next() }

        mutating func next(isolation actor: isolated (any Actor)?) async -> Element? { iterator.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(iterator: base.makeIterator()) }
}

extension Sequence {
    /// This sequence as an `AsyncSequence` that never suspends.
    var async: AsyncSyncSequence<Self> { AsyncSyncSequence(base: self) }
}

/// An `AsyncSequence` of one element: the async counterpart of `Just`.
struct AsyncJust<Element>: AsyncSequence, AsyncIteratorProtocol {
    typealias Failure = Never

    var element: Element?

    init(_ element: Element) {
        self.element = element
    }

    mutating func next() async -> Element? {
        defer { element = nil }
        return element
    }

    mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
        defer { element = nil }
        return element
    }

    func makeAsyncIterator() -> Self { self }
}

/// Sums what `stream` yields until it finishes.
func sum(of stream: AsyncStream<Int>) async -> Int {
    var sum = 0
    for await value in stream {
        sum &+= value
    }
    return sum
}

/// Folds what `stream` yields as the single-sink workloads do: `sum = sum &* 31 &+ value`.
func fold(_ stream: AsyncStream<Int>) async -> Int {
    var sum = 0
    for await value in stream {
        sum = sum &* 31 &+ value
    }
    return sum
}
