// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Conflict copies: the text of an entry or chat message that lost to another version of the
/// same record, kept as a new record beside it (FORMAT.md §14.7). Sync makes them of concurrent
/// edits, import of a file's version that cannot be ordered after the stored one (§9).
enum ConflictCopy {
    /// Keeps `loser`, a version of a record that lost to `winner` (the record as it now stands,
    /// nil when it was deleted), as the new record `copyID` beside it — when its table keeps the
    /// losing text (``SealedTable/conflictCopy``) and that text differs from the winner's (the
    /// same text with only a star or a tag changed loses nothing). Every column and field is the
    /// loser's, under new metadata, but the kept field, which starts by naming the record;
    /// a reference to a record missing here is cleared where the schema would clear it, and
    /// where it would delete the copy, none is made. Returns whether the copy was stored.
    static func keep(_ loser: SealedRow, against winner: SealedRow?, as copyID: UUID, why: String,
                     keys: VaultKeys, rows: SyncRows) throws -> Bool {
        let table = loser.table
        guard case .keepLosingText(let field, let noun) = table.conflictCopy,
              let position = table.fields.firstIndex(of: field) else { return false }
        var plaintexts = try loser.openedFields(keys: keys)
        if let winner, try winner.openedFields(keys: keys)[position] == plaintexts[position] { return false }
        var copy = SealedRow(table, id: copyID, values: loser.set("id", copyID.storageText).values)
        for parent in table.parents {
            guard let parentID = String.fromDatabaseValue(copy[parent.column]), try !rows.exists(parent.table, parentID) else { continue }
            switch parent.onDelete {
            case .setNull: copy = copy.set(parent.column, nil)
            case .cascade: return false
            }
        }
        plaintexts[position] = Array(heading(noun: noun, loser.id, why: why).utf8) + plaintexts[position]
        try copy.seal(plaintexts, meta: .fresh(keyVersion: keys.keyVersion), keys: keys)
        try copy.insert(rows.db)
        let rowKey = rows.db.lastInsertedRowID
        for derived in table.derived {
            // A derived column was copied with the row: its text and key are the loser's.
            guard case .rows(let derivedRows) = try derived.value(of: copy, plaintexts: plaintexts, keys: keys) else { continue }
            try derived.insert(derivedRows, rowKey: rowKey, rows.db)
        }
        return true
    }

    /// `Conflict copy of <noun> ID: <why>` and a blank line, which the losing text follows.
    private static func heading(noun: String, _ id: UUID, why: String) -> String {
        "Conflict copy of \(noun) \(id.storageText): \(why)\n\n"
    }

    /// `UUID(first 16 bytes of BLAKE2b-256(key = K_sync, domain ‖ table ‖ id[16] ‖ version))`
    /// with the RFC 9562 version 8 and variant bits set: every device of the vault that keeps
    /// the same losing version of a record derives the same id, and nobody without the key
    /// learns anything from it.
    static func id(domain: String, table: SealedTable, id: UUID, syncKey: SecureBytes,
                   version: (inout ByteWriter) -> Void) -> UUID {
        var writer = ByteWriter(capacity: 80)
        writer.raw(domain.utf8)
        writer.shortString(table.name)
        writer.raw(id.bytes)
        version(&writer)
        return UUID(version8From: syncKey.withUnsafeBytes { Blake2b.hash(writer.bytes, key: $0) })
    }
}
