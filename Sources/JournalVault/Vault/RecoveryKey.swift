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
        var symbols = Array(text.lowercased().utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") })
        guard symbols.starts(with: Self.prefix.utf8) else { throw VaultError.malformedRecoveryKey }
        symbols.removeFirst(Self.prefix.utf8.count)
        guard symbols.count == 56, var decoded = Self.base32Decode(symbols) else { throw VaultError.malformedRecoveryKey }
        defer { decoded.withUnsafeMutableBytes { Sodium.wipe($0) } }
        let key = Array(decoded.prefix(Self.keyLength))
        guard Array(decoded.suffix(Self.checkLength)) == Self.check(key) else { throw VaultError.malformedRecoveryKey }
        secret = try SecureBytes(copying: key)
    }

    /// The text to show the user once. It is a Swift `String`, which cannot be wiped: show it and
    /// let it go.
    public var text: String {
        let bytes = secret.withUnsafeBytes { Array($0) }
        let encoded = Self.base32Encode(bytes + Self.check(bytes))
        var groups: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 4, limitedBy: encoded.endIndex) ?? encoded.endIndex
            groups.append(String(encoded[index..<end]))
            index = end
        }
        return "JVR1-" + groups.joined(separator: "-")
    }

    private static func check(_ key: [UInt8]) -> [UInt8] {
        Array(Blake2b.hash(Array("JVLT-recovery-check".utf8) + key).prefix(checkLength))
    }

    private static func base32Encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int(buffer >> UInt32(bits - 5) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    private static func base32Decode(_ symbols: [UInt8]) -> [UInt8]? {
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
