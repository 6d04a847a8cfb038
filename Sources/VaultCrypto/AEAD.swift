// SPDX-License-Identifier: Apache-2.0
import CSodium
import Foundation

/// XChaCha20-Poly1305 (IETF) with a fresh random 192-bit nonce per message.
///
/// A sealed box is `nonce (24) ‖ ciphertext ‖ tag (16)`: 40 bytes longer than the plaintext.
///
/// ```swift
/// let box = try AEAD.seal(plaintext, key: key, associatedData: ad)
/// let plain = try AEAD.open(box, key: key, associatedData: ad)
/// ```
public enum AEAD {
    public static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    public static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    public static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    /// Bytes a sealed box adds to its plaintext.
    public static let overhead = nonceLength + tagLength

    /// Seals `plaintext` under a fresh random nonce.
    /// `plaintext` may be any contiguous bytes — a secret's own buffer, so no copy of it is made.
    public static func seal<Plaintext: ContiguousBytes>(_ plaintext: Plaintext, key: UnsafeRawBufferPointer, associatedData: [UInt8]) throws -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: nonceLength)
        nonce.withUnsafeMutableBytes { SecureRandom.fill($0) }
        return try seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
    }

    /// Seals with a caller-chosen nonce. Only known-answer tests should call this directly:
    /// a repeated (key, nonce) pair destroys confidentiality.
    public static func seal<Plaintext: ContiguousBytes>(_ plaintext: Plaintext, key: UnsafeRawBufferPointer, nonce: [UInt8],
                                                        associatedData: [UInt8]) throws -> [UInt8] {
        Sodium.ready()
        guard key.count == keyLength else { throw CryptoError.invalidKeyLength }
        guard nonce.count == nonceLength else { throw CryptoError.malformedCiphertext }
        return try plaintext.withUnsafeBytes { plain in
            var box = [UInt8](repeating: 0, count: nonceLength + plain.count + tagLength)
            box.replaceSubrange(0..<nonceLength, with: nonce)
            let status = box.withUnsafeMutableBufferPointer { out in
                var written: UInt64 = 0
                return crypto_aead_xchacha20poly1305_ietf_encrypt(
                    out.baseAddress! + nonceLength, &written,
                    plain.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plain.count),
                    associatedData, UInt64(associatedData.count),
                    nil, nonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            guard status == 0 else { throw CryptoError.encryptionFailed }
            return box
        }
    }

    /// Opens a sealed box; throws ``CryptoError/authenticationFailed`` on any change to the box,
    /// the key or the associated data.
    public static func open<Box: ContiguousBytes>(_ box: Box, key: UnsafeRawBufferPointer, associatedData: [UInt8]) throws -> [UInt8] {
        try box.withUnsafeBytes { box in
            guard box.count >= overhead else { throw CryptoError.malformedCiphertext }
            // Uninitialised: libsodium writes every byte, and only after the tag has verified
            // (on a throw the count stays 0).
            return try [UInt8](unsafeUninitializedCapacity: box.count - overhead) { out, count in
                count = try associatedData.withUnsafeBytes { try open(box, key: key, associatedData: $0, into: UnsafeMutableRawBufferPointer(out)) }
            }
        }
    }

    /// Opens a box that wraps a key straight into secure memory (no copy of the key in an
    /// ordinary array); throws ``CryptoError/authenticationFailed`` as ``open(_:key:associatedData:)``
    /// does, and ``CryptoError/malformedCiphertext`` if it does not hold exactly `length` bytes.
    public static func openKey(_ box: [UInt8], length: Int, key: UnsafeRawBufferPointer, associatedData: [UInt8]) throws -> SecureBytes {
        guard box.count - overhead == length else { throw CryptoError.malformedCiphertext }
        return try SecureBytes.filling(count: length) { output in
            _ = try box.withUnsafeBytes { box in
                try associatedData.withUnsafeBytes { try open(box, key: key, associatedData: $0, into: output) }
            }
        }
    }

    /// What `box` decrypts to under `key` **without its tag checked**, into `output`: noise for a
    /// wrong key; the plaintext for the right key even when the associated data changed. Only
    /// for telling damage from a wrong key, where the result must then prove itself elsewhere
    /// (a candidate master key opening a record): never use it unverified.
    /// (XChaCha20-Poly1305 encrypts with the XChaCha20 stream from block 1; block 0 keys Poly1305.)
    public static func unverifiedPlaintext(of box: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                                           into output: UnsafeMutableRawBufferPointer) throws {
        Sodium.ready()
        guard key.count == keyLength else { throw CryptoError.invalidKeyLength }
        guard box.count >= overhead, output.count >= box.count - overhead else { throw CryptoError.malformedCiphertext }
        let bytes = box.bindMemory(to: UInt8.self)
        let status = crypto_stream_xchacha20_xor_ic(
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.baseAddress! + nonceLength,
            UInt64(box.count - overhead), bytes.baseAddress!, 1, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        guard status == 0 else { throw CryptoError.malformedCiphertext }
    }

    /// Opens a sealed box into `output` (at least `box.count - overhead` bytes) and returns the
    /// plaintext's length: for callers that use the plaintext in place and never keep it.
    public static func open(_ box: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
                            into output: UnsafeMutableRawBufferPointer) throws -> Int {
        Sodium.ready()
        guard key.count == keyLength else { throw CryptoError.invalidKeyLength }
        guard box.count >= overhead, output.count >= box.count - overhead else { throw CryptoError.malformedCiphertext }
        let bytes = box.bindMemory(to: UInt8.self)
        var written: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, nil,
            bytes.baseAddress! + nonceLength, UInt64(box.count - nonceLength),
            associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
            bytes.baseAddress!, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        guard status == 0 else { throw CryptoError.authenticationFailed }
        return Int(written)
    }
}
