// SPDX-License-Identifier: Apache-2.0
/// Decoding one scalar from UTF-8 bytes, for the scans that work on bytes (search folding,
/// inline tags) and only decode around what they look at.
///
/// ```swift
/// Array("é".utf8).withUnsafeBufferPointer { UTF8Scalar.decode(at: 0, in: $0) }   // (0xE9, 2)
/// ```
enum UTF8Scalar {
    /// The scalar value whose encoding starts at `start`, and its length in bytes; nil when the
    /// sequence runs past the end. Continuation bits are taken as they are: valid input gives
    /// the scalar, invalid input some value, never a trap.
    @inline(__always)
    static func decode(at start: Int, in utf8: UnsafeBufferPointer<UInt8>) -> (value: UInt32, length: Int)? {
        let lead = utf8[start]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        guard start + length <= utf8.count else { return nil }
        var value = length == 1 ? UInt32(lead) : UInt32(lead) & (0x7F >> length)
        for offset in 1..<length { value = value << 6 | UInt32(utf8[start + offset] & 0x3F) }
        return (value, length)
    }
}
