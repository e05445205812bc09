/// A small random generator whose sequence its seed decides (SplitMix64): a property test that
/// draws its cases from it draws the same cases on every run, so that a failing case is found again
/// from its seed and index alone.
///
/// ```swift
/// var random = SeededGenerator(seed: 42)
/// let count = Int.random(in: 0...100, using: &random)   // the same on every run
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence `seed` decides.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
