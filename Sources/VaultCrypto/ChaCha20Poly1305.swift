// SPDX-License-Identifier: Apache-2.0
import CSodium

/// ChaCha20-Poly1305 (IETF, RFC 8439) with a caller-built 96-bit nonce: the AEAD of the age
/// format, whose nonces are counters (never random), each key being used for one file only.
///
/// ```swift
/// let sealed = try ChaCha20Poly1305.seal(chunk, key: key, nonce: counterNonce)
/// ```
public enum ChaCha20Poly1305 {
    public static let nonceLength = Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES)
    public static let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)

    public static func seal(_ plaintext: [UInt8], key: SecureBytes, nonce: [UInt8]) throws -> [UInt8] {
        Sodium.ready()
        guard key.count == 32, nonce.count == nonceLength else { throw CryptoError.invalidKeyLength }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var length: UInt64 = 0
        _ = key.withUnsafeBytes { key in
            crypto_aead_chacha20poly1305_ietf_encrypt(&sealed, &length, plaintext, UInt64(plaintext.count), nil, 0, nil, nonce,
                                                      key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return sealed
    }

    public static func open<Sealed: Collection>(_ sealed: Sealed, key: SecureBytes, nonce: [UInt8]) throws -> [UInt8] where Sealed.Element == UInt8 {
        Sodium.ready()
        let sealed = Array(sealed)
        guard key.count == 32, nonce.count == nonceLength else { throw CryptoError.invalidKeyLength }
        guard sealed.count >= tagLength else { throw CryptoError.malformedCiphertext }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - tagLength)
        var length: UInt64 = 0
        let status = key.withUnsafeBytes { key in
            crypto_aead_chacha20poly1305_ietf_decrypt(&plaintext, &length, nil, sealed, UInt64(sealed.count), nil, 0, nonce,
                                                      key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0 else { throw CryptoError.authenticationFailed }
        return plaintext
    }
}
