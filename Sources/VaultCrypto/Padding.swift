// SPDX-License-Identifier: Apache-2.0
/// ISO/IEC 7816-4 padding (libsodium's `sodium_pad`): append 0x80, then zeros up to a
/// multiple of the block size. Hides exact plaintext lengths inside a bucket.
///
/// ```swift
/// let padded = Padding.pad(Array("hi".utf8), blockSize: 64)   // 64 bytes
/// let plain = try Padding.unpad(padded)                        // "hi"
/// ```
public enum Padding {
    public static func pad(_ bytes: [UInt8], blockSize: Int) -> [UInt8] {
        let paddedLength = (bytes.count / blockSize + 1) * blockSize
        var padded = bytes
        padded.reserveCapacity(paddedLength)
        padded.append(0x80)
        padded += [UInt8](repeating: 0, count: paddedLength - padded.count)
        return padded
    }

    public static func unpad(_ bytes: [UInt8], blockSize: Int = 64) throws -> [UInt8] {
        var bytes = bytes
        try unpad(&bytes, blockSize: blockSize)
        return bytes
    }

    /// Removes the padding in place, keeping the storage (no copy on the decryption path).
    public static func unpad(_ bytes: inout [UInt8], blockSize: Int = 64) throws {
        let count = try bytes.withUnsafeBufferPointer { try unpaddedCount($0, blockSize: blockSize) }
        bytes.removeSubrange(count...)
    }

    /// How many bytes of `padded` come before its padding, when it is of the form ``pad(_:blockSize:)``
    /// makes: a non-zero multiple of `blockSize` long, its last non-zero byte 0x80 and within the
    /// last block (FORMAT.md §4.3). `blockSize` is 64 by default, the block of every field of a vault.
    public static func unpaddedCount(_ padded: UnsafeBufferPointer<UInt8>, blockSize: Int = 64) throws -> Int {
        guard blockSize > 0, !padded.isEmpty, padded.count % blockSize == 0,
              let marker = padded[(padded.count - blockSize)...].lastIndex(where: { $0 != 0 }), padded[marker] == 0x80 else {
            throw CryptoError.invalidPadding
        }
        return marker
    }
}
