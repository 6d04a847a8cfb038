// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Contents that sync left at the location (`jv sync --attachments none`), fetched when read.
extension UnlockedVault {
    /// Fetches the content of the blob `blobID` from the sync location into this vault file
    /// (``SyncEngine/fetchAttachment(blobID:)``).
    ///
    /// ```swift
    /// if !attachment.stored { try journal.fetchAttachment(blobID: attachment.blobID) }
    /// ```
    public func fetchAttachment(blobID: UUID) throws {
        try SyncEngine(self).fetchAttachment(blobID: blobID)
    }

    /// Fetches the content of the attachment `id` when it is not in this vault file; nothing
    /// otherwise (one lookup of a plaintext column). A vault opened read-only (`jv attachment
    /// get`) is opened again for writing, with the same keys, for the fetch alone: nothing is
    /// written when the content is here.
    func fetchAttachmentContent(id: UUID) throws {
        let absent = try database.read { db in
            try String.fetchOne(db, sql: """
                SELECT b.id FROM attachment a JOIN attachment_blob b ON b.id = a.blob_id
                WHERE a.id = ? AND NOT EXISTS (SELECT 1 FROM attachment_chunk c WHERE c.stream_id = b.stream_id)
                """, arguments: [id.storageText])
        }
        guard let absent, let blobID = UUID(storageText: absent) else { return }
        guard vault.database.access == .readOnly else { return try fetchAttachment(blobID: blobID) }
        try UnlockedVault(vault: try Vault.open(at: vault.path), keys: keys, unlockedSlot: unlockedSlot).fetchAttachment(blobID: blobID)
    }
}
