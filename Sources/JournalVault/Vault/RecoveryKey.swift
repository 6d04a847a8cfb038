// SPDX-License-Identifier: Apache-2.0
import VaultCrypto

/// A 256-bit recovery key, shown once at `jv init` (and by `jv recovery-key`), that opens the
/// vault's recovery keyslot in place of the passphrase.
///
/// Text form (FORMAT.md §Recovery key): `JVR1-` then the RFC 4648 base32 (lower case, no
/// padding) of `key[32] ‖ check[3]`, in 14 groups of 4 joined by `-`, where `check` is the first
/// 3 bytes of BLAKE2b-256("JVLT-recovery-check" ‖ key). Parsing ignores case, spaces and dashes.
///
/// ```swift
/// let key = try RecoveryKey.generate()
/// let again = try RecoveryKey(text: key.text)
/// ```
public struct RecoveryKey: Sendable {
    static let keyLength = 32
    private static let checkLength = 3
    private static let prefix = "jvr1"
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    let secret: SecureBytes

    /// A new random recovery key.
    public static func generate() throws -> RecoveryKey {
        RecoveryKey(secret: try SecureBytes.random(count: keyLength))
    }

    init(secret: SecureBytes) {
        self.secret = secret
    }

    /// Parses the text form; throws ``VaultError/malformedRecoveryKey`` on any typo.
    public init(text: String) throws {
        // Every working copy of the key (its symbols, its bytes) is wiped; only `text`, a
        // String the caller owns, cannot be.
        var symbols = Array(text.lowercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") })
        defer { symbols.withUnsafeMutableBytes { Sodium.wipe($0) } }
        guard symbols.starts(with: Self.prefix.utf8) else { throw VaultError.malformedRecoveryKey }
        guard symbols.count == Self.prefix.utf8.count + 56, var decoded = Self.base32Decode(symbols.dropFirst(Self.prefix.utf8.count)) else {
            throw VaultError.malformedRecoveryKey
        }
        defer { decoded.withUnsafeMutableBytes { Sodium.wipe($0) } }
        let key = try SecureBytes(copying: decoded.prefix(Self.keyLength))
        guard Array(decoded.suffix(Self.checkLength)) == key.withUnsafeBytes(Self.check) else { throw VaultError.malformedRecoveryKey }
        secret = key
    }

    /// The text to show the user once. It is a Swift `String`, which cannot be wiped: show it and
    /// let it go.
    public var text: String {
        var encoded = secret.withUnsafeBytes { Self.base32Encode($0, then: Self.check($0)) }
        defer { encoded.withUnsafeMutableBytes { Sodium.wipe($0) } }
        var groups: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 4, limitedBy: encoded.endIndex) ?? encoded.endIndex
            groups.append(String(decoding: encoded[index..<end], as: UTF8.self))
            index = end
        }
        return "JVR1-" + groups.joined(separator: "-")
    }

    /// The check bytes, BLAKE2b-256("JVLT-recovery-check" ‖ key) cut to 3; the message holding a
    /// copy of the key is wiped.
    private static func check(_ key: UnsafeRawBufferPointer) -> [UInt8] {
        let domain = Array("JVLT-recovery-check".utf8)
        var message: [UInt8] = []
        message.reserveCapacity(domain.count + key.count)
        message += domain
        message += key
        defer { message.withUnsafeMutableBytes { Sodium.wipe($0) } }
        return Array(Blake2b.hash(message).prefix(checkLength))
    }

    /// Base32 symbols of `key` followed by `check` (the caller wipes them).
    private static func base32Encode(_ key: UnsafeRawBufferPointer, then check: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity((key.count + check.count) * 8 / 5 + 1)
        var buffer: UInt32 = 0
        var bits = 0
        func append(_ byte: UInt8) {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int(buffer >> UInt32(bits - 5) & 31)])
                bits -= 5
            }
        }
        key.forEach(append)
        check.forEach(append)
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return output
    }

    private static func base32Decode(_ symbols: ArraySlice<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            guard let value = alphabet.firstIndex(of: symbol) else { return nil }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        return output
    }
}
