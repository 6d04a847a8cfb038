// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of an attachment (FORMAT.md §1.12): the entry it belongs to, the blob holding
/// its content and when it was attached, in plaintext; its file name sealed and bound to them.
struct AttachmentRow: SealedRecordRow {
    static let sealed = SealedTable.attachment

    private(set) var row: SealedRow

    init(id: UUID, entryID: UUID, blobID: UUID, createdAt: Int64, name: String, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: id, values: [
            id.storageText.databaseValue, entryID.storageText.databaseValue, blobID.storageText.databaseValue, createdAt.databaseValue,
            .null, .null,
        ])
        try row.seal([Array(name.utf8)], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try row.instant("created_at")
    }

    var entryID: UUID { get throws { try row.uuid("entry_id") } }
    var blobID: UUID { get throws { try row.uuid("blob_id") } }
    var created: Instant { get throws { try row.instant("created_at") } }

    /// The file name; one that is not a name (empty, or with a folder) is tampering.
    func decryptName(keys: VaultKeys) throws -> String {
        let name = try String(decrypted: try row.openedFields(keys: keys)[0], table: Self.table, id: id)
        guard AttachmentInput.isFileName(name) else { throw row.tampered("its name is not a file name") }
        return name
    }

    func verify(keys: VaultKeys) throws {
        _ = try entryID
        _ = try blobID
        _ = try decryptName(keys: keys)
    }
}
