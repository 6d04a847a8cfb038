// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

/// Edits to stored entry rows behind the vault's back (SECURITY.md, FORMAT.md §4.4: edits and swaps): each must be reported as tampering by `entry(id:)`, `entries()` and
/// `check()`, never returned as data.
@Suite struct RecordTamperTests {
    /// Arguments: the blind index, then the UUID text of the entry the row should name.
    static let insertTagIndexRow = "INSERT INTO entry_tag (bidx, entry_seq) VALUES (?, (SELECT seq FROM entry WHERE id = ?))"

    /// Two entries, written at fixed moments.
    struct Fixture {
        let vault: TemporaryVault
        let first: Entry
        let second: Entry

        init() throws {
            vault = try TemporaryVault()
            first = try vault.journal.addEntry("Morning walk by the river. #outside", at: moment(hoursAfterJan5UTC: 9, offsetHours: 1),
                                               tags: ["walk"])
            second = try vault.journal.addEntry("Evening: read two chapters. @Anna called.", at: moment(hoursAfterJan5UTC: 20, offsetHours: 1),
                                                starred: true)
        }

        /// Runs `body`, then writes `first`'s row back as it was and checks that it reads again.
        func withRowRestored(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
            let id = first.id.storageText
            let saved = try vault.journal.database.read { db in
                try #require(try Row.fetchOne(db, sql: "SELECT * FROM entry WHERE id = ?", arguments: [id]))
            }
            try body()
            let columns = Array(saved.columnNames)
            try vault.execute("UPDATE entry SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?",
                              StatementArguments(columns.map { saved[$0] as DatabaseValue } + [id]))
            #expect(try vault.journal.entry(id: first.id) == first, sourceLocation: sourceLocation)
        }

        /// `first` is reported everywhere; `second`, untouched, still reads.
        func expectFirstReported(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
            expectTampered(comment, sourceLocation: sourceLocation) { try vault.journal.entry(id: first.id) }
            expectTampered(comment, sourceLocation: sourceLocation) { try vault.journal.entries() }
            let report = try vault.journal.check()
            #expect(!report.isClean, comment, sourceLocation: sourceLocation)
            #expect(report.problems.contains { $0.contains(first.id.storageText) }, comment, sourceLocation: sourceLocation)
            #expect(try vault.journal.entry(id: second.id) == second, comment, sourceLocation: sourceLocation)
        }
    }

    @Test func untouchedVaultChecksClean() throws {
        let fixture = try Fixture()
        let report = try fixture.vault.journal.check()
        #expect(report.isClean, "\(report.problems)")
        #expect(report.checked["entry"] == 2)
        #expect(try fixture.vault.journal.entries() == [fixture.first, fixture.second])
    }

    enum ColumnEdit: String, CaseIterable, Sendable {
        case contentFirstByte, contentMiddleByte, contentLastByte
        case tagsByte
        case encMetaFormat, encMetaKeyVersion, encMetaRevision, encMetaSalt, encMetaTruncated
        case createdAtPlusOneMillisecond, createdAtMinusOneMillisecond
        case modifiedAt
        case utcOffsetSameLocalDay, utcOffsetOtherLocalDay
        case starred, version, localDay

        func apply(to vault: TemporaryVault, id: UUID) throws {
            func flip(_ column: String, at offset: (Int) -> Int) throws {
                let blob: Data = try vault.entryColumn(column, of: id)
                try vault.setEntryColumn(column, of: id, to: blob.flipping(offset(blob.count)))
            }
            func sql(_ assignment: String) throws {
                try vault.execute("UPDATE entry SET \(assignment) WHERE id = ?", [id.storageText])
            }
            switch self {
            case .contentFirstByte: try flip("content") { _ in 0 }
            case .contentMiddleByte: try flip("content") { $0 / 2 }
            case .contentLastByte: try flip("content") { $0 - 1 }
            case .tagsByte: try flip("tags") { $0 / 2 }
            case .encMetaFormat: try flip("enc_meta") { _ in 0 }
            case .encMetaKeyVersion: try flip("enc_meta") { _ in 4 }
            case .encMetaRevision: try flip("enc_meta") { _ in 8 }
            case .encMetaSalt: try flip("enc_meta") { _ in 17 }
            case .encMetaTruncated: try sql("enc_meta = substr(enc_meta, 1, 24)")
            case .createdAtPlusOneMillisecond: try sql("created_at = created_at + 1")
            case .createdAtMinusOneMillisecond: try sql("created_at = created_at - 1")
            case .modifiedAt: try sql("modified_at = modified_at + 1")
            case .utcOffsetSameLocalDay: try sql("utc_offset = utc_offset + 60")
            case .utcOffsetOtherLocalDay: try sql("utc_offset = utc_offset + 86400 / 2 + 3600")
            case .starred: try sql("starred = 1 - starred")
            case .version: try sql("version = version + 1")
            case .localDay: try sql("local_day = '2026-01-06'")
            }
        }
    }

    @Test func editOfAnyStoredColumnIsReported() throws {
        // One vault; the row is put back after each edit (and must then read again).
        let fixture = try Fixture()
        for edit in ColumnEdit.allCases {
            try fixture.withRowRestored {
                try edit.apply(to: fixture.vault, id: fixture.first.id)
                try fixture.expectFirstReported(Comment(rawValue: edit.rawValue))
            }
        }
    }

    @Test func flippingAnyBitOfAnyBlobIsReported() throws {
        // Every byte, two bits each, of content, tags and enc_meta; each round in a transaction
        // that is rolled back, read through the same connection.
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        let id = fixture.first.id
        var rounds = 0
        for column in ["content", "tags", "enc_meta"] {
            let blob: Data = try fixture.vault.entryColumn(column, of: id)
            for offset in 0..<blob.count {
                for mask: UInt8 in [0x01, 0x80] {
                    try fixture.vault.withRolledBackTransaction { db in
                        try db.execute(sql: "UPDATE entry SET \(column) = ? WHERE id = ?",
                                       arguments: [blob.flipping(offset, mask: mask), id.storageText])
                        expectTampered("\(column) byte \(offset) mask \(mask)") { try journal.fetchEntry(id: id, db) }
                    }
                    rounds += 1
                }
            }
        }
        #expect(rounds == 2 * (104 + 104 + 25))
        // Nothing stuck: the rollbacks left the record intact.
        #expect(try journal.entry(id: id) == fixture.first)
    }

    @Test func flippingAnyIntegerColumnBitIsReported() throws {
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        let id = fixture.first.id
        for column in ["created_at", "modified_at", "utc_offset", "version"] {
            for bit in [0, 1, 9, 20, 40] {
                try fixture.vault.withRolledBackTransaction { db in
                    let value = try #require(try Int64.fetchOne(db, sql: "SELECT \(column) FROM entry WHERE id = ?", arguments: [id.storageText]))
                    try db.execute(sql: "UPDATE entry SET \(column) = ? WHERE id = ?", arguments: [value ^ (Int64(1) << bit), id.storageText])
                    expectTampered("\(column) bit \(bit)") { try journal.fetchEntry(id: id, db) }
                }
            }
        }
        #expect(try journal.entry(id: id) == fixture.first)
    }

    @Test func relabelledIDIsReported() throws {
        // The attacker renames the row to another valid UUID (its tag index rows follow its `seq`).
        let fixture = try Fixture()
        let newID = UUID()
        try fixture.vault.execute("UPDATE entry SET id = ? WHERE id = ?", [newID.storageText, fixture.first.id.storageText])
        expectTampered { try fixture.vault.journal.entry(id: newID) }
        expectTampered { try fixture.vault.journal.entries() }
        #expect(throws: VaultError.notFound(kind: "entry", id: fixture.first.id.storageText)) {
            try fixture.vault.journal.entry(id: fixture.first.id)
        }
        let report = try fixture.vault.journal.check()
        #expect(report.problems.contains { $0.contains(newID.storageText) })
    }

    @Test func everyHexDigitOfTheIDIsBound() throws {
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        let original = Array(fixture.first.id.storageText)
        for index in original.indices where original[index] != "-" {
            var relabelled = original
            relabelled[index] = original[index] == "0" ? "1" : "0"
            let newID = try #require(UUID(uuidString: String(relabelled)))
            try fixture.vault.withRolledBackTransaction { db in
                try db.execute(sql: "UPDATE entry SET id = ? WHERE id = ?", arguments: [newID.storageText, fixture.first.id.storageText])
                expectTampered("id character \(index)") { try journal.fetchEntry(id: newID, db) }
            }
        }
    }

    @Test func idNotInCanonicalFormIsReported() throws {
        let fixture = try Fixture()
        try fixture.vault.execute("UPDATE entry SET id = upper(id) WHERE id = ?", [fixture.first.id.storageText])
        expectTampered { try fixture.vault.journal.entries() }
        #expect(!(try fixture.vault.journal.check().isClean))
    }

    // MARK: Swaps and copies

    @Test func contentSwappedBetweenRowsIsReportedForBoth() throws {
        let fixture = try Fixture()
        try swap(["content"], fixture)
        expectTampered { try fixture.vault.journal.entry(id: fixture.first.id) }
        expectTampered { try fixture.vault.journal.entry(id: fixture.second.id) }
        #expect(try fixture.vault.journal.check().problems.count >= 2)
    }

    @Test(arguments: [["content", "enc_meta"], ["content", "tags", "enc_meta"], ["tags"], ["enc_meta"]])
    func encryptedColumnsSwappedBetweenRowsAreReportedForBoth(columns: [String]) throws {
        let fixture = try Fixture()
        try swap(columns, fixture)
        expectTampered("\(columns)") { try fixture.vault.journal.entry(id: fixture.first.id) }
        expectTampered("\(columns)") { try fixture.vault.journal.entry(id: fixture.second.id) }
        expectTampered("\(columns)") { try fixture.vault.journal.entries() }
    }

    @Test func wholeRowsWithTheirPlaintextColumnsSwappedUnderEachOthersIDsAreReported() throws {
        // Everything but the id moved across: the id in the associated data and the subkey catch it.
        let fixture = try Fixture()
        try swap(["created_at", "modified_at", "utc_offset", "local_day", "version", "starred", "enc_meta", "content", "tags"], fixture)
        expectTampered { try fixture.vault.journal.entry(id: fixture.first.id) }
        expectTampered { try fixture.vault.journal.entry(id: fixture.second.id) }
    }

    @Test func tagsBlobCopiedIntoContentOfTheSameRowIsReported() throws {
        let fixture = try Fixture()
        try fixture.vault.execute("UPDATE entry SET content = tags WHERE id = ?", [fixture.first.id.storageText])
        try fixture.expectFirstReported()
    }

    @Test func contentBlobCopiedIntoTagsOfTheSameRowIsReported() throws {
        let fixture = try Fixture()
        try fixture.vault.execute("UPDATE entry SET tags = content WHERE id = ?", [fixture.first.id.storageText])
        try fixture.expectFirstReported()
    }

    @Test func rowCopiedFromAnotherVaultIsReported() throws {
        // Same passphrase, different master key.
        let fixture = try Fixture()
        let other = try TemporaryVault()
        let foreign = try other.journal.addEntry("Written in another vault.")
        let row = try other.journal.database.read { db in
            try #require(try Row.fetchOne(db, sql: "SELECT * FROM entry WHERE id = ?", arguments: [foreign.id.storageText]))
        }
        try fixture.vault.execute("""
            INSERT INTO entry (id, created_at, modified_at, utc_offset, local_day, version, starred, enc_meta, content, tags)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, StatementArguments(["id", "created_at", "modified_at", "utc_offset", "local_day", "version", "starred",
                                     "enc_meta", "content", "tags"].map { row[$0] as DatabaseValue }))
        expectTampered { try fixture.vault.journal.entry(id: foreign.id) }
        #expect(!(try fixture.vault.journal.check().isClean))
    }

    // MARK: Revisions

    @Test func blobsOfAnOlderRevisionRestoredAfterAnEditAreReported() throws {
        let fixture = try Fixture()
        let id = fixture.first.id
        let oldContent: Data = try fixture.vault.entryColumn("content", of: id)
        let oldTags: Data = try fixture.vault.entryColumn("tags", of: id)
        let oldMeta: Data = try fixture.vault.entryColumn("enc_meta", of: id)
        try fixture.vault.journal.updateEntry(id: id, content: "Morning walk, edited.")
        // Each write bumps the revision and takes a fresh salt.
        let newMeta: Data = try fixture.vault.entryColumn("enc_meta", of: id)
        #expect(RecordMeta(encoded: newMeta)?.revision == 2)
        #expect(RecordMeta(encoded: newMeta)?.salt != RecordMeta(encoded: oldMeta)?.salt)
        // Old content with the new metadata, and old content with its own old metadata.
        try fixture.vault.setEntryColumn("content", of: id, to: oldContent)
        try fixture.expectFirstReported("old content, new enc_meta")
        try fixture.vault.execute("UPDATE entry SET content = ?, tags = ?, enc_meta = ? WHERE id = ?",
                                  [oldContent, oldTags, oldMeta, id.storageText])
        try fixture.expectFirstReported("old content, tags and enc_meta, new modified_at")
    }

    @Test
    func wholeRowRolledBackToAnOlderRevisionIsReported() throws {
        let fixture = try Fixture()
        let id = fixture.first.id
        let columns = ["created_at", "modified_at", "utc_offset", "local_day", "version", "starred", "enc_meta", "content", "tags"]
        let old = try fixture.vault.journal.database.read { db in
            try #require(try Row.fetchOne(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM entry WHERE id = ?",
                                          arguments: [id.storageText]))
        }
        try fixture.vault.journal.updateEntry(id: id, content: "Edited: the walk was cancelled.")
        try fixture.vault.execute("UPDATE entry SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?",
                                  StatementArguments(columns.map { old[$0] as DatabaseValue } + [id.storageText]))
        try fixture.vault.execute("DELETE FROM entry_tag WHERE entry_seq = (SELECT seq FROM entry WHERE id = ?)", [id.storageText])
        for bidx in fixture.vault.journal.tagIndexes(of: fixture.first) {
            try fixture.vault.execute(Self.insertTagIndexRow, [bidx, id.storageText])
        }
        #expect(!(try fixture.vault.journal.check().isClean))
    }

    /// Content that authenticates but is not UTF-8 (only a writer with the key can make it: a
    /// bug, never the file's attacker) is tampering on every read path, the search scan too: it
    /// is checked before any filter looks at it, so a word the text lacks does not pass over it.
    @Test func authenticatedContentThatIsNotUTF8IsReportedByEveryRead() throws {
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        let id = fixture.first.id.storageText
        let stored = try journal.database.read { db in
            try EncryptedEntryRow(row: try #require(try Row.fetchOne(db, sql: "SELECT \(EncryptedEntryRow.selection) FROM entry WHERE id = ?",
                                                                  arguments: [id])))
        }
        let sealed = try journal.keys.records.seal([("content", [0x4D, 0xC3, 0x28, 0x20, 0x77]), ("tags", Array("[]".utf8))],
                                                   binding: try stored.binding(meta: try stored.parsedMeta()))
        try fixture.vault.execute("UPDATE entry SET content = ?, tags = ? WHERE id = ?", [sealed[0], sealed[1], id])
        expectTampered { try journal.entry(id: fixture.first.id) }
        expectTampered { try journal.entries() }
        var containing = EntryQuery()
        containing.contains = "zebra"
        expectTampered("a listing's contains") { try journal.entries(containing) }
        for word in ["zebra", "walk"] {
            let request = SearchRequest(query: try SearchQuery.parse(word))
            expectTampered("search \(word)") { try journal.forEachSearchMatch(request, transform: { $0 }) { _ in } }
        }
        #expect(try journal.entry(id: fixture.second.id) == fixture.second)
    }

    @Test
    func deletedRowIsReported() throws {
        let fixture = try Fixture()
        try fixture.vault.execute("DELETE FROM entry WHERE id = ?", [fixture.first.id.storageText])
        #expect(!(try fixture.vault.journal.check().isClean))
    }

    @Test
    func deletedRowReinsertedIsReported() throws {
        let fixture = try Fixture()
        let id = fixture.first.id
        let row = try fixture.vault.journal.database.read { db in
            try #require(try Row.fetchOne(db, sql: "SELECT * FROM entry WHERE id = ?", arguments: [id.storageText]))
        }
        let tags = try fixture.vault.tagIndexRows().filter { $0.0 == id.storageText }
        try fixture.vault.journal.deleteEntry(id: id)
        try fixture.vault.execute("""
            INSERT INTO entry (id, created_at, modified_at, utc_offset, local_day, version, starred, enc_meta, content, tags)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, StatementArguments(["id", "created_at", "modified_at", "utc_offset", "local_day", "version", "starred",
                                     "enc_meta", "content", "tags"].map { row[$0] as DatabaseValue }))
        for (entryID, bidx) in tags {
            try fixture.vault.execute(Self.insertTagIndexRow, [bidx, entryID])
        }
        #expect(!(try fixture.vault.journal.check().isClean))
    }

    // MARK: Tag index

    @Test func deletedTagIndexRowIsReportedByCheck() throws {
        let fixture = try Fixture()
        let rows = try fixture.vault.tagIndexRows().filter { $0.0 == fixture.first.id.storageText }
        #expect(rows.count == 2)  // #outside and the explicit "walk"
        try fixture.vault.execute("DELETE FROM entry_tag WHERE entry_seq = (SELECT seq FROM entry WHERE id = ?) AND bidx = ?",
                                  [rows[0].0, rows[0].1])
        let report = try fixture.vault.journal.check()
        #expect(report.problems.contains { $0.contains(fixture.first.id.storageText) && $0.contains("tag") })
    }

    @Test func bogusTagIndexRowIsReportedByCheck() throws {
        let fixture = try Fixture()
        try fixture.vault.execute(Self.insertTagIndexRow, [Data(repeating: 0xab, count: 8), fixture.second.id.storageText])
        let report = try fixture.vault.journal.check()
        #expect(report.problems.contains { $0.contains(fixture.second.id.storageText) && $0.contains("tag") })
    }

    @Test func tagIndexRowMovedToAnotherEntryIsReportedForBoth() throws {
        let fixture = try Fixture()
        try fixture.vault.execute("""
            UPDATE entry_tag SET entry_seq = (SELECT seq FROM entry WHERE id = ?) WHERE entry_seq = (SELECT seq FROM entry WHERE id = ?)
            """, [fixture.second.id.storageText, fixture.first.id.storageText])
        let problems = try fixture.vault.journal.check().problems
        #expect(problems.contains { $0.contains(fixture.first.id.storageText) })
        #expect(problems.contains { $0.contains(fixture.second.id.storageText) })
    }

    /// Rows whose `entry_seq` names no entry (written with foreign keys off) are reported by
    /// both SQLite's foreign-key check and the tag-index comparison.
    @Test func tagIndexRowOfAMissingEntryIsReportedByCheck() throws {
        let fixture = try Fixture()
        let missingSeq: Int64 = 1_000_000
        try fixture.vault.journal.writeWithoutTransactionBehindTheVaultsBack { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "INSERT INTO entry_tag (bidx, entry_seq) VALUES (?, ?)",
                           arguments: [Data(repeating: 0xcd, count: 8), missingSeq])
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let problems = try fixture.vault.journal.check().problems
        #expect(problems.contains("Tag index rows name entry row \(missingSeq), which does not exist."), "\(problems)")
        #expect(problems.contains { $0.contains("entry_tag") && $0.contains("missing") }, "\(problems)")
        #expect(problems.contains { $0.contains("tag index rows") && $0.contains("should not exist") }, "the manifest too: \(problems)")
        #expect(problems.count == 3, "\(problems)")
    }

    // MARK: Values of the wrong type or range (README "Reliability": a tampered file gets a clear error, never a crash)

    static let wrongTypes = [
        ("created_at", "'yesterday'"), ("modified_at", "'later'"), ("utc_offset", "'+01:00'"), ("version", "'one'"),
        ("created_at", "1.5e12"), ("utc_offset", "x'00'"), ("local_day", "20260105"),
        ("enc_meta", "'not a blob'"), ("content", "'plain text'"), ("tags", "'[]'"),
    ]

    /// Listing and `check()` read through cursors.
    @Test func valueOfTheWrongTypeIsReportedByListingAndCheck() throws {
        let fixture = try Fixture()
        for (column, literal) in Self.wrongTypes {
            try fixture.withRowRestored {
                try fixture.vault.execute("UPDATE entry SET \(column) = \(literal) WHERE id = ?", [fixture.first.id.storageText])
                expectTampered("\(column) = \(literal)") { try fixture.vault.journal.entries() }
                #expect(try fixture.vault.journal.check().problems.contains { $0.contains(fixture.first.id.storageText) },
                        "\(column) = \(literal)")
            }
        }
    }

    /// `entry(id:)` (jv show, jv edit) reads a copied row, whose integer subscripts trap on TEXT.
    @Test(arguments: wrongTypes)
    func valueOfTheWrongTypeIsReportedByLookup(column: String, literal: String) throws {
        let fixture = try Fixture()
        try fixture.vault.execute("UPDATE entry SET \(column) = \(literal) WHERE id = ?", [fixture.first.id.storageText])
        try fixture.expectFirstReported("\(column) = \(literal)")
    }

    @Test
    func extremeOffsetOrTimestampIsReportedNotCrashed() throws {
        let fixture = try Fixture()
        try fixture.vault.execute("UPDATE entry SET utc_offset = ? WHERE id = ?", [Int64.max / 2, fixture.first.id.storageText])
        expectTampered { try fixture.vault.journal.entry(id: fixture.first.id) }
        try fixture.vault.execute("UPDATE entry SET utc_offset = 3600, created_at = ? WHERE id = ?",
                                  [Int64.max, fixture.first.id.storageText])
        expectTampered { try fixture.vault.journal.entry(id: fixture.first.id) }
    }

    // MARK: Helpers

    /// Exchanges `columns` between the fixture's two rows.
    private func swap(_ columns: [String], _ fixture: Fixture) throws {
        let a = fixture.first.id.storageText, b = fixture.second.id.storageText
        try fixture.vault.journal.writeBehindTheVaultsBack { db in
            let rowA = try #require(try Row.fetchOne(db, sql: "SELECT * FROM entry WHERE id = ?", arguments: [a]))
            let rowB = try #require(try Row.fetchOne(db, sql: "SELECT * FROM entry WHERE id = ?", arguments: [b]))
            let assignments = columns.map { "\($0) = ?" }.joined(separator: ", ")
            try db.execute(sql: "UPDATE entry SET \(assignments) WHERE id = ?",
                           arguments: StatementArguments(columns.map { rowB[$0] as DatabaseValue } + [a]))
            try db.execute(sql: "UPDATE entry SET \(assignments) WHERE id = ?",
                           arguments: StatementArguments(columns.map { rowA[$0] as DatabaseValue } + [b]))
        }
    }
}

/// Nonces and salts at the record level (FORMAT.md §4).
@Suite struct RecordNonceTests {
    @Test func twoThousandEntriesInOneBatchShareNoNonceOrSalt() throws {
        let vault = try TemporaryVault()
        let base = moment(hoursAfterJan5UTC: 0, offsetHours: 0)
        let entries = (0..<2000).map { index in
            Entry(content: "Same text every time.", created: Instant(millis: base.millis + Int64(index), utcOffsetSeconds: 0),
                  modifiedAt: base.millis)
        }
        try vault.journal.addEntries(entries)
        let (contents, tags, metas) = try vault.journal.database.read { db in
            (try Data.fetchAll(db, sql: "SELECT content FROM entry"),
             try Data.fetchAll(db, sql: "SELECT tags FROM entry"),
             try Data.fetchAll(db, sql: "SELECT enc_meta FROM entry"))
        }
        #expect(contents.count == 2000)
        let nonces = contents.map { $0.prefix(24) } + tags.map { $0.prefix(24) }
        #expect(Set(nonces).count == 4000)
        let salts = metas.map { Data($0[9..<25]) }
        #expect(Set(salts).count == 2000)
        // Same plaintext, different ciphertext.
        #expect(Set(contents).count == 2000)
    }

    @Test func editingAnEntryTakesAFreshSaltAndNonce() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("First text.")
        let metaBefore: Data = try vault.entryColumn("enc_meta", of: entry.id)
        let contentBefore: Data = try vault.entryColumn("content", of: entry.id)
        try vault.journal.updateEntry(id: entry.id, starred: true)
        let metaAfter: Data = try vault.entryColumn("enc_meta", of: entry.id)
        let contentAfter: Data = try vault.entryColumn("content", of: entry.id)
        #expect(metaAfter[9..<25] != metaBefore[9..<25])
        #expect(contentAfter.prefix(24) != contentBefore.prefix(24))
        #expect(RecordMeta(encoded: metaAfter)?.revision == 2)
    }

    @Test func storedEnvelopeHasTheDocumentedShape() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry(String(repeating: "x", count: 100))
        let meta: Data = try vault.entryColumn("enc_meta", of: entry.id)
        #expect(meta.count == 25)
        #expect(Array(meta.prefix(9)) == [1, 0, 0, 0, 1, 0, 0, 0, 1])  // format 1, key version 1, revision 1
        // 100 bytes padded to 128, plus nonce and tag.
        #expect(try vault.entryColumn("content", of: entry.id, as: Data.self).count == 128 + 40)
        // "[]" padded to 64.
        #expect(try vault.entryColumn("tags", of: entry.id, as: Data.self).count == 64 + 40)
    }
}
