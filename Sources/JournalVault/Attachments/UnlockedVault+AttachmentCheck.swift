// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// What ``check()`` holds the attachments' chunks to: every chunk row digested into `manifest`
    /// (FORMAT.md §11.1), and the stream of every blob read through as ``readAttachment(id:_:)``
    /// reads it, one chunk at a time, each failure naming the blob. A blob that does not open is
    /// reported with its table's records, not again here; chunks of no blob break the foreign key,
    /// which SQLite's check reports.
    func checkAttachmentChunks(_ db: Database, into report: inout CheckReport, manifest: inout Manifest) throws {
        let table = ManifestedTable.attachmentChunk
        var state = Manifest.TableState()
        let statement = try db.makeStatement(sql: "SELECT \(table.selection) FROM \(table.name)")
        let rows = try Row.fetchCursor(statement)
        while try rows.next() != nil {
            state.add(try Manifest.digest(ofCurrentRowOf: statement, in: table, key: keys.manifestKey))
        }
        manifest.tables[table.name] = state
        report.checked[table.name] = Int(state.count)
        let blobs = try Row.fetchCursor(db, sql: "SELECT \(AttachmentBlobRow.selection) FROM \(AttachmentBlobRow.table)")
        while let row = try blobs.next() {
            guard let blob = try? AttachmentBlobRow(row: row), let opened = try? blob.decrypt(keys: keys) else { continue }
            do {
                try readContent(of: blob, opened: opened, db) { _ in }
            } catch VaultError.attachmentNotStored {
                continue
            } catch let error as VaultError {
                report.problems.append(error.description)
            }
        }
    }
}
