// SPDX-License-Identifier: Apache-2.0
/// Blind indexes: a keyed BLAKE2b hash of a normalised value, truncated to 64 bits, so that
/// equal values can be found in SQL without storing them.
///
/// The caller normalises (see the vault's tag rules); this type only adds the domain
/// separation and the hashing.
///
/// ```swift
/// let index = BlindIndex(key: bidxKey)
/// let bidx = index.value(domain: "tag", parts: ["travel"])
/// ```
public struct BlindIndex: Sendable {
    public static let length = 8
    private let key: SecureBytes

    /// `key` is the vault's blind-index subkey.
    public init(key: SecureBytes) {
        self.key = key
    }

    /// `trunc64(BLAKE2b-256(key, domain ‖ 0x00 ‖ part₁ ‖ 0x00 ‖ part₂ …))`.
    public func value(domain: String, parts: [String]) -> [UInt8] {
        var message = Array(domain.utf8)
        for part in parts {
            message.append(0)
            message += part.utf8
        }
        let digest = key.withUnsafeBytes { Blake2b.hash(message, key: $0, length: 32) }
        return Array(digest.prefix(Self.length))
    }
}
