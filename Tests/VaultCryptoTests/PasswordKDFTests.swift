// SPDX-License-Identifier: Apache-2.0
import TestSupport
import Testing
import VaultCrypto

/// Expected keys come from argon2-cffi (the Argon2 reference implementation, independent of
/// libsodium): `hash_secret_raw(secret, salt, time_cost, memory_cost=65536, parallelism=1,
/// hash_len=32, type=Type.ID)`.
@Suite struct PasswordKDFTests {
    static let mebibyte: UInt64 = 1 << 20

    @Test(arguments: [
        ("correct horse battery staple", byteRange(0x00...0x0f), UInt32(2),
         "c05ce4c4dd7e0e45ee6011cc59d068ade47df1b01fc0cf9cd4678bdf68a5b7b0"),
        ("correct horse battery staple", byteRange(0x00...0x0f), 3,
         "0d1a3c6523c8f06e4e0af9c515aa5b5448cfebd6838f2d52c3d8b6ef8ddc3c2e"),
        ("caf\u{e9}", Array("JournalVaultSalt".utf8), 2,
         "87a59f414b2d784fee294d61b73dc2858f98c6d4d56c20db5e87ace64e6ce7cd"),
    ])
    func argon2idKnownAnswerAt64MiB(passphrase: String, salt: [UInt8], operations: UInt32, expected: String) throws {
        let key = try PasswordKDF.deriveKey(passphrase: try SecureBytes(copying: Array(passphrase.utf8)), salt: salt,
                                            parameters: KDFParameters(operations: operations, memoryBytes: 64 * Self.mebibyte))
        #expect(key.count == PasswordKDF.keyLength)
        #expect(key.withUnsafeBytes { Array($0) }.hex == expected)
    }

    @Test func profilesHaveTheDocumentedCosts() {
        #expect(KDFParameters.profile(.interactive) == KDFParameters(operations: 2, memoryBytes: 64 << 20))
        #expect(KDFParameters.profile(.moderate) == KDFParameters(operations: 3, memoryBytes: 256 << 20))
        #expect(KDFParameters.profile(.sensitive) == KDFParameters(operations: 4, memoryBytes: 1 << 30))
        for profile in KDFParameters.Profile.allCases {
            #expect(KDFParameters.profile(profile).profileName == profile)
            #expect(throws: Never.self) { try KDFParameters.profile(profile).validate() }
        }
        #expect(KDFParameters(operations: 2, memoryBytes: 128 << 20).profileName == nil)
    }

    /// Outside 2 ≤ ops ≤ 16, 64 MiB ≤ mem ≤ 4 GiB, or mem not a whole number of KiB: refused by
    /// the policy before Argon2 runs (a 1 TiB request would otherwise try to allocate it).
    @Test(arguments: [
        KDFParameters(operations: 0, memoryBytes: 64 << 20),
        KDFParameters(operations: 1, memoryBytes: 64 << 20),
        KDFParameters(operations: 17, memoryBytes: 64 << 20),
        KDFParameters(operations: .max, memoryBytes: 64 << 20),
        KDFParameters(operations: 2, memoryBytes: 8 << 10),
        KDFParameters(operations: 2, memoryBytes: (64 << 20) - 1024),
        KDFParameters(operations: 2, memoryBytes: 1 << 40),
        KDFParameters(operations: 2, memoryBytes: (4 << 30) + 1024),
        KDFParameters(operations: 2, memoryBytes: (64 << 20) + 1),
        KDFParameters(operations: 2, memoryBytes: (64 << 20) + 1023),
        KDFParameters(operations: 2, memoryBytes: .max),
    ])
    func outOfPolicyParametersAreRefusedBeforeWork(parameters: KDFParameters) throws {
        let passphrase = try SecureBytes(copying: Array("passphrase".utf8))
        let error = #expect(throws: CryptoError.self) {
            try PasswordKDF.deriveKey(passphrase: passphrase, salt: [UInt8](repeating: 0, count: 16), parameters: parameters)
        }
        guard case .kdfParametersRefused? = error else {
            Issue.record("expected kdfParametersRefused, got \(String(describing: error))")
            return
        }
        #expect(throws: CryptoError.self) { try parameters.validate() }
    }

    @Test(arguments: [
        KDFParameters(operations: 2, memoryBytes: 64 << 20),
        KDFParameters(operations: 16, memoryBytes: 64 << 20),
        KDFParameters(operations: 2, memoryBytes: 4 << 30),
        KDFParameters(operations: 2, memoryBytes: (64 << 20) + 1024),
    ])
    func policyBoundariesAreAccepted(parameters: KDFParameters) {
        // validate() only: running Argon2 at 4 GiB would make the suite slow.
        #expect(throws: Never.self) { try parameters.validate() }
    }

    @Test func wrongSaltLengthIsRefused() throws {
        let passphrase = try SecureBytes(copying: Array("passphrase".utf8))
        for length in [0, 15, 17, 32] {
            #expect(throws: CryptoError.invalidKeyLength) {
                try PasswordKDF.deriveKey(passphrase: passphrase, salt: [UInt8](repeating: 0, count: length),
                                          parameters: .profile(.interactive))
            }
        }
    }

    @Test func differentSaltGivesDifferentKey() throws {
        let passphrase = try SecureBytes(copying: Array("correct horse battery staple".utf8))
        var salt = byteRange(0x00...0x0f)
        salt[15] ^= 1
        let key = try PasswordKDF.deriveKey(passphrase: passphrase, salt: salt, parameters: .profile(.interactive))
        #expect(key.withUnsafeBytes { Array($0) }.hex != "c05ce4c4dd7e0e45ee6011cc59d068ade47df1b01fc0cf9cd4678bdf68a5b7b0")
    }
}
