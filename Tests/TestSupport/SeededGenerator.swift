// SPDX-License-Identifier: Apache-2.0

/// SplitMix64 (Steele, Lea and Flood): a small deterministic generator, so that a randomised
/// test draws the same values on every run and a failure reproduces. Seeded tests' expectations
/// depend on this exact sequence: do not change the algorithm.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator whose first output is SplitMix64's for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next value of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
