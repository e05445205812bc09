import SluiceCore
import SluiceTesting

/// The virtual-time scheduler the timing tests run on.
typealias VirtualScheduler = TestScheduler<VirtualTime, Never>

extension VirtualTime.Stride {
    /// Shorthand for the tests: `n` milliseconds.
    static func ms(_ n: Int) -> Self { .milliseconds(n) }
}
