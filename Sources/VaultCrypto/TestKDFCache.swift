// SPDX-License-Identifier: Apache-2.0
#if DEBUG
import Glibc

/// Debug builds only: compiled out of every release build, and so out of every `jv` that `make`,
/// `make install` and the Debian package produce (`make check-deb` checks that the variable's
/// name is not in the installed binary). When `JV_TEST_KDF_CACHE` names a folder, each Argon2id
/// result is kept there in a 0600 file named by a keyed hash of the passphrase, salt and cost,
/// so that the end-to-end tests, which unlock the same few vaults thousands of times, pay
/// Argon2id once per vault and passphrase. The key is the same either way — a wrong passphrase
/// still derives a wrong key — only the time differs.
///
/// ```swift
/// // JV_TEST_KDF_CACHE=/tmp/kdf swift test   (the test harness sets it for every jv it runs)
/// ```
struct TestKDFCache {
    static let variable = "JV_TEST_KDF_CACHE"
    /// The folder, when the variable names an absolute path.
    static var folder: String? {
        guard let value = getenv(variable).map({ String(cString: $0) }), value.hasPrefix("/") else { return nil }
        return value
    }

    let folder: String

    /// The cached key of (passphrase, salt, cost), or `derive`'s, then kept. A file that cannot
    /// be read or written is no error: the key is derived.
    func key(passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters, derive: () throws -> SecureBytes) throws -> SecureBytes {
        let path = folder + "/" + (try name(passphrase: passphrase, salt: salt, parameters: parameters))
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor >= 0 {
            defer { close(descriptor) }
            if let cached = try? SecureBytes.filling(count: PasswordKDF.keyLength, { out in
                guard read(descriptor, out.baseAddress, out.count) == out.count else { throw CryptoError.kdfFailed }
            }) {
                return cached
            }
        }
        let key = try derive()
        mkdir(folder, 0o700)
        // Written whole under a name of its own, then renamed: a parallel test reads all or nothing.
        let temporary = path + ".\(getpid()).tmp"
        let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if output >= 0 {
            let written = key.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            close(output)
            if written == PasswordKDF.keyLength { rename(temporary, path) } else { unlink(temporary) }
        }
        return key
    }

    /// BLAKE2b-256 of the cost, salt and passphrase, under a key of its own, in hex.
    private func name(passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters) throws -> String {
        var hash = try Blake2bStream(key: SecureBytes(copying: Array("JV test KDF cache".utf8)))
        var cost = [UInt8]()
        withUnsafeBytes(of: parameters.operations.bigEndian) { cost += $0 }
        withUnsafeBytes(of: parameters.memoryBytes.bigEndian) { cost += $0 }
        hash.update(cost)
        hash.update(salt)
        passphrase.withUnsafeBytes { hash.update($0) }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: try hash.finalize().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
#endif
