extension Publishers {
    /// A strategy that handles exhaustion of a buffer's capacity.
    ///
    /// Used by ``Publisher/buffer(size:prefetch:whenFull:)`` when an element arrives and the
    /// buffer already holds `size` elements the downstream has not asked for.
    public enum BufferingStrategy<Failure: Error> {
        /// When the buffer is full, discard the newly received element.
        case dropNewest

        /// When the buffer is full, discard the oldest element in the buffer.
        case dropOldest

        /// When the buffer is full, execute the closure to provide a custom error.
        ///
        /// The buffer cancels its upstream, discards the buffered elements and fails with the
        /// error the closure returns (called once, without any lock held).
        case customError(() -> Failure)
    }
}
