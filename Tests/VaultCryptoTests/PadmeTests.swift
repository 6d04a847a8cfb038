// SPDX-License-Identifier: Apache-2.0
import Testing
import VaultCrypto

@Suite struct PadmeTests {
    /// Known answers computed from the paper's algorithm (E = ⌊log₂ L⌋, S = ⌊log₂ E⌋ + 1, the
    /// low E − S bits rounded up) with Python's integers.
    static let knownAnswers: [(UInt64, UInt64)] = [
        (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (7, 7), (8, 8), (9, 10), (10, 10), (11, 12), (13, 14), (15, 16),
        (16, 16), (17, 18), (100, 104), (1000, 1024), (1023, 1024), (1025, 1088), (4097, 4352), (65537, 67584),
        (1_000_000, 1_015_808), (1_048_576, 1_048_576), (1_048_577, 1_081_344), (1_073_741_825, 1_107_296_256),
        (2_147_483_648, 2_147_483_648), (2_147_483_649, 2_214_592_512), (3_221_225_479, 3_288_334_336),
    ]

    @Test func paddedLengthsAreThePapers() {
        for (length, padded) in Self.knownAnswers {
            #expect(Padme.paddedLength(length) == padded, "Padmé(\(length))")
        }
    }

    @Test func paddingNeverShrinksAndCostsAtMostTwelvePercent() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let length = UInt64.random(in: 2...(1 << 40), using: &generator)
            let padded = Padme.paddedLength(length)
            #expect(padded >= length)
            #expect(Double(padded - length) / Double(length) <= 0.12)
            #expect(Padme.paddedLength(padded) == padded, "a padded length is its own padding")
        }
    }
}
