// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation
import VaultCrypto

/// The private folder where this user's session agents listen, one socket per vault file, named
/// by its ``SessionID`` (keyed by the folder's random salt): `$XDG_RUNTIME_DIR/jv` (a per-user
/// tmpfs the system removes at logout), else `/tmp/jv-<uid>`. jv uses it only while it is a
/// real folder (not a link) owned by this user with no access for anyone else, as ssh-agent
/// does with its folder.
struct SessionFolder: Sendable {
    let path: String

    /// The folder, created (mode 0700) when `creating` and missing. Nil when it does not exist
    /// (or cannot be looked at) and is not to be created; throws ``VaultError/sessionUnavailable(_:)`` when it is not
    /// private, so no key is ever handed through a place others can reach.
    static func current(creating: Bool) throws -> SessionFolder? {
        let path = XDGDirectories().runtime.map { $0 + "/jv" } ?? "/tmp/jv-\(getuid())"
        if creating, mkdir(path, 0o700) != 0, errno != EEXIST {
            throw VaultError.sessionUnavailable("cannot create the session folder \(path) (\(String(cString: strerror(errno))))")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            // Missing, or where this user cannot even look: no session of this user is there.
            if [ENOENT, ENOTDIR, EACCES].contains(errno) { return nil }
            throw VaultError.sessionUnavailable("cannot examine the session folder \(path) (\(String(cString: strerror(errno))))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(), status.st_mode & 0o077 == 0 else {
            throw VaultError.sessionUnavailable(
                "the session folder \(path) is not a private folder of this user (it must be a folder owned by uid \(getuid()) with mode 0700)")
        }
        return SessionFolder(path: path)
    }

    /// The session of the vault `vaultID` in the file at `file`. Nil when the folder has no salt
    /// yet (no session was ever started from it) and `creating` is false.
    func session(vaultID: UUID, file: String, creating: Bool) throws -> SessionID? {
        guard let salt = try salt(creating: creating) else { return nil }
        return SessionID(vaultID: vaultID, file: file, salt: salt)
    }

    /// The folder's salt: 32 random bytes in a 0600 file, made by the first `jv unlock` and
    /// kept as long as the folder (for `$XDG_RUNTIME_DIR`, until logout).
    private func salt(creating: Bool) throws -> [UInt8]? {
        let file = path + "/" + Self.saltName
        if let salt = try Self.readSalt(file) { return salt }
        guard creating else { return nil }
        do {
            try PrivateFiles.writeWhole(SecureRandom.bytes(Self.saltLength), to: file, replace: false)
        } catch VaultError.vaultExists {
            // Another jv unlock made it first: its salt is the one.
        }
        return try Self.readSalt(file)
    }

    /// The salt in `file`; nil when there is none.
    private static func readSalt(_ file: String) throws -> [UInt8]? {
        let descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw VaultError.sessionUnavailable("cannot read \(file) (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        var salt = [UInt8](repeating: 0, count: saltLength)
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size == saltLength,
              read(descriptor, &salt, saltLength) == saltLength else {
            throw VaultError.sessionSaltUnrecognised(file: file)
        }
        return salt
    }

    private static let saltName = "salt"
    private static let saltLength = 32

    /// Where the agent of `session` listens.
    func socket(for session: SessionID) -> String {
        path + "/" + session.socketName
    }

    /// The sockets of every session in the folder, live or left by a killed agent.
    func sockets() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasSuffix(SessionID.socketSuffix) }.sorted().map { path + "/" + $0 }
    }
}
