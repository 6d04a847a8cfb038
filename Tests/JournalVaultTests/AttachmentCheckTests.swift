// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
@testable import JournalVault

/// What `check()` reads of attachments' chunks: every chunk row once, digested for the manifest
/// and authenticated in the same pass (a chunk is up to 1 MiB: reading each twice doubled the
/// time `jv check` spends on a vault of photos).
@Suite struct AttachmentCheckTests {
    /// The pass over the chunks, told of each row read, with what it found.
    static func chunkPass(_ journal: UnlockedVault) throws -> (reads: [String], report: CheckReport) {
        var reads: [String] = []
        var report = CheckReport()
        var manifest = Manifest(keyVersion: journal.keys.keyVersion, counter: 0, tables: [:])
        try journal.database.read { db in
            try journal.checkAttachmentChunks(db, into: &report, manifest: &manifest) { stream, index in reads.append("\(stream) \(index)") }
        }
        return (reads, report)
    }

    static func chunkRows(_ journal: UnlockedVault) throws -> [String] {
        try journal.database.read { db in
            try String.fetchAll(db, sql: "SELECT stream_id || ' ' || idx FROM attachment_chunk ORDER BY stream_id, idx")
        }
    }

    @Test func everyChunkIsReadOnceAndAuthenticatedInThatRead() throws {
        let fixture = try AttachmentTests.TamperFixture()
        let journal = fixture.journal
        let rows = try Self.chunkRows(journal)
        #expect(rows.count == 6)
        let clean = try Self.chunkPass(journal)
        #expect(clean.reads == rows)
        #expect(clean.report.problems.isEmpty && clean.report.checked["attachment_chunk"] == 6)
        #expect(try journal.check().isClean)

        // A chunk altered, and one past the end of a stream: each still read once, both streams' damage found.
        let (mine, theirs) = (try fixture.streamID(of: fixture.first), try fixture.streamID(of: fixture.second))
        try journal.writeBehindTheVaultsBack { db in
            let data = try #require(try Data.fetchOne(db, sql: "SELECT data FROM attachment_chunk WHERE stream_id = ? AND idx = 1", arguments: [mine]))
            try db.execute(sql: "UPDATE attachment_chunk SET data = ? WHERE stream_id = ? AND idx = 1", arguments: [data.flipping(7), mine])
            try db.execute(sql: "INSERT INTO attachment_chunk (stream_id, idx, data) VALUES (?, 3, ?)", arguments: [theirs, data])
        }
        let damaged = try Self.chunkPass(journal)
        #expect(damaged.reads == (try Self.chunkRows(journal)) && damaged.reads.count == 7)
        #expect(damaged.report.problems.count == 2, "\(damaged.report.problems)")
        #expect(damaged.report.problems.contains { $0.contains(fixture.first.blobID.storageText) && $0.contains("chunk 1 of 3 does not authenticate") })
        #expect(damaged.report.problems.contains { $0.contains(fixture.second.blobID.storageText) && $0.contains("4 chunks instead of 3") })
    }
}
