// Apple's fused overloads of `append` and `prepend`: on a `Publishers.Sequence` of a collection and on
// `Just`, they return a sequence rather than a `Publishers.Concatenate`.

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
    /// Prepends the values to the collection itself.
    @inlinable
    public func prepend(_ elements: Publishers.Sequence<Elements, Failure>.Output...)
        -> Publishers.Sequence<Elements, Failure>
    {
        prepend(elements)
    }

    /// Prepends the sequence to the collection itself: a new collection, with room reserved for
    /// both, that gets the prepended elements, then the collection's (as Apple's builds it).
    @inlinable
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
    where Elements.Element == S.Element {
        var combined = Elements()
        combined.reserveCapacity(sequence.count + elements.underestimatedCount)
        combined.append(contentsOf: elements)
        combined.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: combined)
    }

    /// Prepends the other collection publisher's elements to the collection itself: the other
    /// collection with this one appended (as Apple's builds it).
    @inlinable
    public func prepend(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        var combined = publisher.sequence
        combined.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: combined)
    }

    /// Appends the values to the collection itself.
    @inlinable
    public func append(_ elements: Publishers.Sequence<Elements, Failure>.Output...)
        -> Publishers.Sequence<Elements, Failure>
    {
        append(elements)
    }

    /// Appends the sequence to the collection itself.
    @inlinable
    public func append<S: Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
    where Elements.Element == S.Element {
        var combined = sequence
        combined.append(contentsOf: elements)
        return Publishers.Sequence(sequence: combined)
    }

    /// Appends the other collection publisher's elements to the collection itself.
    @inlinable
    public func append(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        append(publisher.sequence)
    }
}

extension Just {
    /// Prepends the values to the one output, as a sequence publisher.
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Just<Output>.Failure> {
        prepend(elements)
    }

    /// Prepends the sequence to the one output, as a sequence publisher.
    @inlinable
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Just<Output>.Failure>
    where Output == S.Element {
        var combined: [Output] = []
        combined.reserveCapacity(elements.underestimatedCount + 1)
        combined.append(contentsOf: elements)
        combined.append(output)
        return Publishers.Sequence(sequence: combined)
    }

    /// Appends the values to the one output, as a sequence publisher.
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Just<Output>.Failure> {
        append(elements)
    }

    /// Appends the sequence to the one output, as a sequence publisher.
    @inlinable
    public func append<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Just<Output>.Failure>
    where Output == S.Element {
        Publishers.Sequence(sequence: [output] + elements)
    }
}
