// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// What ``check()`` holds the attachments' chunks to, reading each chunk row once: in one
    /// pass over the table in stream order, every row is digested into `manifest` (FORMAT.md
    /// §11.1) and, as its stream's blob reads it, authenticated as ``readAttachment(id:_:)``
    /// would (one chunk at a time, each failure naming the blob). A blob that does not open is
    /// reported with its table's records, not again here; chunks of no blob break the foreign key,
    /// which SQLite's check reports; both are digested all the same. `chunkRead` is told of every
    /// chunk row read (stream id, index), for the tests that hold it to once.
    func checkAttachmentChunks(_ db: Database, into report: inout CheckReport, manifest: inout Manifest,
                               chunkRead: (String, Int64) -> Void = { _, _ in }) throws {
        let table = ManifestedTable.attachmentChunk
        var state = Manifest.TableState()
        // The unique index (stream_id, idx) gives each stream's chunks together and in order.
        let statement = try db.makeStatement(sql: "SELECT \(table.selection) FROM \(table.name) ORDER BY stream_id, idx")
        let rows = try Row.fetchCursor(statement)
        func next() throws -> (stream: String, index: Int64, data: Data?)? {
            guard let row = try rows.next() else { return nil }
            state.add(try Manifest.digest(ofCurrentRowOf: statement, in: table, key: keys.manifestKey))
            let chunk = (stream: String.fromDatabaseValue(row["stream_id"]) ?? "", index: Int64.fromDatabaseValue(row["idx"]) ?? -1,
                         data: Data.fromDatabaseValue(row["data"]))
            chunkRead(chunk.stream, chunk.index)
            return chunk
        }
        let blobQuery = try db.makeStatement(sql: "SELECT \(AttachmentBlobRow.selection) FROM \(AttachmentBlobRow.table) WHERE stream_id = ?")
        var pending = try next()
        while let stream = pending?.stream {
            if let row = try Row.fetchOne(blobQuery, arguments: [stream]),
               let blob = try? AttachmentBlobRow(row: row), let opened = try? blob.decrypt(keys: keys) {
                do {
                    try readContent(of: blob, opened: opened, db, chunk: { index in
                        guard let chunk = pending, chunk.stream == stream, chunk.index == index else { return nil }
                        pending = try next()
                        return chunk.data
                    }, { _ in })
                } catch let error as VaultError {
                    report.problems.append(error.description)
                }
            }
            // What a failure left of the stream, chunks past its end, and those of no blob that opens.
            while let chunk = pending, chunk.stream == stream { pending = try next() }
        }
        manifest.tables[table.name] = state
        report.checked[table.name] = Int(state.count)
    }
}
