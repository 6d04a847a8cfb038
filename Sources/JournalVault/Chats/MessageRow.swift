// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of a chat message (FORMAT.md §1.9): its thread, role and time, and the entry
/// it is about, in plaintext; its content and metadata (model, language, usage) sealed, and bound
/// to the thread, role and time. (`entry_id` is not bound: deleting the entry sets it to NULL
/// without re-encrypting the message.)
struct MessageRow: SealedRecordRow {
    static let sealed = SealedTable.chatMessage

    private(set) var row: SealedRow

    init(_ message: ChatMessage, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: message.id, values: [
            message.id.storageText.databaseValue, message.threadID.storageText.databaseValue, message.role.rawValue.databaseValue,
            message.timestamp.millis.databaseValue, message.timestamp.utcOffsetSeconds.databaseValue,
            message.entryID?.storageText.databaseValue ?? .null, .null, .null, .null,
        ])
        try row.seal([Array(message.content.utf8), message.metadata.utf8Bytes], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try row.instant("timestamp", offset: "utc_offset")
    }

    /// Authenticates and decrypts; a role jv does not know is tampering.
    func decrypt(keys: VaultKeys) throws -> ChatMessage {
        let fields = try row.openedFields(keys: keys)
        let metadata = try JSONValue(decrypted: fields[1], table: Self.table, id: id)
        guard let role = ChatRole(rawValue: try row.text("role")) else { throw row.tampered("unknown role") }
        return ChatMessage(id: id, threadID: try row.uuid("thread_id"), role: role,
                           content: try String(decrypted: fields[0], table: Self.table, id: id),
                           timestamp: try row.instant("timestamp", offset: "utc_offset"),
                           model: metadata["model"]?.stringValue, language: metadata["language"]?.stringValue,
                           entryID: try row.optional("entry_id", row.uuid), usage: metadata["usage"] ?? .null)
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }
}
