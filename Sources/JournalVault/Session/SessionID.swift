// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// Which session a command asks for: one per vault file. It is 16 bytes of BLAKE2b over the
/// vault's id and the file's canonical path, so a copy of a vault (the same id in another
/// file) has a session of its own, while every name of one file (a link, a relative path)
/// finds the same one, and so does the vault after `jv restore` replaced the file at its path.
/// It names the agent's socket and travels in every request (FORMAT.md §13). The hash is keyed
/// by the session folder's salt (``SessionFolder``), a secret of the user's: socket names are
/// visible to every user of the machine, and must not tell which vault a session serves.
struct SessionID: Equatable, Sendable {
    static let length = 16
    let bytes: [UInt8]

    init(vaultID: UUID, file: String, salt: [UInt8]) {
        let message = vaultID.bytes + Array(Self.canonicalPath(file).utf8)
        bytes = salt.withUnsafeBytes { Blake2b.hash(message, key: $0, length: Self.length) }
    }

    init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    /// The id a socket name (`<32 hex digits>.socket`) stands for.
    init?(socketName: String) {
        let digits = Array(socketName.utf8)
        guard digits.count == 2 * Self.length + Self.socketSuffix.utf8.count, socketName.hasSuffix(Self.socketSuffix),
              let bytes = Hex.bytes(lower: digits.prefix(2 * Self.length)) else { return nil }
        self.bytes = bytes
    }

    static let socketSuffix = ".socket"

    var socketName: String {
        bytes.lowerHex + Self.socketSuffix
    }

    /// `path` with every link, `.` and `..` resolved (as it is absolute when the file is
    /// missing): the file's path whatever name a command was given, and unchanged when the
    /// file is replaced there — unlike its inode, which `jv restore` changes.
    static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return URL(fileURLWithPath: path).standardizedFileURL.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
