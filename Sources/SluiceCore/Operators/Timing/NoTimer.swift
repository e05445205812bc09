/// The timer slot's value when no timer runs: cancelling it does nothing.
///
/// Time operators keep their scheduler's current timer in a plain `any Cancellable` holding this
/// placeholder when there is none, rather than in an optional: they take the timer out with
/// `swap` (a move) and cancel it, where copying or destroying an `Optional<any Cancellable>` goes
/// through the runtime's value witnesses of `Optional` (some hundred instructions each, on every
/// element of `debounce`).
@usableFromInline
struct NoTimer: Cancellable {
    @inlinable
    init() {}

    @inlinable
    func cancel() {}
}
