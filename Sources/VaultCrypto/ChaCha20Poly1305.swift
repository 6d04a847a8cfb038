// SPDX-License-Identifier: Apache-2.0
import CSodium

/// ChaCha20-Poly1305 (IETF, RFC 8439) with a caller-built 96-bit nonce: the AEAD of the age
/// format and of a format-2 backup's body, whose nonces are counters (never random), each key
/// being used for one file only (``StreamChunk``).
///
/// ```swift
/// let sealed = try ChaCha20Poly1305.seal(chunk, key: key, nonce: counterNonce)
/// ```
public enum ChaCha20Poly1305 {
    public static let nonceLength = Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES)
    public static let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)

    public static func seal(_ plaintext: [UInt8], key: SecureBytes, nonce: [UInt8]) throws -> [UInt8] {
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        try plaintext.withUnsafeBytes { plaintext in
            try sealed.withUnsafeMutableBytes { try seal(plaintext, associatedData: [], key: key, nonce: nonce, into: $0) }
        }
        return sealed
    }

    public static func open<Sealed: Collection>(_ sealed: Sealed, key: SecureBytes, nonce: [UInt8]) throws -> [UInt8] where Sealed.Element == UInt8 {
        let sealed = Array(sealed)
        guard sealed.count >= tagLength else { throw CryptoError.malformedCiphertext }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - tagLength)
        try sealed.withUnsafeBytes { sealed in
            try plaintext.withUnsafeMutableBytes { try open(sealed, associatedData: [], key: key, nonce: nonce, into: $0) }
        }
        return plaintext
    }

    /// Seals `plaintext` into `sealed`, exactly ``tagLength`` bytes longer: the ciphertext, then the tag.
    public static func seal(_ plaintext: UnsafeRawBufferPointer, associatedData: [UInt8], key: SecureBytes, nonce: [UInt8],
                            into sealed: UnsafeMutableRawBufferPointer) throws {
        Sodium.ready()
        guard key.count == 32, nonce.count == nonceLength else { throw CryptoError.invalidKeyLength }
        guard sealed.count == plaintext.count + tagLength else { throw CryptoError.malformedCiphertext }
        var length: UInt64 = 0
        _ = key.withUnsafeBytes { key in
            crypto_aead_chacha20poly1305_ietf_encrypt(sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), &length,
                                                      plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                                                      associatedData, UInt64(associatedData.count), nil, nonce,
                                                      key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Opens `sealed` into `plaintext`, exactly ``tagLength`` bytes shorter; throws
    /// ``CryptoError/authenticationFailed`` (with `plaintext` zeroed) unless it is authentic.
    public static func open(_ sealed: UnsafeRawBufferPointer, associatedData: [UInt8], key: SecureBytes, nonce: [UInt8],
                            into plaintext: UnsafeMutableRawBufferPointer) throws {
        Sodium.ready()
        guard key.count == 32, nonce.count == nonceLength else { throw CryptoError.invalidKeyLength }
        guard sealed.count >= tagLength, plaintext.count == sealed.count - tagLength else { throw CryptoError.malformedCiphertext }
        var length: UInt64 = 0
        let status = key.withUnsafeBytes { key in
            crypto_aead_chacha20poly1305_ietf_decrypt(plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, nil,
                                                      sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count),
                                                      associatedData, UInt64(associatedData.count), nonce,
                                                      key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0 else {
            if let base = plaintext.baseAddress { sodium_memzero(base, plaintext.count) }
            throw CryptoError.authenticationFailed
        }
    }
}
