import SluiceCore

extension PublisherContract {
    /// A publisher under test together with the code that makes it emit.
    ///
    /// Use it when the events come from something other than the publisher itself — a control,
    /// a player, the subject at the head of a pipeline — that the factory creates along with it:
    ///
    /// ```swift
    /// try await PublisherContract.verify {
    ///     let button = Button()
    ///     return PublisherContract.Fixture(button.publisher(for: .touchUpInside)) {
    ///         button.tap()
    ///         button.tap()
    ///     }
    /// }
    /// ```
    ///
    /// The fixture is created, driven and released on the scenario's thread; it may hold
    /// anything, Sendable or not. It stays alive until the scenario's release check is done, so
    /// a source that keeps a subscriber after cancel (a subject that never forgets a subscription)
    /// is caught.
    public struct Fixture<Upstream: Publisher> {
        /// The publisher under test.
        public let publisher: Upstream
        /// Called once per scenario, after the probe has subscribed (and made its initial request):
        /// makes the publisher emit. Must return within the verification's `timeout`.
        public let drive: () -> Void

        /// A fixture for `publisher`, made to emit by `drive` (nothing by default).
        public init(_ publisher: Upstream, drive: @escaping () -> Void = {}) {
            self.publisher = publisher
            self.drive = drive
        }
    }
}
