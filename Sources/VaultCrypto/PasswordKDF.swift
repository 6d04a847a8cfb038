// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Argon2id (`crypto_pwhash`, ALG_ARGON2ID13) cost parameters.
///
/// ```swift
/// let parameters = KDFParameters.profile(.moderate)
/// try parameters.validate()   // the reader policy, before any work
/// ```
public struct KDFParameters: Hashable, Sendable {
    /// Argon2 passes (`opslimit`).
    public var operations: UInt32
    /// Memory in bytes (`memlimit`); always a whole number of KiB.
    public var memoryBytes: UInt64

    public init(operations: UInt32, memoryBytes: UInt64) {
        self.operations = operations
        self.memoryBytes = memoryBytes
    }

    /// The named cost profiles `jv init --kdf` offers.
    public enum Profile: String, CaseIterable, Sendable {
        case interactive, moderate, sensitive
    }

    /// Parameters of a named profile: interactive (2, 64 MiB), moderate (3, 256 MiB),
    /// sensitive (4, 1 GiB).
    public static func profile(_ profile: Profile) -> KDFParameters {
        switch profile {
        case .interactive: KDFParameters(operations: 2, memoryBytes: 64 << 20)
        case .moderate: KDFParameters(operations: 3, memoryBytes: 256 << 20)
        case .sensitive: KDFParameters(operations: 4, memoryBytes: 1 << 30)
        }
    }

    /// The profile these parameters equal, if any.
    public var profileName: Profile? {
        Profile.allCases.first { Self.profile($0) == self }
    }

    public static let operationsRange: ClosedRange<UInt32> = 2...16
    public static let memoryRange: ClosedRange<UInt64> = (64 << 20)...(4 << 30)

    /// The reader policy (SECURITY.md): parameters read from a file are refused unless
    /// 2 ≤ ops ≤ 16, 64 MiB ≤ mem ≤ 4 GiB and mem is a whole number of KiB. Checked before
    /// any Argon2 work or allocation, so a crafted file cannot make us spin or exhaust memory,
    /// nor downgrade the cost below the floor.
    public func validate() throws {
        guard Self.operationsRange.contains(operations) else {
            throw CryptoError.kdfParametersRefused("Argon2id passes \(operations) outside \(Self.operationsRange.lowerBound)…\(Self.operationsRange.upperBound)")
        }
        guard Self.memoryRange.contains(memoryBytes) else {
            throw CryptoError.kdfParametersRefused("Argon2id memory \(memoryBytes) bytes outside 64 MiB…4 GiB")
        }
        guard memoryBytes % 1024 == 0 else {
            throw CryptoError.kdfParametersRefused("Argon2id memory \(memoryBytes) bytes is not a whole number of KiB")
        }
    }
}

/// Argon2id key stretching of a passphrase into a key-encryption key.
///
/// ```swift
/// let kek = try PasswordKDF.deriveKey(passphrase: secret, salt: salt, parameters: .profile(.moderate))
/// ```
public enum PasswordKDF {
    public static let saltLength = Int(crypto_pwhash_SALTBYTES)
    public static let keyLength = 32

    /// Runs Argon2id after checking ``KDFParameters/validate()``.
    public static func deriveKey(passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters) throws -> SecureBytes {
        Sodium.ready()
        try parameters.validate()
        guard salt.count == saltLength else { throw CryptoError.invalidKeyLength }
        #if DEBUG
        if let cache = TestKDFCache.folder {
            return try TestKDFCache(folder: cache).key(passphrase: passphrase, salt: salt, parameters: parameters) {
                try argon2id(passphrase: passphrase, salt: salt, parameters: parameters)
            }
        }
        #endif
        return try argon2id(passphrase: passphrase, salt: salt, parameters: parameters)
    }

    private static func argon2id(passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters) throws -> SecureBytes {
        try SecureBytes.filling(count: keyLength) { out in
            let status = passphrase.withUnsafeBytes { pass in
                crypto_pwhash(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(keyLength),
                    pass.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(pass.count),
                    salt, UInt64(parameters.operations), Int(parameters.memoryBytes),
                    crypto_pwhash_ALG_ARGON2ID13)
            }
            guard status == 0 else { throw CryptoError.kdfFailed }
        }
    }
}
