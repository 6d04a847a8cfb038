// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite
import VaultCrypto

/// What a backup holds, reported by `backup`, `verify-backup` and `restore`.
public struct BackupSummary: Sendable {
    public let vaultID: UUID
    public let createdAt: Instant
    /// Size of the backup file in bytes.
    public let bytes: Int64
    /// Record counts of the vault inside, by kind (as ``VaultInfo/counts``).
    public let counts: [String: Int]
    /// What the vault file checked or restored keeps its high-water mark under
    /// (``HighWaterMark/forget(identity:)``); nil for a backup just written.
    public internal(set) var identity: UUID? = nil
    /// The sync location a vault restored as a copy no longer syncs through (it was the original's).
    public internal(set) var leftLocation: String? = nil
}

/// Encrypted backups of a whole vault (FORMAT.md §8): one file, the vault's SQLite snapshot
/// sealed in 64 KiB chunks, with the keyslots of the moment in its header.
///
/// ```swift
/// try journal.backup(to: "journal.jvbak")
/// try BackupFile.verify("journal.jvbak", credential: .passphrase(secret))
/// try BackupFile.restore("journal.jvbak", to: "restored.vault", credential: .passphrase(secret))
/// ```
public enum BackupFile {
    /// Plaintext bytes of every chunk of the body but the last.
    static let chunkLength = IndexedChunkStream.chunkLength

    /// Checks a backup end to end — header, every chunk, the end, and every record of the vault
    /// inside — writing nothing but a scratch copy that is removed afterwards. `credential` is
    /// asked for only once the file is found to be a backup.
    public static func verify(_ path: String, credential: @autoclosure () throws -> VaultCredential) throws -> BackupSummary {
        PrivateFiles.removeAbandoned(beside: PrivateFiles.scratchName(), purposes: .verifying)
        let (scratch, inUse) = try PrivateFiles.createLockedTemporary(beside: PrivateFiles.scratchName(), purpose: .verifying)
        defer { try? inUse.close() }
        defer { PrivateFiles.removeDatabase(scratch) }
        return try decrypt(path, into: scratch, sink: inUse, credential: credential)
    }

    /// Restores a backup to `target` (a new file, or replacing one only when `replace`). Everything
    /// is checked on a 0600 temporary file beside the target, which takes the target's name only
    /// once complete and verified. `credential` is asked for only once the file is found to be a backup.
    ///
    /// `asCopy`: the target is not the vault the backup was made of but a second file of it, which
    /// must not pass for the original (FORMAT.md §8.3): it gets its own instance id, so its own
    /// high-water mark, and a vault that synced leaves its location (``BackupSummary/leftLocation``).
    /// A target replaced that holds the same vault is restored as itself all the same.
    ///
    /// A target that is a symbolic link restores the file it names, and stays a link: the
    /// restored file is written beside that file and takes its name, and the log SQLite keeps
    /// beside it is the one taken away.
    public static func restore(_ path: String, to target: String, credential: @autoclosure () throws -> VaultCredential,
                               replace: Bool = false, asCopy: Bool = false) throws -> BackupSummary {
        let target = URL(fileURLWithPath: target).resolvingSymlinksInPath().path
        if !replace, FileManager.default.fileExists(atPath: target) { throw VaultError.vaultExists(path: target) }
        // Folders the restore has to make, innermost first, so a failure can take them away again.
        var missing: [String] = []
        var folder = URL(fileURLWithPath: target).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.path) {
            missing.append(folder.path)
            folder = folder.deletingLastPathComponent()
        }
        try VaultDatabase.createPrivateFolder(URL(fileURLWithPath: target).deletingLastPathComponent().path)
        PrivateFiles.removeAbandonedCopies(of: target)
        let (temporary, inUse) = try PrivateFiles.createLockedTemporary(beside: target, purpose: .restoring)
        var restored = false
        defer {
            // The file is removed (or has the target's name) before its lock goes.
            PrivateFiles.removeDatabase(temporary)
            try? inUse.close()
            // A failed restore leaves nothing behind, not even the folders it made.
            if !restored { for made in missing { rmdir(made) } }
        }
        let summary = try decrypt(path, into: temporary, sink: inUse, credential: credential) { journal in
            // Looked at only now: a restore refused before this point leaves the target untouched.
            guard asCopy, !replace || vaultID(at: target) != journal.keys.vaultID else { return nil }
            return try journal.becomeACopyOfItsOwn()
        }
        if replace {
            // The old vault's log must not be replayed into the restored one.
            unlink(target + "-wal")
            unlink(target + "-shm")
        }
        try PrivateFiles.commit(temporary, to: target, replace: replace)
        restored = true
        return summary
    }

    /// The id of the vault at `path`; nil when there is none that opens.
    private static func vaultID(at path: String) -> UUID? {
        guard let vault = try? Vault.open(at: path, access: .readOnly) else { return nil }
        defer { try? vault.close() }
        return try? vault.info().vaultID
    }

    /// Decrypts the backup at `path` through `sink`, the new empty file `output` (which the
    /// caller closes, after SQLite is done with the file), and verifies the vault in it; then
    /// `prepare` may change it, returning the sync location it left.
    private static func decrypt(_ path: String, into output: String, sink: FileHandle, credential: () throws -> VaultCredential,
                                prepare: (UnlockedVault) throws -> String? = { _ in nil }) throws -> BackupSummary {
        guard let input = FileHandle(forReadingAtPath: path) else {
            throw FileManager.default.fileExists(atPath: path) ? VaultError.storage("cannot read \(path)") : VaultError.backupNotFound(path: path)
        }
        defer { try? input.close() }
        let header = try BackupHeader.read(from: input)
        let masterKey = try Keyslot.unwrap(header.slots, with: credential(), vaultID: header.vaultID).masterKey
        let bodyKey = try header.bodyKey(fileKey: try header.openFileKey(masterKey: masterKey))
        let nextChunk: () throws -> [UInt8]?
        if header.format == 1 {
            nextChunk = try ChunkedSecretStream.Reader(key: bodyKey, header: header.streamHeader, associatedData: header.mac, from: input).next
        } else {
            nextChunk = IndexedChunkStream.Reader(key: bodyKey, associatedData: header.mac, from: input).next
        }
        do {
            while let plaintext = try nextChunk() {
                try PrivateFiles.reportingDiskFull(writing: output) { try sink.write(contentsOf: plaintext) }
            }
        } catch let failure as ChunkStreamFailure {
            let reason = switch failure {
            case .truncated: "it is truncated (it ends before its final chunk)"
            case .notAuthentic(let chunk): "chunk \(chunk) does not authenticate (damaged, reordered or truncated)"
            case .shortChunk(let chunk): "chunk \(chunk) is shorter than its place allows"
            case .trailingData: "there is data after its final chunk"
            }
            throw VaultError.backupCorrupt(reason)
        }
        try PrivateFiles.reportingDiskFull(writing: output) { try sink.synchronize() }

        let vault: Vault
        do {
            vault = try Vault.open(at: output)
        } catch let error as VaultError {
            throw VaultError.backupCorrupt("the vault inside does not open (\(error.description))")
        }
        defer { try? vault.close() }
        guard try vault.header().vaultID == header.vaultID else { throw VaultError.backupCorrupt("the vault inside is not the one its header names") }
        let journal = try vault.unlock(masterKey: masterKey)
        let report = try journal.check()
        guard report.isClean else {
            throw VaultError.backupCorrupt("the vault inside fails its check (\(report.problems.first ?? ""))")
        }
        let leftLocation = try prepare(journal)
        // What `prepare` wrote is in the file itself before the file takes the target's name:
        // its write-ahead log stays behind.
        try vault.database.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        let info = try vault.info()
        let manifest = try vault.database.read { db in try Manifest.load(db, keys: journal.keys) }
        return BackupSummary(vaultID: header.vaultID, createdAt: Instant(millis: header.createdAt, utcOffsetSeconds: 0),
                             bytes: Self.fileSize(path), counts: info.counts,
                             identity: manifest?.markIdentity(vaultID: header.vaultID) ?? header.vaultID, leftLocation: leftLocation)
    }

    /// The size of the backup written at `path`, for the summary.
    static func fileSize(_ path: String) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
    }
}

extension UnlockedVault {
    /// Writes an encrypted backup of the whole vault to `path`: a consistent snapshot even while
    /// other processes write, created 0600 and complete before it appears under its name.
    /// Refuses to replace an existing file unless `replace`.
    ///
    /// The snapshot is the vault file's pages as one read transaction sees them (FORMAT.md §8),
    /// sealed on every core while another thread writes the backup. When every page that transaction
    /// sees is in the vault file itself (the log folded in first), they are read from there; when
    /// the log still holds some (a reader or a writer kept it from being folded in), SQLite's
    /// online backup copies them into a private temporary file first.
    @discardableResult
    public func backup(to path: String, replace: Bool = false) throws -> BackupSummary {
        if !replace, FileManager.default.fileExists(atPath: path) { throw VaultError.vaultExists(path: path) }
        PrivateFiles.removeAbandoned(beside: snapshotFolder, purposes: .snapshot)
        foldInTheLog()
        let (header, createdAt) = try database.read { db -> (VaultHeader, Int64) in
            // The keys as this transaction sees the vault (the read followed a rekey another
            // process committed since the unlock), and the header and keyslots of the same
            // transaction: read in another, they could be those of a rekey committed meanwhile, and
            // the backup would hold records under one key and keyslots of another.
            let keys = self.keys
            let header = try VaultHeader.read(db, path: vault.path)
            guard header.keyVersion == keys.keyVersion else { throw VaultError.keyRotatedMeanwhile }
            let slots = try Keyslot.readAll(db)
            let length = try Int64.fetchOne(db, sql: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()") ?? 0
            return try PrivateFiles.reportingDiskFull(writing: path) {
                let createdAt = try withPagesOfThisTransaction(db, length: length) { read in
                    try Self.writeBackup(to: path, replace: replace, header: header, slots: slots, keys: keys, length: length, read: read)
                }
                return (header, createdAt)
            }
        }
        return BackupSummary(vaultID: header.vaultID, createdAt: Instant(millis: createdAt, utcOffsetSeconds: 0),
                             bytes: BackupFile.fileSize(path), counts: try vault.info().counts)
    }

    /// Where a snapshot is made when the log is not folded in: beside the vault (the same disk,
    /// room for a copy), unless that folder cannot be written (a vault on read-only media): then
    /// in the scratch folder.
    private var snapshotFolder: String {
        let folder = URL(fileURLWithPath: vault.path).deletingLastPathComponent().path
        return access(folder, W_OK) == 0 ? vault.path : PrivateFiles.scratchName(for: vault.path)
    }

    /// Folds the write-ahead log into the vault file and empties it, if that can be done within a
    /// second; a reader or writer of another process that holds it longer only means the pages
    /// are copied through a snapshot (``withPagesOfThisTransaction(_:length:_:)``).
    private func foldInTheLog() {
        guard vault.database.access == .readWrite else { return }
        try? database.pool.writeWithoutTransaction { db in
            sqlite3_busy_timeout(db.sqliteConnection, 1000)
            defer { sqlite3_busy_timeout(db.sqliteConnection, VaultDatabase.busyTimeoutMilliseconds) }
            _ = try db.checkpoint(.truncate)
        }
    }

    /// Gives `body` a function that reads the first `length` bytes of the vault file as the read
    /// transaction of `db` sees it, from any thread, while `body` runs.
    ///
    /// The vault file itself holds that view when the log was empty as the transaction began, and
    /// it keeps it: SQLite folds no page of the log into the file past the oldest reader's view,
    /// and empties the log only once no reader uses it. An empty (or absent) log, looked at once
    /// the transaction has begun, shows that; it cannot have been emptied since. Else the
    /// pages are copied first, through SQLite's online backup in this transaction.
    private func withPagesOfThisTransaction<Result>(_ db: Database, length: Int64,
                                                    _ body: (@escaping @Sendable (UnsafeMutableRawBufferPointer, Int64) throws -> Void) throws -> Result) throws -> Result {
        let file = try DatabaseMainFile(db)
        if file.logIsEmpty {
            return try body { buffer, offset in try file.read(into: buffer, at: offset) }
        }
        let (snapshot, inUse) = try PrivateFiles.createLockedTemporary(beside: snapshotFolder, purpose: .snapshot)
        defer { try? inUse.close() }
        // Removed before the lock goes: the copy is never there unlocked while this backup lives.
        defer { PrivateFiles.removeDatabase(snapshot) }
        var configuration = Configuration()
        configuration.prepareDatabase { copy in try copy.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF") }
        try PrivateFiles.reportingDiskFull(writing: snapshot) {
            let copy = try DatabaseQueue(path: snapshot, configuration: configuration)
            try copy.writeWithoutTransaction { copy in try db.backup(to: copy) }
            try copy.close()
        }
        let descriptor = inUse.fileDescriptor
        return try body { buffer, offset in try PrivateFiles.read(descriptor, into: buffer, at: offset) }
    }

    /// Writes the backup file of a snapshot of `length` bytes that `read` gives; returns its time.
    private static func writeBackup(to path: String, replace: Bool, header: VaultHeader, slots: [Keyslot], keys: VaultKeys, length: Int64,
                                    read: @escaping @Sendable (UnsafeMutableRawBufferPointer, Int64) throws -> Void) throws -> Int64 {
        PrivateFiles.removeAbandoned(beside: path, purposes: .writing)
        let (temporary, output) = try PrivateFiles.createLockedTemporary(beside: path, purpose: .writing)
        defer { try? output.close() }
        defer { unlink(temporary) }
        let fileKey = try SecureBytes.random(count: SecretStream.keyLength)
        var backupHeader = BackupHeader(vaultID: header.vaultID, createdAt: Instant.now().millis, keyVersion: header.keyVersion, slots: slots)
        try backupHeader.seal(fileKey: fileKey, masterKey: keys.masterKey)
        try output.write(contentsOf: backupHeader.encoded)
        let stream = IndexedChunkStream.Writer(key: try backupHeader.bodyKey(fileKey: fileKey), associatedData: backupHeader.mac, to: output)
        var writeback = PrivateOutput.Writeback(descriptor: output.fileDescriptor)
        try stream.write(length: length, read: read) { writeback.wrote($0) }
        try output.synchronize()
        try PrivateFiles.commit(temporary, to: path, replace: replace)
        return backupHeader.createdAt
    }
}
