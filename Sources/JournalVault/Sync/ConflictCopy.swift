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

    /// `Conflict copy of entry ID: <why>`, a blank line, then the losing text.
    private static func text(of table: SealedTable, _ id: UUID, why: String, text: String) -> String {
        "Conflict copy of \(table == .entry ? "entry" : "message") \(id.storageText): \(why)\n\n\(text)"
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
