#if Server
/// A scheduled action carried to the loop. Combine's scheduler API takes plain closures (source
/// compatibility); the loop runs each exactly once, on its own thread.
struct UncheckedAction: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }

    /// The action itself, typed as the `@Sendable` closure it is used as (this type's
    /// `@unchecked Sendable` is the proof): handing it on as it is spares a closure around `run`.
    /// The whole struct is cast, whose one field has the same layout in both; a closure cast alone
    /// would go through a reabstraction thunk (an allocation).
    var sendable: @Sendable () -> Void { unsafeBitCast(self, to: SendableAction.self).run }
}

/// ``UncheckedAction``'s layout, with the closure typed `@Sendable`.
private struct SendableAction: Sendable {
    let run: @Sendable () -> Void
}
#endif
