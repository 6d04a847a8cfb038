// SPDX-License-Identifier: Apache-2.0
// The cache exists in debug builds only; a release build of the tests has nothing here to test.
#if DEBUG
import Foundation
import TestSupport
import Testing
@testable import VaultCrypto

/// The debug builds' Argon2id cache the end-to-end tests use: the key it gives is the key
/// Argon2id derives, a wrong passphrase still gets a wrong key, and a damaged file is derived again.
@Suite struct TestKDFCacheTests {
    @Test func theCachedKeyIsTheDerivedOneAndOnlyForItsPassphrase() throws {
        let folder = try TemporaryFolder()
        let cache = TestKDFCache(folder: folder.path + "/cache")
        let salt = [UInt8](repeating: 3, count: PasswordKDF.saltLength)
        let parameters = KDFParameters.profile(.interactive)
        let right = try SecureBytes(copying: Array("right".utf8)), wrong = try SecureBytes(copying: Array("wrong".utf8))
        func bytes(_ key: SecureBytes) -> [UInt8] { key.withUnsafeBytes { Array($0) } }
        let derived = bytes(try PasswordKDF.deriveKey(passphrase: right, salt: salt, parameters: parameters))
        var derivations = 0
        let derive = { (passphrase: SecureBytes) in
            { () throws -> SecureBytes in derivations += 1; return try PasswordKDF.deriveKey(passphrase: passphrase, salt: salt, parameters: parameters) }
        }
        let first = try cache.key(passphrase: right, salt: salt, parameters: parameters, derive: derive(right))
        let second = try cache.key(passphrase: right, salt: salt, parameters: parameters, derive: derive(right))
        #expect(bytes(first) == derived && bytes(second) == derived)
        #expect(derivations == 1)
        let other = try cache.key(passphrase: wrong, salt: salt, parameters: parameters, derive: derive(wrong))
        #expect(bytes(other) != derived && derivations == 2)
        // A file cut short is not believed.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/cache")
        #expect(files.count == 2)
        for file in files { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder.path + "/cache/" + file)) }
        #expect(bytes(try cache.key(passphrase: right, salt: salt, parameters: parameters, derive: derive(right))) == derived)
        #expect(derivations == 3)
    }
}
#endif
