// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// Passphrase normalisation: Unicode NFC, so the same passphrase typed on systems that
/// compose accents differently opens the vault.
enum Passphrase {
    /// `passphrase` in NFC. ASCII (and any already-NFC text) is returned as it is, never
    /// passing through a `String`; other text must, because normalisation needs one, and a Swift
    /// string cannot be wiped (SECURITY.md says so).
    static func normalized(_ passphrase: SecureBytes) throws -> SecureBytes {
        let isASCII = passphrase.withUnsafeBytes { $0.allSatisfy { $0 < 0x80 } }
        if isASCII { return passphrase }
        var bytes = passphrase.withUnsafeBytes { Array($0) }
        defer { bytes.withUnsafeMutableBytes { Sodium.wipe($0) } }
        guard let text = String(validating: bytes, as: UTF8.self) else { return passphrase }
        var normalized = Array(text.precomposedStringWithCanonicalMapping.utf8)
        defer { normalized.withUnsafeMutableBytes { Sodium.wipe($0) } }
        if normalized == bytes { return passphrase }
        return try SecureBytes(copying: normalized)
    }
}
