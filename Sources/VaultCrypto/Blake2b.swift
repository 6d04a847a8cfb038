// SPDX-License-Identifier: Apache-2.0
import CSodium

/// BLAKE2b (RFC 7693) as libsodium's `crypto_generichash`: keyed hashing for blind indexes
/// and the manifest, and the salted, personalised form used to derive per-record subkeys.
///
/// ```swift
/// let digest = Blake2b.hash(message, key: key, length: 32)
/// ```
public enum Blake2b {
    /// The length of `salt` and `personal` in ``derive(key:salt:personal:message:into:)``.
    public static let saltLength = Int(crypto_generichash_blake2b_SALTBYTES)

    /// BLAKE2b of `message`, optionally keyed, `length` bytes long (16…64).
    ///
    /// Every caller passes fixed lengths and keys of fixed size, so a length libsodium refuses
    /// is a programming error: it stops the process rather than return a digest of zeros.
    public static func hash(_ message: [UInt8], key: UnsafeRawBufferPointer? = nil, length: Int = 32) -> [UInt8] {
        Sodium.ready()
        precondition((Int(crypto_generichash_BYTES_MIN)...Int(crypto_generichash_BYTES_MAX)).contains(length),
                     "BLAKE2b length \(length) is outside libsodium's limits")
        precondition(key.map { (Int(crypto_generichash_KEYBYTES_MIN)...Int(crypto_generichash_KEYBYTES_MAX)).contains($0.count) } ?? true,
                     "BLAKE2b key length is outside libsodium's limits")
        var output = [UInt8](repeating: 0, count: length)
        let status = crypto_generichash(&output, length, message, UInt64(message.count),
                                        key?.baseAddress?.assumingMemoryBound(to: UInt8.self), key?.count ?? 0)
        precondition(status == 0, "crypto_generichash failed")
        return output
    }

    /// Keyed BLAKE2b with a 16-byte salt and 16-byte personalisation, written into `output`
    /// (which may be secure memory, 16…64 bytes). Used for subkeys, so the result never lands
    /// in an array.
    public static func derive(key: UnsafeRawBufferPointer, salt: [UInt8], personal: [UInt8], message: [UInt8],
                              into output: UnsafeMutableRawBufferPointer) throws {
        Sodium.ready()
        // libsodium checks only the maximum here: it would compute a digest shorter than its
        // own documented minimum.
        guard (Int(crypto_generichash_blake2b_BYTES_MIN)...Int(crypto_generichash_blake2b_BYTES_MAX)).contains(output.count) else {
            throw CryptoError.hashFailed
        }
        guard salt.count == saltLength, personal.count == saltLength else { throw CryptoError.invalidKeyLength }
        guard key.count >= Int(crypto_generichash_blake2b_KEYBYTES_MIN),
              key.count <= Int(crypto_generichash_blake2b_KEYBYTES_MAX) else { throw CryptoError.invalidKeyLength }
        guard let outputBase = output.baseAddress, let keyBase = key.baseAddress,
              crypto_generichash_blake2b_salt_personal(outputBase.assumingMemoryBound(to: UInt8.self), output.count,
                                                       message, UInt64(message.count),
                                                       keyBase.assumingMemoryBound(to: UInt8.self), key.count, salt, personal) == 0 else {
            throw CryptoError.hashFailed
        }
    }

    /// A 16-byte personalisation string: the ASCII `text`, NUL-padded.
    public static func personal(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8.prefix(saltLength))
        bytes += [UInt8](repeating: 0, count: saltLength - bytes.count)
        return bytes
    }
}
