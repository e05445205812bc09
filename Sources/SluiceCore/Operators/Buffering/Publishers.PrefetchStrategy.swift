extension Publishers {
    /// A strategy for filling a buffer.
    ///
    /// Used by ``Publisher/buffer(size:prefetch:whenFull:)``.
    public enum PrefetchStrategy: Equatable, Hashable {
        /// A strategy to fill the buffer at subscription time, and keep it full thereafter.
        ///
        /// The buffer requests `size` elements from the upstream when the subscriber first
        /// connects, then one more for every element it hands to the downstream, so that the
        /// elements buffered plus the ones still requested always make `size`.
        case keepFull

        /// A strategy that avoids prefetching and instead performs requests on demand.
        ///
        /// As in Apple's Combine, the buffer asks the upstream for `.unlimited` elements when the
        /// subscriber connects and holds what the downstream has not asked for yet: the buffer
        /// then absorbs a producer that is faster than its consumer, and ``BufferingStrategy``
        /// decides what happens once it is full.
        case byRequest
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Publishers.PrefetchStrategy: Sendable {}
#endif
