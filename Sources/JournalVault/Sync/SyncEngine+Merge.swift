// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// How many changes a pack brought, and of what kind.
struct MergeTally: Sendable {
    var applied = 0
    var conflictCopies = 0
}

extension SyncEngine {
    /// Applies one change from another device to this vault, in the caller's transaction
    /// (FORMAT.md §14.7). Packs arrive in causal order (``SyncPack/Header/dependencies``), so
    /// the revision a change was made from has been applied here before it: a change whose base
    /// is the revision held here moves the record forward. Any other was made concurrently with
    /// the revision held here, and the one of greater rank wins (``KnownRevision/beats(_:)``),
    /// which every device decides alike whatever order the two arrive in; an entry's or chat
    /// message's losing text becomes a conflict copy whose id every device derives alike.
    func merge(_ change: SyncChange, rows: SyncRows, tally: inout MergeTally) throws {
        let db = rows.db
        let table = change.table
        let id = change.id.storageText
        let known = try KnownRevision.load(table, id, db)
        if known?.stamp == change.stamp { return }
        let pending = try SyncState.isPending(table, id, db)
        let local = try rows.current(table, id)
        let incoming = KnownRevision(of: change)
        tally.applied += 1
        if !pending, known.map({ change.base == $0.stamp }) ?? (local == nil) {
            try adopt(change, rows: rows)
            return
        }
        let incomingValues: [DatabaseValue]? = if case .row(let values) = change.body { values } else { nil }
        if pending, let local {
            // Changed here since the last sync: it goes out made from the incoming revision,
            // with a later stamp than any seen, so it wins on every device as it does here.
            if let incomingValues {
                try keepConflictCopy(of: incomingValues, in: table, loser: change.stamp, against: local.values, rows: rows, tally: &tally)
            }
            try incoming.save(table, id, db)
            return
        }
        if pending {
            // Deleted here since the last sync: the tombstone will rank as the revision deleted.
            let deletion = KnownRevision(stamp: .zero, deleted: true, rank: known?.stamp ?? .zero)
            if incoming.rank >= deletion.rank {
                try adopt(change, rows: rows)
                try db.execute(sql: "DELETE FROM sync_pending WHERE tbl = ? AND id = ?", arguments: [table.name, id])
            } else if let incomingValues {
                try keepConflictCopy(of: incomingValues, in: table, loser: change.stamp, against: nil, rows: rows, tally: &tally)
            }
            return
        }
        // Both revisions were sent: every device holding one receives the other and decides
        // alike. Which revisions meet depends on what a device held when, so a losing text's
        // copy is sent on like a change made here: every device ends up with every copy.
        if let known, !incoming.beats(known) {
            if let incomingValues {
                try keepConflictCopy(of: incomingValues, in: table, loser: change.stamp, against: local?.values, rows: rows, tally: &tally)
            }
            return
        }
        if let local, let known {
            try keepConflictCopy(of: local.values, in: table, loser: known.stamp, against: incomingValues, rows: rows, tally: &tally)
        }
        try adopt(change, rows: rows)
    }

    /// Applies one record of a snapshot (FORMAT.md §14.9), whose `clocks` say which revisions
    /// it holds, to a vault that may hold some of them already (`held`: likewise of this vault).
    /// A revision held here that the snapshot holds too is in the past of the snapshot's, which
    /// then replaces it as a pack's change based on it would; one the snapshot's is in the past
    /// of stays; any other pair was made concurrently and merges as packs do.
    func mergeFromSnapshot(_ change: SyncChange, clocks: [UUID: UInt64], held: [UUID: UInt64], rows: SyncRows,
                           tally: inout MergeTally) throws {
        let db = rows.db
        let id = change.id.storageText
        guard let known = try KnownRevision.load(change.table, id, db), known.stamp != change.stamp,
              try !SyncState.isPending(change.table, id, db) else {
            return try merge(change, rows: rows, tally: &tally)
        }
        if change.stamp.hlc <= held[change.stamp.device] ?? 0 { return }
        if known.stamp.hlc <= clocks[known.stamp.device] ?? 0 {
            tally.applied += 1
            return try adopt(change, rows: rows)
        }
        try merge(change, rows: rows, tally: &tally)
    }

    /// Makes `change` the record's revision here.
    private func adopt(_ change: SyncChange, rows: SyncRows) throws {
        let id = change.id.storageText
        switch change.body {
        case .tombstone:
            try rows.remove(change.table, id)
        case .row(let values):
            // Authentic to its pack, and must open under this vault's key as stored; an entry's
            // tag index is made from the text opened here (opening it twice was half a clone's
            // time). Other records' fields are only opened, in wiped memory.
            let row = try SealedRow(received: change.table, values: values)
            var tagIndexes: Set<Data>?
            if change.table == .entry {
                tagIndexes = try UnlockedVault.entryTagIndexes(of: row, plaintexts: row.openedFields(keys: keys), keys: keys)
            } else {
                try row.open(keys: keys)
            }
            if try rows.write(change.table, id, values), let tagIndexes {
                try setTagIndexes(tagIndexes, ofEntry: id, rows.db)
            }
        }
        try KnownRevision(of: change).save(change.table, id, rows.db)
    }

    /// The losing text of a concurrent edit of an entry or chat message, kept as a new record
    /// whose id is derived from the record's id and the losing revision's stamp, and whose text
    /// begins by naming the record it conflicts with, and sent on as a change made here (two
    /// devices that make the same copy make it under the same id, so the two meet as one record).
    /// None is made for another kind of record, which merges by last writer, when both texts
    /// are the same, or when the copy was made already.
    private func keepConflictCopy(of values: [DatabaseValue], in table: SealedTable, loser: SyncStamp, against winner: [DatabaseValue]?,
                                  rows: SyncRows, tally: inout MergeTally) throws {
        guard case .keepLosingText = table.conflictCopy else { return }
        let db = rows.db
        let losing = try SealedRow(received: table, values: values)
        let copyID = conflictCopyID(table: table, id: losing.id, loser: loser)
        // Already made here, or made, changed or deleted elsewhere and received.
        if try KnownRevision.load(table, copyID.storageText, db) != nil || rows.current(table, copyID.storageText) != nil { return }
        let why = "it was changed on two devices at once, and this is the other text."
        guard try ConflictCopy.keep(losing, against: try winner.map { try SealedRow(received: table, values: $0) }, as: copyID, why: why,
                                    keys: keys, rows: rows) else { return }
        try db.execute(sql: "INSERT OR IGNORE INTO sync_pending (tbl, id) VALUES (?, ?)", arguments: [table.name, copyID.storageText])
        tally.conflictCopies += 1
    }

    /// `UUID(first 16 bytes of BLAKE2b-256(key = K_sync, "JVLT-sync-conflict" ‖ table ‖ id[16] ‖ stamp))`
    /// with the RFC 9562 version 8 and variant bits set.
    func conflictCopyID(table: SealedTable, id: UUID, loser: SyncStamp) -> UUID {
        Self.conflictCopyID(table: table, id: id, loser: loser, syncKey: keys.syncKey)
    }

    /// The same under `syncKey` (FORMAT.md §14.10's vector checks it).
    static func conflictCopyID(table: SealedTable, id: UUID, loser: SyncStamp, syncKey: SecureBytes) -> UUID {
        ConflictCopy.id(domain: "JVLT-sync-conflict", table: table, id: id, syncKey: syncKey) { loser.encode(into: &$0) }
    }

    private func setTagIndexes(_ indexes: Set<Data>, ofEntry id: String, _ db: Database) throws {
        guard let seq = try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM entry WHERE id = ?"), arguments: [id]) else { return }
        try db.cachedStatement(sql: "DELETE FROM entry_tag WHERE entry_seq = ?").execute(arguments: [seq])
        try UnlockedVault.insertTagIndexes(indexes, entrySeq: seq, db)
    }
}

extension SealedRow {
    /// A row of `table` as a change carried it: `values` in `table.columns` order.
    init(received table: SealedTable, values: [DatabaseValue]) throws {
        guard values.count == table.columns.count, let text = String.fromDatabaseValue(values[table.idIndex]) else {
            throw VaultError.syncPackRefused("a change in it is malformed")
        }
        self.init(table, id: try RecordID.parse(text, table: table.name), values: values)
    }
}
