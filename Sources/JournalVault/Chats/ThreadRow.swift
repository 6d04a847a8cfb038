// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of a chat thread (FORMAT.md §1.8): whether it is the active one and its times,
/// in plaintext; its title and metadata sealed, and bound to the times. (`is_active` is not
/// bound: switching threads re-encrypts nothing.)
struct ThreadRow: SealedRecordRow {
    static let sealed = SealedTable.chatThread

    private(set) var row: SealedRow

    init(_ thread: ChatThread, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: thread.id, values: [
            thread.id.storageText.databaseValue, thread.isActive.databaseValue, thread.created.millis.databaseValue,
            thread.created.utcOffsetSeconds.databaseValue, thread.updatedAt.databaseValue, thread.lastMessageAt.databaseValue,
            .null, .null, .null,
        ])
        try row.seal([Array(thread.title.utf8), thread.metadata.utf8Bytes], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try row.instant("created_at", offset: "utc_offset")
        _ = try row.instant("updated_at", offset: "utc_offset")
        _ = try row.optional("last_message_at") { try row.instant($0, offset: "utc_offset") }
    }

    /// The stored thread `id`; a missing one is ``VaultError/notFound(kind:id:)``.
    static func fetch(id: UUID, _ db: Database) throws -> ThreadRow {
        guard let row = try fetchOne(id: id, db) else { throw VaultError.notFound(kind: "chat thread", id: id.storageText) }
        return row
    }

    /// The thread, with the count of its messages stored.
    func decrypt(keys: VaultKeys, db: Database) throws -> ChatThread {
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message WHERE thread_id = ?", arguments: [id.storageText]) ?? 0
        return try decrypt(keys: keys, messageCount: count)
    }

    func decrypt(keys: VaultKeys, messageCount: Int) throws -> ChatThread {
        let fields = try row.openedFields(keys: keys)
        return ChatThread(id: id, title: try String(decrypted: fields[0], table: Self.table, id: id), isActive: try row.integer("is_active") != 0,
                          created: try row.instant("created_at", offset: "utc_offset"), updatedAt: try row.integer("updated_at"),
                          lastMessageAt: try row.optional("last_message_at", row.integer), messageCount: messageCount,
                          metadata: try JSONValue(decrypted: fields[1], table: Self.table, id: id))
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys, messageCount: 0) }
}
