// SPDX-License-Identifier: Apache-2.0
import CSodium

/// X25519 Diffie-Hellman (`crypto_scalarmult`), as age's recipient stanzas use it.
///
/// ```swift
/// let secret = try SecureBytes.random(count: 32)
/// let share = try X25519.publicKey(for: secret)
/// let shared = try X25519.sharedSecret(secret, theirPublicKey)
/// ```
public enum X25519 {
    public static let keyLength = Int(crypto_scalarmult_BYTES)

    public static func publicKey(for secret: SecureBytes) throws -> [UInt8] {
        Sodium.ready()
        guard secret.count == keyLength else { throw CryptoError.invalidKeyLength }
        var point = [UInt8](repeating: 0, count: keyLength)
        _ = secret.withUnsafeBytes { crypto_scalarmult_base(&point, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        return point
    }

    /// The shared secret; throws if it is all zeros (a low-order point), as age requires.
    public static func sharedSecret(_ secret: SecureBytes, _ publicKey: [UInt8]) throws -> SecureBytes {
        Sodium.ready()
        guard secret.count == keyLength, publicKey.count == keyLength else { throw CryptoError.invalidKeyLength }
        let shared = try SecureBytes.filling(count: keyLength) { out in
            let status = secret.withUnsafeBytes { crypto_scalarmult(out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                                    $0.baseAddress!.assumingMemoryBound(to: UInt8.self), publicKey) }
            guard status == 0 else { throw CryptoError.authenticationFailed }
        }
        let isZero = shared.withUnsafeBytes { bytes in sodium_is_zero(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count) == 1 }
        guard !isZero else { throw CryptoError.authenticationFailed }
        return shared
    }
}
