// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// The vault as the session agent's index thread reads it: opened read-only at the session's
/// path with the session's key, on a connection of its own whose `PRAGMA data_version` changes
/// whenever another connection (any jv command, a `jv sync`, an import) commits to the file.
/// Used by one thread at a time: the index thread, and before it the thread of the first build,
/// which hands it over.
final class SessionIndexSource {
    enum Update {
        /// Nothing was committed since the last look.
        case unchanged
        /// The index now holds what the vault holds.
        case updated
        /// The vault's key version is not the session's, or the key does not open it.
        case keyDoesNotOpen
    }

    private let journal: UnlockedVault
    private let path: String
    /// Whether the threads that decrypt for the index lower themselves to the lowest priority,
    /// for good: the agent's, whose pool does nothing else.
    private let yieldsTheCores: Bool
    /// The file opened (device, inode): `jv restore` puts another file at the path.
    private let identity: (device: UInt64, inode: UInt64)?
    /// The data version the index was last brought up to; nil before the first build.
    private var indexedVersion: Int64?
    /// What the last look saw of each table it reads.
    private var looks = SessionTableLooks()

    private init(journal: UnlockedVault, path: String, identity: (device: UInt64, inode: UInt64)?, yieldsTheCores: Bool) {
        self.journal = journal
        self.path = path
        self.identity = identity
        self.yieldsTheCores = yieldsTheCores
    }

    /// The vault at `path` unlocked with `key`; nil when its key version is not `keyVersion` or
    /// the key does not open it (the row-set manifest does not authenticate under it).
    /// `yieldingTheCores` false keeps the decrypting threads at the process's priority (a
    /// process whose other work shares that pool: a test's).
    static func open(_ path: String, key: SecureBytes, keyVersion: UInt32, yieldingTheCores: Bool = true) throws -> SessionIndexSource? {
        let identity = Self.identity(of: path)
        let vault = try Vault.open(at: path, access: .readOnly)
        let header = try vault.header()
        guard header.keyVersion == keyVersion else { return nil }
        let keys = try VaultKeys(vaultID: header.vaultID, keyVersion: keyVersion, masterKey: key)
        guard vault.opens(with: keys) else { return nil }
        return SessionIndexSource(journal: UnlockedVault(vault: vault, keys: keys, unlockedSlot: nil), path: path, identity: identity,
                                  yieldsTheCores: yieldingTheCores)
    }

    /// Whether the file at the path is not the one opened (replaced, moved away, removed).
    var fileWasReplaced: Bool {
        guard let identity, let now = Self.identity(of: path) else { return true }
        return identity != now
    }

    /// Lets the file go. SQLite, closing the last connection to a file, folds its log in and
    /// removes its `-wal` and `-shm` by name: when another file has taken the path (`jv
    /// restore`), those names are the new vault's, whose log would be lost. So a replaced
    /// file's connections stay open until the process ends, whose descriptors the kernel
    /// closes without SQLite; the file at the path is let go as any reading command lets it go.
    func retire() {
        if fileWasReplaced { _ = Unmanaged.passRetained(self) }
    }

    /// Brings `index` and `figures` up to what the vault holds, if anything was committed since
    /// the last look. A table the manifest shows unchanged is left alone, and one that only
    /// gained rows has just those decrypted (``SessionTableLooks``); for any other change the
    /// stored fingerprints of the kind are compared with the index's, the new and changed records
    /// decrypted (on every core, the helpers at the lowest priority: the first build runs while
    /// the person who unlocked goes on with jv), the vanished ones removed. An entry's figures
    /// are made from its document as it is decrypted for the index.
    func update(_ index: SearchIndex, _ figures: SessionFigures) throws -> Update {
        // Read before the rows: a commit after it changes it again, and the next look sees that.
        let (version, keyVersion) = try journal.vault.database.read { db in
            (try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0, try Int64.fetchOne(db, sql: "SELECT key_version FROM vault_header"))
        }
        guard version != indexedVersion else { return .unchanged }
        guard keyVersion == Int64(journal.keys.keyVersion), journal.vault.opens(with: journal.keys) else { return .keyDoesNotOpen }
        let changes = try journal.vault.database.read { db in
            try looks.changes(of: SearchKind.allCases.map(StoredSearchRow.sealedTable) + [.measure], db, keys: journal.keys)
        }
        var analysisFingerprints: [String: [UInt8]]?
        // One transaction for the whole look: see SearchIndex.change.
        try index.change { index in
            for kind in SearchKind.allCases {
                switch changes[StoredSearchRow.sealedTable(of: kind).name] ?? .unknown {
                case .unchanged:
                    continue
                // The figures of analyses are refreshed by their fingerprints (SessionFigures.update).
                case .added(let ids) where kind != .analysis:
                    try add(kind, ids: ids, to: index, figures)
                default:
                    let stored = try journal.storedSearchFingerprints(of: kind)
                    if kind == .analysis { analysisFingerprints = stored }
                    try bringUp(kind, to: stored, index, figures)
                }
            }
        }
        try figures.update(journal, measuresChanged: changes[SealedTable.measure.name] != SessionTableLooks.Change.unchanged,
                           analysisFingerprints: analysisFingerprints)
        looks.commit()
        indexedVersion = version
        return .updated
    }

    /// The records of `kind` the index is to hold, by their stored fingerprints: the vanished
    /// removed, the new and changed added.
    private func bringUp(_ kind: SearchKind, to stored: [String: [UInt8]], _ index: SearchIndex.Changes, _ figures: SessionFigures) throws {
        let indexed = try index.fingerprints(kind: kind)
        let vanished = indexed.keys.filter { stored[$0] == nil }
        if !vanished.isEmpty {
            try index.remove(kind: kind, keys: vanished)
            if kind == .entry { figures.removeEntries(vanished) }
        }
        let changed = stored.compactMap { key, fingerprint in indexed[key] == fingerprint ? nil : key }
        guard !changed.isEmpty else { return }
        // The whole kind at its first build, read in the file's order; afterwards by id.
        try add(kind, ids: indexed.isEmpty ? nil : changed, to: index, figures)
    }

    /// Decrypts the records of `kind` with these ids (all of them: nil) into the index and figures.
    private func add(_ kind: SearchKind, ids: [String]?, to index: SearchIndex.Changes, _ figures: SessionFigures) throws {
        try journal.forEachSearchDocument(of: kind, ids: ids, inBackground: yieldsTheCores,
                                         transform: { (SearchIndex.prepare($0), SessionFigures.EntryFigures($0)) }) { prepared in
            try index.upsert(prepared.map(\.0))
            figures.set(prepared.compactMap(\.1))
        }
    }

    private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}
