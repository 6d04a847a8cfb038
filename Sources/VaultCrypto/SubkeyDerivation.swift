// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Fixed-purpose subkeys of a master key via `crypto_kdf_derive_from_key`
/// (BLAKE2b keyed by the master key, with the subkey id and an 8-byte context).
///
/// ```swift
/// let recordKey = try SubkeyDerivation.derive(from: masterKey, id: 1, context: "JVLTREC1")
/// ```
public enum SubkeyDerivation {
    public static let keyLength = Int(crypto_kdf_KEYBYTES)

    /// A 32-byte subkey `id` of `masterKey` for `context` (exactly 8 ASCII characters).
    public static func derive(from masterKey: SecureBytes, id: UInt64, context: String) throws -> SecureBytes {
        Sodium.ready()
        let contextBytes = Array(context.utf8)
        guard masterKey.count == keyLength, contextBytes.count == Int(crypto_kdf_CONTEXTBYTES) else {
            throw CryptoError.invalidKeyLength
        }
        return try SecureBytes.filling(count: keyLength) { out in
            masterKey.withUnsafeBytes { master in
                contextBytes.withUnsafeBufferPointer { ctx in
                    ctx.withMemoryRebound(to: CChar.self) { cctx in
                        _ = crypto_kdf_derive_from_key(
                            out.baseAddress!.assumingMemoryBound(to: UInt8.self), keyLength, id, cctx.baseAddress!,
                            master.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
    }
}
