// SPDX-License-Identifier: Apache-2.0
/// Eight bytes of UTF-8 read as one `UInt64` and tested or changed all at once: the scans over
/// decrypted text (search folding, titles) pass runs of ASCII eight bytes at a time.
///
/// ```swift
/// let word = ASCIIWord.load(from: bytes.baseAddress!)
/// if ASCIIWord.isASCII(word) { out = ASCIIWord.lowercased(word) }
/// ```
enum ASCIIWord {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `pointer` (any alignment), first byte lowest.
    static func load(from pointer: UnsafePointer<UInt8>) -> UInt64 {
        UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self)
    }

    static func isASCII(_ word: UInt64) -> Bool { word & highBits == 0 }

    /// Whether every byte of `bytes` is ASCII, eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        while index + 8 <= bytes.count {
            guard isASCII(load(from: base + index)) else { return false }
            index += 8
        }
        while index < bytes.count {
            guard base[index] < 0x80 else { return false }
            index += 1
        }
        return true
    }

    /// Whether one of the eight bytes is `byte`: a byte of `word ^ (byte × ones)` is zero
    /// exactly there, and the classic test says whether any byte is zero.
    static func contains(_ byte: UInt8, in word: UInt64) -> Bool {
        let differences = word ^ (ones &* UInt64(byte))
        return (differences &- ones) & ~differences & highBits != 0
    }

    /// Eight ASCII bytes with `A`–`Z` lower-cased: a byte's high bit is set by adding 0x3F when
    /// it is at least `A`, and by adding 0x25 when it is past `Z` (no carry crosses a byte,
    /// all being below 0x80); where only the first is set, 0x20 is added.
    static func lowercased(_ word: UInt64) -> UInt64 {
        let atLeastA = word &+ 0x3F3F_3F3F_3F3F_3F3F
        let pastZ = word &+ 0x2525_2525_2525_2525
        return word | (atLeastA & ~pastZ & highBits) >> 2
    }

    /// One byte with `A`–`Z` lower-cased.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}
