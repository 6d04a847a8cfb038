// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// What this user account remembers, outside the vault, of the latest write it saw to each
/// vault (FORMAT.md §11.6): the only way to notice the whole vault file replaced by an older
/// copy of itself, which from inside the file is a vault jv really wrote.
///
/// One line per vault file in a 0600 file: `identity kv counter mac`, where `identity` comes
/// from the vault id and the file's own id in its manifest (``Manifest/markIdentity(vaultID:)``),
/// `counter` is the manifest's count of write transactions and `mac` authenticates the line under
/// the vault's manifest key, so that nobody without the key can write a mark jv would believe.
///
/// ```swift
/// let marks = HighWaterMark(stateDirectory: NSHomeDirectory() + "/.local/state/jv")
/// if case .older(let seen, let found) = try marks.observe(journal) { warn(seen, found) }
/// ```
public struct HighWaterMark: Sendable {
    /// What ``observe(_:)`` found.
    public enum Observation: Sendable, Equatable {
        /// The vault has no manifest yet, or this account never saw it: nothing to compare.
        case unknown
        /// At or past the remembered mark (which now follows it).
        case current
        /// Below the mark: the vault was written `seen` times when last seen here, and only
        /// `found` times now — it may have been replaced by an older copy. The mark is moved down
        /// to it, so the warning is given once.
        case older(seen: UInt64, found: UInt64)
    }

    private static let macDomain = Array("JVLT-high-water".utf8)

    /// The file holding the marks.
    public let path: String

    public init(stateDirectory: String) {
        path = stateDirectory + "/high-water"
    }

    /// The mark file could be read but not written (a read-only file): `observation` was made,
    /// but the mark did not move, so a later rollback to between the two may go unseen.
    public struct NotRecorded: Error, Sendable {
        public let observation: Observation
        public let reason: String
    }

    /// Compares the vault's write counter with the mark remembered for it, and remembers the
    /// vault's. A manifest that is missing where the vault must have one (keyslots of format 2),
    /// or that fails to authenticate, is ``VaultError/manifestDamaged(_:)``: without it there is
    /// nothing to compare, and a file made so must not pass as one never seen. A file that cannot
    /// be written throws ``NotRecorded``; other errors of the file are thrown as they are (the
    /// caller may ignore them: the mark is a warning, not a reason to refuse).
    public func observe(_ journal: UnlockedVault) throws -> Observation {
        // The keys of the read's own snapshot: a rekey another process committed since the
        // unlock is followed as the read begins, and the manifest is sealed under its keys.
        guard let (manifest, keys) = try journal.database.read({ db -> (Manifest, VaultKeys)? in
            let keys = journal.keys
            return try Manifest.loadUnlessNotBuiltYet(db, keys: keys).map { ($0, keys) }
        }) else { return .unknown }
        let identity = manifest.markIdentity(vaultID: keys.vaultID)
        let (observation, unrecorded) = try withLockedFile { lines in
            let id = identity.storageText
            let found = manifest.counter
            var observation = Observation.unknown
            if let line = lines.first(where: { $0.hasPrefix(id + " ") }), let mark = Mark(line: line, keys: keys) {
                if mark.keyVersion > keys.keyVersion || (mark.keyVersion == keys.keyVersion && mark.counter > found) {
                    observation = .older(seen: mark.counter, found: found)
                } else {
                    observation = .current
                }
            }
            // Replaced in place: a mark already up to date leaves the file as it is.
            let line = Mark(keyVersion: keys.keyVersion, counter: found).line(vaultID: identity, keys: keys)
            lines.removeAll { $0.hasPrefix(id + " ") && $0 != line }
            if !lines.contains(line) { lines.append(line) }
            return observation
        }
        if let unrecorded { throw NotRecorded(observation: observation, reason: unrecorded) }
        return observation
    }

    /// Forgets the mark kept under `identity` (after a restore, which may legitimately go back
    /// in time): the next unlock remembers the vault as it is then.
    public func forget(identity: UUID) throws {
        let unrecorded = try withLockedFile { lines in lines.removeAll { $0.hasPrefix(identity.storageText + " ") } }.unrecorded
        if let unrecorded { throw VaultError.storage(unrecorded) }
    }

    private struct Mark {
        let keyVersion: UInt32
        let counter: UInt64

        init(keyVersion: UInt32, counter: UInt64) {
            self.keyVersion = keyVersion
            self.counter = counter
        }

        /// A line of the file; nil when it does not parse. A line of the vault's current key
        /// version must authenticate; one of a later version cannot be checked (its key is not
        /// known yet) and is believed, one of an earlier version is stale.
        init?(line: String, keys: VaultKeys) {
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count == 4, let keyVersion = UInt32(parts[1]), let counter = UInt64(parts[2]) else { return nil }
            self.init(keyVersion: keyVersion, counter: counter)
            if keyVersion == keys.keyVersion {
                guard let vaultID = UUID(storageText: parts[0]),
                      Sodium.constantTimeEquals(Array(mac(vaultID: vaultID, keys: keys).lowerHex.utf8), Array(parts[3].utf8)) else { return nil }
            }
        }

        func line(vaultID: UUID, keys: VaultKeys) -> String {
            "\(vaultID.storageText) \(keyVersion) \(counter) \(mac(vaultID: vaultID, keys: keys).lowerHex)"
        }

        private func mac(vaultID: UUID, keys: VaultKeys) -> [UInt8] {
            var message = ByteWriter(capacity: 48)
            message.raw(HighWaterMark.macDomain)
            message.raw(vaultID.bytes)
            message.u32(keyVersion)
            message.u64(counter)
            return keys.manifestKey.withUnsafeBytes { Blake2b.hash(message.bytes, key: $0, length: 32) }
        }
    }

    /// Runs `body` on the file's lines under an exclusive lock (concurrent jv processes), then
    /// writes them back if it changed them (and only then waits for the disk). The folder is
    /// made 0700 and the file 0600. A file that can be read but not written is still read,
    /// under a shared lock: `unrecorded` then says why the lines `body` changed were not written.
    private func withLockedFile<Result>(_ body: (inout [String]) throws -> Result) throws -> (result: Result, unrecorded: String?) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        var unwritable: String?
        if descriptor < 0, errno == EACCES || errno == EROFS || errno == EPERM {
            unwritable = String(cString: strerror(errno))
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        }
        guard descriptor >= 0 else { throw VaultError.storage("cannot open \(path): \(String(cString: strerror(errno)))") }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard flock(descriptor, unwritable == nil ? LOCK_EX : LOCK_SH) == 0 else { throw VaultError.storage("cannot lock \(path)") }
        let contents = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let stored = contents.split(separator: "\n").map(String.init)
        var lines = stored
        let result = try body(&lines)
        guard lines != stored else { return (result, nil) }
        if let unwritable { return (result, "cannot write \(path) (\(unwritable))") }
        let updated = Data(lines.map { $0 + "\n" }.joined().utf8)
        guard ftruncate(descriptor, 0) == 0 else { throw VaultError.storage("cannot write \(path)") }
        try file.seek(toOffset: 0)
        try file.write(contentsOf: updated)
        fsync(descriptor)
        return (result, nil)
    }
}
