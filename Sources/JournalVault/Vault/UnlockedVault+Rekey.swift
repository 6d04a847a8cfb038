// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// What ``UnlockedVault/rekey(keepingRecoveryKey:progress:)`` did.
public struct RekeySummary: Sendable {
    /// The new key version.
    public let keyVersion: UInt32
    /// Records re-encrypted, by table.
    public let records: [String: Int]
    /// The new recovery key, to show once; nil when the existing one was kept.
    public let newRecoveryKey: RecoveryKey?
}

extension UnlockedVault {
    /// Rotates the master key (SECURITY.md, FORMAT.md §12): a new random key of version + 1;
    /// every record of every table re-encrypted under it (new salts, nonces and associated
    /// data), blind indexes and the manifest recomputed, the keyslots re-wrapped — all in one
    /// transaction, so a process killed at any instant leaves the vault entirely under the old
    /// key or entirely under the new one. The passphrase stays the same. The recovery key is
    /// re-wrapped when it is given (and checked first); otherwise a new one is made, which the
    /// caller shows once, and the old one stops working.
    ///
    /// Needs a vault unlocked with its passphrase. Returns the vault unlocked under the new key.
    ///
    /// `beforeCommit` gets the summary once everything is re-encrypted and before the
    /// transaction commits: show a new recovery key there, so that no moment exists when the
    /// vault needs a recovery key nobody was shown (killed before the commit, the old key still
    /// opens the vault; after it, the one shown does). If it throws, nothing changes.
    ///
    /// ```swift
    /// let (journal2, _) = try journal.rekey(beforeCommit: { summary in
    ///     if let key = summary.newRecoveryKey { print(key.text) }
    /// })
    /// ```
    public func rekey(keepingRecoveryKey kept: RecoveryKey? = nil, progress: ((Int, Int) -> Void)? = nil,
                      beforeCommit: ((RekeySummary) throws -> Void)? = nil) throws -> (UnlockedVault, RekeySummary) {
        let newKeys = try VaultKeys(vaultID: keys.vaultID, keyVersion: keys.keyVersion + 1,
                                    masterKey: try SecureBytes.random(count: SubkeyDerivation.keyLength))
        let newRecoveryKey = try kept == nil ? RecoveryKey.generate() : nil
        return try rotate(to: newKeys, progress: progress, recoverySlot: { db in
            let recoverySlot: Keyslot
            if let newRecoveryKey {
                recoverySlot = try Keyslot.wrap(newKeys.masterKey, recoveryKey: newRecoveryKey, keyVersion: newKeys.keyVersion, vaultID: keys.vaultID)
            } else {
                // Kept: it must open the current recovery slot, whose key-encryption key then wraps the new key.
                // (Of several, after an interrupted `recovery-key`, the one it opens.)
                guard let kept else { throw VaultError.wrongRecoveryKey }
                let opened = try Keyslot.readAll(db).filter { $0.kind == .recovery }.lazy.compactMap { stored in
                    (try? stored.unwrapWithKEK(recoveryKey: kept, vaultID: self.keys.vaultID)).map { (stored, $0.1) }
                }.first
                guard let (stored, kek) = opened else { throw VaultError.wrongRecoveryKey }
                recoverySlot = try stored.rewrapped(newKeys.masterKey, kek: kek, keyVersion: newKeys.keyVersion, vaultID: keys.vaultID)
            }
            // Another device of a vault that syncs follows through the rotation's file (FORMAT.md §14.8).
            if let sync = try SyncState.load(db) { try SyncRotation(device: sync.device, from: keys, to: newKeys).save(db) }
            return (recoverySlot, newRecoveryKey)
        }, beforeCommit: beforeCommit)
    }

    /// Re-encrypts the vault under `newKeys` in one transaction (see ``rekey(keepingRecoveryKey:progress:beforeCommit:)``):
    /// `recoverySlot` gives the recovery keyslot wrapping the new key (and the new recovery key
    /// to show, if one was made), in the transaction. Re-encrypting changes no record's content,
    /// so it is not a change for other devices to receive.
    func rotate(to newKeys: VaultKeys, progress: ((Int, Int) -> Void)?,
                recoverySlot: (Database) throws -> (Keyslot, RecoveryKey?),
                beforeCommit: ((RekeySummary) throws -> Void)? = nil) throws -> (UnlockedVault, RekeySummary) {
        guard let unlockedSlot, unlockedSlot.slot.kind == .passphrase else { throw VaultError.rekeyNeedsPassphrase }
        let recorder = database.manifestRecorder
        var counts: [String: Int] = [:]
        var newRecoveryKey: RecoveryKey?
        let from = keys.keyVersion
        try database.syncCapture.applyingOtherDevices {
            try database.write { db in
                defer { _ = recorder.finish() }
                // `newKeys` succeed the keys this rotation started from: another rotation since is not rotated over.
                guard keys.keyVersion == from else { throw VaultError.keyRotatedMeanwhile }
                // A damaged manifest stops the rekey (it would otherwise be rebuilt over the damage);
                // a vault from before the manifest is upgraded first.
                let manifest = try manifestForWritingWithTriggers(db)
                recorder.suspend()
                let total = try SealedTable.all.reduce(0) { $0 + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \($1.name)") ?? 0) }
                var done = 0
                // The rows as found, before they are rewritten, must be the ones the manifest lists:
                // the new manifest is built from them, and would otherwise take in any damage.
                var found = Manifest(keyVersion: keys.keyVersion, counter: manifest.counter, tables: [:],
                                     instance: manifest.instance, syncDevice: manifest.syncDevice)
                // The rows of the tables that are not sealed (derived, and attachment chunks) as found.
                let unsealedTables = Set(ManifestedTable.all.map(\.name)).subtracting(SealedTable.all.map(\.name))
                found.tables.merge(try Manifest.build(db, keys: keys, counter: 0, only: unsealedTables).tables) { _, built in built }
                var derivedRows: [DerivedRows] = []
                for table in SealedTable.all {
                    let (count, state) = try reseal(table, db, newKeys: newKeys, derivedRows: &derivedRows) { count in
                        done += count
                        progress?(done, total)
                    }
                    counts[table.name] = count
                    found.tables[table.name] = state
                }
                guard found == manifest else { throw VaultError.manifestDamaged("the records do not match it") }
                // Records parked by sync (FORMAT.md §14.7) go back to their tables under the new key.
                try SyncRows(db: db).resealParked { try $0.resealed(from: keys, to: newKeys) }
                for table in SealedTable.derivedTables { try db.execute(sql: "DELETE FROM \(table.name)") }
                for rows in derivedRows { try rows.derived.insert(rows.indexes, rowKey: rows.rowKey, db) }
                try db.execute(sql: "UPDATE vault_header SET key_version = ?", arguments: [Int64(newKeys.keyVersion)])
                try unlockedSlot.slot.rewrapped(newKeys.masterKey, kek: unlockedSlot.kek, keyVersion: newKeys.keyVersion,
                                                vaultID: keys.vaultID).save(db)
                let (recovery, shown) = try recoverySlot(db)
                newRecoveryKey = shown
                try recovery.save(db)
                try db.execute(sql: "DELETE FROM keyslot WHERE slot NOT IN (?, ?)", arguments: [Int(Keyslot.passphraseSlot), Int(recovery.slot)])
                try Manifest.build(db, keys: newKeys, counter: manifest.counter + 1, instance: manifest.instance ?? UUID()).save(db, keys: newKeys)
                try beforeCommit?(RekeySummary(keyVersion: newKeys.keyVersion, records: counts, newRecoveryKey: newRecoveryKey))
            }
        }
        let rekeyed = UnlockedVault(vault: vault, keys: newKeys, unlockedSlot: UnlockedSlot(
            slot: try vault.headerAndSlots().1.first { $0.kind == .passphrase } ?? unlockedSlot.slot,
            masterKey: newKeys.masterKey, kek: unlockedSlot.kek))
        return (rekeyed, RekeySummary(keyVersion: newKeys.keyVersion, records: counts, newRecoveryKey: newRecoveryKey))
    }

    /// Re-encrypts every row of `table` under `newKeys`, a batch at a time (rows are taken in
    /// row-id order, which rewriting them does not change); returns how many, and the manifest
    /// state of the rows as they were found. The rows derived from them under the new key (an
    /// entry's tag index) are added to `derivedRows` (each row is decrypted once, here).
    private func reseal(_ table: SealedTable, _ db: Database, newKeys: VaultKeys, derivedRows: inout [DerivedRows],
                        done: @escaping (Int) -> Void) throws -> (Int, Manifest.TableState) {
        let keys = self.keys
        var state = Manifest.TableState()
        var newDerivedRows: [DerivedRows] = []
        // An entry's digest starts with its row key, `seq`, which is its rowid.
        let manifested = ManifestedTable(table)
        let digestsRowID = manifested.columns.first == "seq"
        let pipeline = BatchPipeline(transform: { (item: (row: SealedRow, rowID: DatabaseValue)) -> (DigestSum, Resealed, DatabaseValue) in
            let values = digestsRowID ? [item.rowID] + item.row.values : item.row.values
            return (try RowDigest.of(values, in: manifested, key: keys.manifestKey), try Self.resealed(item.row, from: keys, to: newKeys),
                    item.rowID)
        }, deliver: { results in
            for (digest, resealed, rowID) in results {
                state.add(digest)
                try resealed.row.update(db)
                // A row key is the rowid (an entry's `seq`), which the derived rows name.
                guard !resealed.derivedRows.isEmpty else { continue }
                guard let rowKey = Int64.fromDatabaseValue(rowID) else { throw resealed.row.tampered("its row key is not an integer") }
                newDerivedRows += resealed.derivedRows.map { DerivedRows(derived: $0.derived, rowKey: rowKey, indexes: $0.indexes) }
            }
            done(results.count)
        })
        try SealedRow.forEachBatch(of: table, db) { batch in try pipeline.submit(batch) }
        try pipeline.finish()
        derivedRows += newDerivedRows
        return (Int(state.count), state)
    }

    /// An entry's tag indexes under `keys`, from its opened fields (text, then explicit tags).
    static func entryTagIndexes(of row: SealedRow, plaintexts: [[UInt8]], keys: VaultKeys) throws -> Set<Data> {
        let content = try String(decrypted: plaintexts[0], table: row.table.name, id: row.id)
        guard let explicit = try JSONValue(decrypted: plaintexts[1], table: row.table.name, id: row.id).arrayValue?.compactMap(\.stringValue) else {
            throw row.tampered("the tags field is not a list")
        }
        return tagIndexes(content: content, explicitTags: explicit, keys: keys)
    }

    /// A row sealed under the new key, with the rows derived from it under that key.
    struct Resealed: Sendable {
        var row: SealedRow
        var derivedRows: [(derived: SealedTable.Derived, indexes: Set<Data>)]
    }

    /// Rows of a derived table (``SealedTable/Derived/derivedTable``) for the row with `rowKey`.
    struct DerivedRows: Sendable {
        let derived: SealedTable.Derived
        let rowKey: Int64
        let indexes: Set<Data>
    }

    /// One row opened under `old` and sealed under `new`: next revision, new salt, new nonces,
    /// and its derived data (``SealedTable/derived``) recomputed under the new key — its
    /// blind-index columns set, the rows derived from it returned. The id stays, a knowledge
    /// node's or relation's too, though it was derived from them under the old key (FORMAT.md
    /// §1.6): other devices, and their packs made before the rotation, name it so.
    static func resealed(_ row: SealedRow, from old: VaultKeys, to new: VaultKeys) throws -> Resealed {
        let plaintexts = try row.openedFields(keys: old)
        var resealed = Resealed(row: row, derivedRows: [])
        for derived in row.table.derived {
            switch try derived.value(of: row, plaintexts: plaintexts, keys: new) {
            case .column(let column, let value): resealed.row = resealed.row.set(column, value)
            case .rows(let indexes): resealed.derivedRows.append((derived, indexes))
            }
        }
        try resealed.row.seal(plaintexts, meta: try row.meta().next(keyVersion: new.keyVersion), keys: new)
        return resealed
    }
}
