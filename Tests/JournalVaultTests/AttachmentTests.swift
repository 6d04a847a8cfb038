// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// Attachments through the library (FORMAT.md §15): contents of every length round the chunk
/// boundaries come back byte for byte, from a file or a pipe; a content is stored once; limits
/// refuse before anything is written; deleting takes what no other attachment needs; a rekey
/// rewraps without touching a chunk; and every kind of chunk tampering is refused by reading
/// and named by `check()`.
@Suite struct AttachmentTests {
    static let mebibyte = AttachmentStream.chunkLength

    /// `count` bytes of a seeded sequence.
    static func content(_ count: Int, seed: UInt64 = 1) -> Data {
        var generator = SeededGenerator(seed: seed)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func file(_ vault: TemporaryVault, _ name: String, _ content: Data) throws -> String {
        let path = vault.folder.file(name)
        try content.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The read end of a pipe a thread writes `content` into, in pieces, then closes.
    static func pipe(feeding content: Data) throws -> Int32 {
        var fds: [Int32] = [0, 0]
        try #require(Foundation.pipe(&fds) == 0)
        let writeEnd = fds[1]
        Thread {
            content.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(writeEnd, bytes.baseAddress! + offset, min(65_536, bytes.count - offset))
                    if written < 0 { break }
                    offset += written
                }
            }
            close(writeEnd)
        }.start()
        return fds[0]
    }

    static func read(_ journal: UnlockedVault, _ id: UUID) throws -> Data {
        var data = Data()
        try journal.readAttachment(id: id) { data.append(contentsOf: $0) }
        return data
    }

    @Test(arguments: [0, 1, 9, 1000, mebibyte - 1, mebibyte, mebibyte + 1, 2 * mebibyte + 12_345])
    func contentComesBackAsItWent(length: Int) throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("The view from the ridge.")
        let content = Self.content(length, seed: UInt64(length))
        let attached = try vault.journal.attach([.file(try Self.file(vault, "ridge.jpg", content))], to: entry.id)
        #expect(attached.map(\.name) == ["ridge.jpg"] && attached[0].size == Int64(length) && attached[0].mediaType == "image/jpeg")
        #expect(try Self.read(vault.journal, attached[0].id) == content)
        let (storedSize, chunkCount) = AttachmentStream.layout(size: Int64(length))
        #expect(storedSize == Int64(Padme.paddedLength(UInt64(length))))
        #expect(try vault.count("attachment_chunk") == Int(chunkCount))
        let sealedBytes = try vault.journal.database.read { db in try Int64.fetchOne(db, sql: "SELECT sum(length(data)) FROM attachment_chunk") }
        #expect(sealedBytes == storedSize + chunkCount * Int64(SecretStream.overhead), "the file holds the padded size, not the true one")
        let report = try vault.journal.check()
        #expect(report.isClean, "\(report.problems)")
        #expect(report.checked["attachment_chunk"] == Int(chunkCount))
    }

    /// A large file's chunks do not fill the writer's page cache (32 MiB, half of what `jv attach`
    /// may take in all): the connection's cache holds at most a few MiB after attaching 12 MiB,
    /// and has its own size back.
    @Test func attachingDoesNotFillTheWritersPageCache() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("A long recording.")
        // One repeated byte: generating 12 MiB of random ones takes seconds in a debug build.
        let content = Data(repeating: 0x5A, count: 12 * Self.mebibyte)
        let attached = try vault.journal.attach([.file(try Self.file(vault, "concert.flac", content))], to: entry.id)
        let (cached, cacheSize) = try vault.journal.database.write { db in
            var current: Int32 = 0, highest: Int32 = 0
            sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
            return (Int(current), try Int.fetchOne(db, sql: "PRAGMA cache_size"))
        }
        #expect(cached < 4 << 20, "the writer's cache holds \(cached >> 20) MiB after the attach")
        #expect(cacheSize == -32768)
        #expect(try Self.read(vault.journal, attached[0].id) == content)
    }

    @Test func aPipeIsReadToItsEndAndKeptUnderTheGivenName() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Voice memo.")
        let content = Self.content(Self.mebibyte * 2 + 7)
        let readEnd = try Self.pipe(feeding: content)
        let attached = try vault.journal.attach([.stream(readEnd, name: "memo.ogg")], to: entry.id)
        close(readEnd)
        #expect(attached[0].name == "memo.ogg" && attached[0].kind == .audio && attached[0].size == Int64(content.count))
        #expect(try Self.read(vault.journal, attached[0].id) == content)
    }

    @Test func theSameContentIsStoredOnceAndGoesWithItsLastAttachment() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let first = try journal.addEntry("One."), second = try journal.addEntry("Two.")
        let path = try Self.file(vault, "scan.pdf", Self.content(3000))
        let a = try journal.attach([.file(path)], to: first.id)[0]
        let b = try journal.attach([.file(path, name: "letter.pdf")], to: second.id)[0]
        #expect(a.blobID == b.blobID && a.id != b.id && b.name == "letter.pdf")
        #expect(try vault.count("attachment_blob") == 1 && vault.count("attachment_chunk") == 1)
        try journal.deleteAttachment(id: a.id)
        #expect(try vault.count("attachment_blob") == 1 && Self.read(journal, b.id).count == 3000)
        try journal.deleteEntry(id: second.id)
        #expect(try vault.count("attachment") == 0 && vault.count("attachment_blob") == 0 && vault.count("attachment_chunk") == 0)
        #expect(try journal.check().isClean)
        expectVaultError(where: { $0 == .notFound(kind: "attachment", id: a.id.storageText) }) { try journal.deleteAttachment(id: a.id) }
    }

    @Test func anEntryAndItsFilesAreAddedTogetherOrNotAtAll() throws {
        let vault = try TemporaryVault()
        let good = try Self.file(vault, "a.png", Self.content(10))
        let (entry, files) = try vault.journal.addEntry("With a file.", attaching: [.file(good)])
        #expect(files.map(\.entryID) == [entry.id])
        expectVaultError(where: { if case .attachmentUnreadable = $0 { true } else { false } }) {
            try vault.journal.addEntry("Never stored.", attaching: [.file(good), .file(vault.folder.file("missing.jpg"))])
        }
        #expect(try vault.count("entry") == 1 && vault.count("attachment") == 1)
    }

    @Test func tooLargeIsRefusedBeforeAnythingIsWritten() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Big.")
        let path = try Self.file(vault, "big.mov", Self.content(5000))
        let counter = try vault.journal.database.read { db in try Manifest.load(db, keys: vault.journal.keys)?.counter }
        expectVaultError(where: { $0 == .attachmentTooLarge(name: "big.mov", limit: 4999) }) {
            try vault.journal.attach([.file(path)], to: entry.id, limit: 4999)
        }
        #expect(try vault.journal.database.read { db in try Manifest.load(db, keys: vault.journal.keys)?.counter } == counter,
                "no transaction was even begun")
        // A stream is refused as it passes the limit, its transaction rolled back.
        let readEnd = try Self.pipe(feeding: Data(count: 5000))
        expectVaultError(where: { $0 == .attachmentTooLarge(name: "stdin.bin", limit: 4999) }) {
            try vault.journal.attach([.stream(readEnd, name: "stdin.bin")], to: entry.id, limit: 4999)
        }
        close(readEnd)
        #expect(try vault.count("attachment_chunk") == 0 && vault.count("attachment_blob") == 0)
        #expect(try vault.journal.check().isClean)
        expectVaultError(where: { $0 == .invalidAttachmentName("a/b") }) { try vault.journal.attach([.file(path, name: "a/b")], to: entry.id) }
    }

    @Test func listsFilterByEntryDayAndKind() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let may = try journal.addEntry("May.", at: Instant(millis: 1_777_600_000_000, utcOffsetSeconds: 0))
        let june = try journal.addEntry("June.", at: Instant(millis: 1_780_300_000_000, utcOffsetSeconds: 0))
        try journal.attach([.file(try Self.file(vault, "a.jpg", Self.content(5, seed: 1))),
                            .file(try Self.file(vault, "b.mp3", Self.content(5, seed: 2)))], to: may.id)
        try journal.attach([.file(try Self.file(vault, "c.jpg", Self.content(5, seed: 3)))], to: june.id)
        #expect(try journal.attachments().map(\.name) == ["a.jpg", "b.mp3", "c.jpg"])
        #expect(try journal.attachments(AttachmentQuery(entryID: may.id)).map(\.name) == ["a.jpg", "b.mp3"])
        #expect(try journal.attachments(AttachmentQuery(kind: .image)).map(\.name) == ["a.jpg", "c.jpg"])
        #expect(try journal.attachments(AttachmentQuery(from: june.created.localDay)).map(\.name) == ["c.jpg"])
        #expect(try journal.attachments(AttachmentQuery(to: may.created.localDay, kind: .audio)).map(\.name) == ["b.mp3"])
        #expect(try journal.attachmentCounts() == [may.id: 2, june.id: 1])
        var newest = EntryQuery()
        newest.limit = 1
        #expect(try journal.attachmentCounts(matching: newest) == [june.id: 1])
        var inMay = EntryQuery()
        inMay.on = may.created.localDay...may.created.localDay
        #expect(try journal.attachmentCounts(matching: inMay) == [may.id: 2])
        // A text condition is decided after decryption: the limit cannot be applied before it.
        newest.contains = "May"
        #expect(try journal.attachmentCounts(matching: newest) == [may.id: 2, june.id: 1])
    }

    /// Attached within one millisecond, files still list in the order given: created_at is
    /// made later than the entry's last attachment (ids are random, so they cannot break ties).
    @Test func filesAttachedTogetherListInTheOrderGiven() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Many.")
        let names = (0..<24).map { "f\($0).txt" }
        try vault.journal.attach(try names.enumerated().map { .file(try Self.file(vault, $1, Self.content(3, seed: UInt64($0)))) }, to: entry.id)
        try vault.journal.attach([.file(try Self.file(vault, "last.txt", Self.content(3, seed: 99)))], to: entry.id)
        let listed = try vault.journal.attachments(AttachmentQuery(entryID: entry.id))
        #expect(listed.map(\.name) == names + ["last.txt"])
        #expect(Set(listed.map(\.created.millis)).count == listed.count)
    }

    @Test func detailsAndThumbnailFromTheCallerAreSealedAndKept() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Photo.")
        let media = AttachmentMedia(mediaType: "image/heic", width: 4032, height: 3024, takenAt: "2024-05-01T12:00:00+02:00",
                                    location: GeoLocation(latitude: 46.1, longitude: 7.2))
        let id = try vault.journal.attach([.file(try Self.file(vault, "IMG.HEIC", Self.content(99)), media: media, thumbnail: [0xff, 0xd8, 0xff])],
                                          to: entry.id)[0].id
        let again = try vault.journal.attachment(id: id)
        #expect(again.media == media && again.kind == .image && again.stored)
        #expect(try vault.journal.attachmentThumbnail(id: id) == [0xff, 0xd8, 0xff])
    }

    /// The same file in two vaults: other content tags, other blob ids (the tag is keyed by each
    /// vault's own key, so it confirms nothing about a known file).
    @Test func contentTagsAndBlobIDsAreKeyedPerVault() throws {
        let content = Self.content(1234)
        var seen: [(Data, String)] = []
        for _ in 0..<2 {
            let vault = try TemporaryVault()
            let entry = try vault.journal.addEntry("Same file.")
            try vault.journal.attach([.file(try Self.file(vault, "same.jpg", content))], to: entry.id)
            seen.append(try vault.journal.database.read { db in
                let row = try #require(try Row.fetchOne(db, sql: "SELECT content_tag, id FROM attachment_blob"))
                return (row[0] as Data, row[1] as String)
            })
        }
        #expect(seen[0].0 != seen[1].0 && seen[0].1 != seen[1].1)
        #expect(seen.allSatisfy { $0.0 != Data(Blake2b.hash(Array(content), length: 16)) })
    }

    /// A rekey reseals the blob row (new content tag under the new `K_att`, same id, same
    /// stream) and rewrites no chunk.
    @Test func rekeyRewrapsTheKeyAndLeavesTheChunks() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Before the rekey.")
        let content = Self.content(Self.mebibyte + 5)
        let attachment = try vault.journal.attach([.file(try Self.file(vault, "a.bin", content))], to: entry.id)[0]
        let before = try vault.journal.database.read { db in
            (try Data.fetchOne(db, sql: "SELECT content_tag FROM attachment_blob"), try Data.fetchAll(db, sql: "SELECT data FROM attachment_chunk ORDER BY idx"))
        }
        let (rekeyed, _) = try vault.unlock().rekey()
        let after = try rekeyed.database.read { db in
            (try Data.fetchOne(db, sql: "SELECT content_tag FROM attachment_blob"), try Data.fetchAll(db, sql: "SELECT data FROM attachment_chunk ORDER BY idx"))
        }
        #expect(before.0 != after.0 && before.1 == after.1)
        #expect(try rekeyed.attachment(id: attachment.id).blobID == attachment.blobID)
        #expect(try Self.read(rekeyed, attachment.id) == content)
        #expect(try rekeyed.check().isClean)
        // The same content attached again is recognised under the new key.
        let again = try rekeyed.attach([.file(try Self.file(vault, "b.bin", content))], to: entry.id)[0]
        #expect(again.blobID == attachment.blobID)
    }

    // MARK: Tampering with chunks

    /// Two attachments of three chunks each, and the edits of a round.
    final class TamperFixture {
        let vault: TemporaryVault
        var journal: UnlockedVault { vault.journal }
        let first: JournalVault.Attachment, second: JournalVault.Attachment

        init() throws {
            vault = try TemporaryVault()
            let entry = try vault.journal.addEntry("Two big files.")
            first = try vault.journal.attach([.file(try AttachmentTests.file(vault, "a.bin", AttachmentTests.content(2 * mebibyte + 1, seed: 7)))],
                                             to: entry.id)[0]
            second = try vault.journal.attach([.file(try AttachmentTests.file(vault, "b.bin", AttachmentTests.content(2 * mebibyte + 1, seed: 8)))],
                                              to: entry.id)[0]
        }

        func streamID(of attachment: JournalVault.Attachment) throws -> String {
            try journal.database.read { db in
                try #require(try String.fetchOne(db, sql: "SELECT stream_id FROM attachment_blob WHERE id = ?", arguments: [attachment.blobID.storageText]))
            }
        }

        /// Edits the chunks of `first` behind the vault's back (the manifest's triggers do not
        /// see it), then expects reading it to fail with nothing of the damaged chunk given, and
        /// `check()` to name its blob; then undoes the edit.
        func expectRefused(_ what: String, givenBefore: Int, sourceLocation: SourceLocation = #_sourceLocation,
                           _ edit: (Database, String, String) throws -> Void) throws {
            let saved = try journal.database.read { db in try Row.fetchAll(db, sql: "SELECT rowid, stream_id, idx, data FROM attachment_chunk") }
            let (mine, theirs) = (try streamID(of: first), try streamID(of: second))
            try journal.writeBehindTheVaultsBack { db in try edit(db, mine, theirs) }
            var given = 0
            expectTampered(Comment(rawValue: what), sourceLocation: sourceLocation) {
                try journal.readAttachment(id: first.id) { given += $0.count }
            }
            #expect(given == givenBefore, "\(what): only the chunks before the damage are given", sourceLocation: sourceLocation)
            let report = try journal.check()
            #expect(report.problems.contains { $0.contains(first.blobID.storageText) }, "\(what): \(report.problems)", sourceLocation: sourceLocation)
            try journal.writeBehindTheVaultsBack { db in
                try db.execute(sql: "DELETE FROM attachment_chunk")
                for row in saved {
                    try db.execute(sql: "INSERT INTO attachment_chunk (rowid, stream_id, idx, data) VALUES (?, ?, ?, ?)",
                                   arguments: [row[0] as DatabaseValue, row[1] as DatabaseValue, row[2] as DatabaseValue, row[3] as DatabaseValue])
                }
            }
            #expect(try journal.check().isClean, "\(what) undone", sourceLocation: sourceLocation)
        }
    }

    @Test func everyChunkTamperingIsRefusedAndReported() throws {
        let fixture = try TamperFixture()
        let chunk = { (db: Database, stream: String, index: Int) throws -> Data in
            try #require(try Data.fetchOne(db, sql: "SELECT data FROM attachment_chunk WHERE stream_id = ? AND idx = ?", arguments: [stream, index]))
        }
        let set = { (db: Database, stream: String, index: Int, data: Data) throws in
            try db.execute(sql: "UPDATE attachment_chunk SET data = ? WHERE stream_id = ? AND idx = ?", arguments: [data, stream, index])
        }
        try fixture.expectRefused("a byte flipped in chunk 1", givenBefore: Self.mebibyte) { db, mine, _ in
            try set(db, mine, 1, try chunk(db, mine, 1).flipping(100))
        }
        try fixture.expectRefused("chunk 1 dropped", givenBefore: 0) { db, mine, _ in
            try db.execute(sql: "DELETE FROM attachment_chunk WHERE stream_id = ? AND idx = 1", arguments: [mine])
        }
        try fixture.expectRefused("chunks 0 and 1 swapped", givenBefore: 0) { db, mine, _ in
            let (zero, one) = (try chunk(db, mine, 0), try chunk(db, mine, 1))
            try set(db, mine, 0, one)
            try set(db, mine, 1, zero)
        }
        try fixture.expectRefused("chunk 1 taken from the other attachment", givenBefore: Self.mebibyte) { db, mine, theirs in
            try set(db, mine, 1, try chunk(db, theirs, 1))
        }
        try fixture.expectRefused("the last chunk cut short", givenBefore: 2 * Self.mebibyte) { db, mine, _ in
            try set(db, mine, 2, try chunk(db, mine, 2).prefix(40))
        }
        try fixture.expectRefused("the last chunk dropped", givenBefore: 0) { db, mine, _ in
            try db.execute(sql: "DELETE FROM attachment_chunk WHERE stream_id = ? AND idx = 2", arguments: [mine])
        }
        try fixture.expectRefused("a chunk duplicated after the last", givenBefore: 0) { db, mine, _ in
            try db.execute(sql: "INSERT INTO attachment_chunk (stream_id, idx, data) VALUES (?, 3, ?)", arguments: [mine, try chunk(db, mine, 2)])
        }
        try fixture.expectRefused("chunk 0 given as chunk 1 too", givenBefore: Self.mebibyte) { db, mine, _ in
            try set(db, mine, 1, try chunk(db, mine, 0))
        }
    }

    /// A blob row sealed again, by someone with the key, with another content's digest: every
    /// chunk authenticates, so all of the content is given — the digest is checked once it has
    /// all been read (on the writing thread, beside the write) — and then the read is refused.
    @Test func contentNotOfItsRecordedDigestIsRefusedAtItsEnd() throws {
        let fixture = try TamperFixture()
        let journal = fixture.journal
        try journal.writeBehindTheVaultsBack { db in
            let blob = try #require(try AttachmentBlobRow.fetchOne(id: fixture.first.blobID, db))
            let opened = try blob.decrypt(keys: journal.keys)
            var details = opened.details
            details.digest[0] ^= 1
            var row = blob.row
            try row.seal([opened.stream.sealedForm, details.json.utf8Bytes, opened.thumbnail],
                         meta: .rewriting(row.encMeta, keyVersion: journal.keys.keyVersion), keys: journal.keys)
            try row.update(db)
        }
        var given = 0
        expectVaultError("the digest is not the content's", where: {
            if case .tamperedRecord(_, _, let detail) = $0 { detail.contains(AttachmentStream.contentMismatch) } else { false }
        }) {
            try journal.readAttachment(id: fixture.first.id) { given += $0.count }
        }
        #expect(given == 2 * Self.mebibyte + 1)
        #expect(try journal.check().problems.contains { $0.contains(fixture.first.blobID.storageText) })
        #expect(try Self.read(journal, fixture.second.id) == Self.content(2 * Self.mebibyte + 1, seed: 8))
    }

    /// The open counts the attachments, which a listing shows, but not their content, which every
    /// read of an attachment counts itself (FORMAT.md §11.3): at 10,000 photos the chunks' index
    /// was most of what a `jv list` read more than the same vault without them.
    @Test func theOpenCountsAttachmentsButNotTheirContent() throws {
        let fixture = try TamperFixture()
        let journal = fixture.journal
        let mine = try fixture.streamID(of: fixture.first)
        try journal.writeBehindTheVaultsBack { db in
            try db.execute(sql: "DELETE FROM attachment_chunk WHERE stream_id = ? AND idx = 1", arguments: [mine])
        }
        try journal.verifyRowCounts()
        expectTampered("the chunk is missed as the attachment is read") { try journal.readAttachment(id: fixture.first.id) { _ in } }
        #expect(try journal.check().problems.contains { $0.contains(fixture.first.blobID.storageText) })
        try journal.writeBehindTheVaultsBack { db in
            try db.execute(sql: "DELETE FROM attachment WHERE id = ?", arguments: [fixture.second.id.storageText])
        }
        expectVaultError("an attachment removed is refused as the vault opens", where: { if case .manifestDamaged = $0 { true } else { false } }) {
            try journal.verifyRowCounts()
        }
    }

    /// One attachment's chunk put back as it was in an older copy of the same file (deleted and
    /// attached again, so a new stream under a new key): refused, and the manifest sees it too.
    @Test func aChunkRolledBackToAnOlderCopyIsRefused() throws {
        let fixture = try TamperFixture()
        let journal = fixture.journal
        let oldStream = try fixture.streamID(of: fixture.first)
        let old = try journal.database.read { db in try Data.fetchAll(db, sql: "SELECT data FROM attachment_chunk WHERE stream_id = ? ORDER BY idx", arguments: [oldStream]) }
        let entryID = fixture.first.entryID
        try journal.deleteAttachment(id: fixture.first.id)
        let again = try journal.attach([.file(fixture.vault.folder.file("a.bin"))], to: entryID)[0]
        let newStream = try fixture.streamID(of: again)
        #expect(newStream != oldStream)
        try journal.writeBehindTheVaultsBack { db in
            try db.execute(sql: "UPDATE attachment_chunk SET data = ? WHERE stream_id = ? AND idx = 0", arguments: [old[0], newStream])
        }
        expectTampered { try journal.readAttachment(id: again.id) { _ in } }
        let report = try journal.check()
        #expect(report.problems.contains { $0.contains(again.blobID.storageText) }, "\(report.problems)")
        #expect(report.problems.contains { $0.contains("attachment chunks are not the ones the manifest lists") }, "\(report.problems)")
    }
}
