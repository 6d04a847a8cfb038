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

    public static func unpad(_ bytes: [UInt8]) throws -> [UInt8] {
        var bytes = bytes
        try unpad(&bytes)
        return bytes
    }

    /// Removes the padding in place, keeping the storage (no copy on the decryption path).
    public static func unpad(_ bytes: inout [UInt8]) throws {
        let count = try bytes.withUnsafeBufferPointer(unpaddedCount)
        bytes.removeSubrange(count...)
    }

    /// How many bytes of `padded` come before its padding.
    public static func unpaddedCount(_ padded: UnsafeBufferPointer<UInt8>) throws -> Int {
        guard let marker = padded.lastIndex(where: { $0 != 0 }), padded[marker] == 0x80 else {
            throw CryptoError.invalidPadding
        }
        return marker
    }
}
