import Foundation
import GRDB
import VaultCrypto

/// What this user account remembers, outside the vault, of the latest write it saw to each
/// vault (FORMAT.md §11.6): the only way to notice the whole vault file replaced by an older
/// copy of itself, which from inside the file is a vault jv really wrote.
///
/// One line per vault in a 0600 file: `vault_id kv counter mac`, where `counter` is the
/// manifest's count of write transactions and `mac` authenticates the line under the vault's
/// manifest key, so that nobody without the key can write a mark jv would believe.
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

    /// Compares the vault's write counter with the mark remembered for it, and remembers the
    /// vault's. Errors reading or writing the file are thrown; the caller may ignore them (the
    /// mark is a warning, never a reason to refuse).
    public func observe(_ journal: UnlockedVault) throws -> Observation {
        guard let (manifest, identity) = try journal.database.read({ db -> (Manifest, UUID)? in
            guard let manifest = try Manifest.load(db, keys: journal.keys) else { return nil }
            return (manifest, try Self.identity(of: journal.keys.vaultID, db))
        }) else { return .unknown }
        let keys = journal.keys
        return try withLockedFile { lines in
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
    }

    /// Whose mark a vault file keeps: the vault's id, or for a vault that syncs, an id derived
    /// from it and the device's — copies of one vault on one account (several devices under test,
    /// a clone beside the original) each have their own write counter.
    static func identity(of vaultID: UUID, _ db: Database) throws -> UUID {
        guard let device = try Data.fetchOne(db, sql: "SELECT device_id FROM sync_device") else { return vaultID }
        return UUID(bytes: Blake2b.hash(Array("JVLT-high-water".utf8) + vaultID.bytes + Array(device), length: 16))
    }

    /// Forgets the mark of a vault (after a restore, which may legitimately go back in time):
    /// the next unlock remembers the vault as it is then.
    public func forget(vaultID: UUID) throws {
        try withLockedFile { lines in lines.removeAll { $0.hasPrefix(vaultID.storageText + " ") } }
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
                      Sodium.constantTimeEquals(Array(Data(mac(vaultID: vaultID, keys: keys)).lowerHex.utf8), Array(parts[3].utf8)) else { return nil }
            }
        }

        func line(vaultID: UUID, keys: VaultKeys) -> String {
            "\(vaultID.storageText) \(keyVersion) \(counter) \(Data(mac(vaultID: vaultID, keys: keys)).lowerHex)"
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
    /// made 0700 and the file 0600.
    private func withLockedFile<Result>(_ body: (inout [String]) throws -> Result) throws -> Result {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw VaultError.storage("cannot open \(path): \(String(cString: strerror(errno)))") }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard flock(descriptor, LOCK_EX) == 0 else { throw VaultError.storage("cannot lock \(path)") }
        let contents = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let stored = contents.split(separator: "\n").map(String.init)
        var lines = stored
        let result = try body(&lines)
        guard lines != stored else { return result }
        let updated = Data(lines.map { $0 + "\n" }.joined().utf8)
        guard ftruncate(descriptor, 0) == 0 else { throw VaultError.storage("cannot write \(path)") }
        try file.seek(toOffset: 0)
        try file.write(contentsOf: updated)
        fsync(descriptor)
        return result
    }
}
