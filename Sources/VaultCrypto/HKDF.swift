// SPDX-License-Identifier: Apache-2.0
import CSodium

/// HMAC-SHA-256 (`crypto_auth_hmacsha256`, any key length) and HKDF-SHA-256 (RFC 5869), as the
/// age format derives its keys.
///
/// ```swift
/// let key = HKDF.derive(inputKey: fileKey, salt: [], info: "header", length: 32)
/// ```
public enum HKDF {
    /// HMAC-SHA-256 of `message` under `key`.
    public static func hmac(key: UnsafeRawBufferPointer, _ message: [UInt8]) -> [UInt8] {
        Sodium.ready()
        var state = crypto_auth_hmacsha256_state()
        defer { sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size) }
        var output = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        var empty: UInt8 = 0
        if let base = key.baseAddress, key.count > 0 {
            _ = crypto_auth_hmacsha256_init(&state, base.assumingMemoryBound(to: UInt8.self), key.count)
        } else {
            _ = crypto_auth_hmacsha256_init(&state, &empty, 0)
        }
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &output)
        return output
    }

    /// The longest output HKDF-SHA-256 defines: 255 blocks of 32 bytes.
    public static let maximumLength = 255 * 32

    /// HKDF-SHA-256: extract with `salt`, expand with `info` to `length` bytes (≤ 8160).
    public static func derive(inputKey: SecureBytes, salt: [UInt8], info: String, length: Int) throws -> SecureBytes {
        guard (0...maximumLength).contains(length) else { throw CryptoError.invalidKeyLength }
        var prk = inputKey.withUnsafeBytes { ikm in salt.withUnsafeBytes { hmac(key: $0, Array(ikm)) } }
        defer { prk.withUnsafeMutableBytes { Sodium.wipe($0) } }
        var output: [UInt8] = []
        var block: [UInt8] = []
        for counter in UInt8(1)...UInt8(255) where output.count < length {
            block = prk.withUnsafeBytes { hmac(key: $0, block + Array(info.utf8) + [counter]) }
            output += block
        }
        defer { output.withUnsafeMutableBytes { Sodium.wipe($0) } }
        return try SecureBytes(copying: output.prefix(length))
    }
}
