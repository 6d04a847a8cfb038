// SPDX-License-Identifier: Apache-2.0

/// One chunk of a STREAM — age's payload, and the body of a format-2 backup: ChaCha20-Poly1305
/// under the stream's own key, with the nonce of the chunk's place, its index as an 88-bit
/// big-endian number followed by 1 for the last chunk and 0 for any other. Each chunk seals and
/// opens on its own, so on any core, in any order; yet none can be moved, dropped, repeated or
/// taken for the end, since its place is in its nonce (Hoang, Reyhanitabar, Rogaway, Vizár, 2015).
///
/// ```swift
/// try StreamChunk.seal(plaintext, index: 0, last: true, key: bodyKey, associatedData: headerMAC, into: sealed)
/// try StreamChunk.open(sealed, index: 0, last: true, key: bodyKey, associatedData: headerMAC, into: plaintext)
/// ```
public enum StreamChunk {
    /// Bytes each chunk gains when sealed: the Poly1305 tag.
    public static let overhead = ChaCha20Poly1305.tagLength

    /// The nonce of chunk `index` (counting from 0).
    public static func nonce(index: UInt64, last: Bool) -> [UInt8] {
        [0, 0, 0] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: index >> (8 * UInt64($0))) } + [last ? 1 : 0]
    }

    public static func seal(_ plaintext: UnsafeRawBufferPointer, index: UInt64, last: Bool, key: SecureBytes, associatedData: [UInt8],
                            into sealed: UnsafeMutableRawBufferPointer) throws {
        try ChaCha20Poly1305.seal(plaintext, associatedData: associatedData, key: key, nonce: nonce(index: index, last: last), into: sealed)
    }

    /// Throws ``CryptoError/authenticationFailed`` unless `sealed` is chunk `index` of this
    /// stream, the last one exactly when `last`.
    public static func open(_ sealed: UnsafeRawBufferPointer, index: UInt64, last: Bool, key: SecureBytes, associatedData: [UInt8],
                            into plaintext: UnsafeMutableRawBufferPointer) throws {
        try ChaCha20Poly1305.open(sealed, associatedData: associatedData, key: key, nonce: nonce(index: index, last: last), into: plaintext)
    }
}
