// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Conflict copies: the text of an entry or chat message that lost to another version of the
/// same record, kept as a new record beside it (FORMAT.md §14.7). Sync makes them of concurrent
/// edits, import of a file's version that cannot be ordered after the stored one (§9).
enum ConflictCopy {
    /// Stores `entry` in `vault` as the new entry `copyID`, its text preceded by a line naming
    /// `entry` and saying `why` it is a copy; its times, star, explicit tags and version are the loser's.
    static func store(of entry: Entry, as copyID: UUID, why: String, in vault: UnlockedVault, _ db: Database) throws {
        let copy = Entry(id: copyID, content: text(of: .entry, entry.id, why: why, text: entry.content),
                         created: entry.created, modifiedAt: entry.modifiedAt, starred: entry.starred,
                         explicitTags: entry.explicitTags, version: entry.version)
        try vault.store(copy, replacing: nil, db)
    }

    /// Stores `message` in `vault` as the new message `copyID` of its thread, likewise.
    static func store(of message: ChatMessage, as copyID: UUID, why: String, in vault: UnlockedVault, _ db: Database) throws {
        let copy = ChatMessage(id: copyID, threadID: message.threadID, role: message.role,
                               content: text(of: .chatMessage, message.id, why: why, text: message.content),
                               timestamp: message.timestamp, model: message.model, language: message.language,
                               entryID: message.entryID, usage: message.usage)
        let keys = vault.keys
        try MessageRow(copy, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
    }

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
            guard case .tagIndex = derived else { continue }  // a blind index column travels with the row
            try UnlockedVault.insertTagIndexes(try UnlockedVault.entryTagIndexes(of: copy, plaintexts: plaintexts, keys: keys),
                                               entrySeq: rowKey, rows.db)
        }
        return true
    }

    /// `Conflict copy of entry ID: <why>`, a blank line, then the losing text.
    private static func text(of table: SealedTable, _ id: UUID, why: String, text: String) -> String {
        guard case .keepLosingText(_, let noun) = table.conflictCopy else { preconditionFailure("\(table.name) keeps no conflict copies") }
        return heading(noun: noun, id, why: why) + text
    }

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
