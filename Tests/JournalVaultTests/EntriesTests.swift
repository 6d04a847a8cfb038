// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

/// Adding, reading, editing and deleting entries.
@Suite struct EntriesTests {
    let vault: TemporaryVault

    init() throws {
        vault = try TemporaryVault()
    }

    var journal: UnlockedVault { vault.journal }

    @Test func addedEntryReadsBackIdentically() throws {
        let written = moment(hoursAfterJan5UTC: 14.5, offsetHours: 9)
        let entry = try journal.addEntry("  Lunch with @Anna. Long talk about #work.  \n", at: written, starred: true,
                                         tags: ["Project-X", "#work"])
        #expect(entry.content == "Lunch with @Anna. Long talk about #work.")
        #expect(entry.title == "Lunch with @Anna.")
        #expect(entry.explicitTags == ["project-x", "work"])
        #expect(entry.tags == ["anna", "work", "project-x"])
        #expect(entry.starred)
        #expect(entry.created == written)
        #expect(entry.localDay == day(2026, 1, 5))
        #expect(entry.created.iso8601 == "2026-01-05T23:30:00.000+09:00")
        #expect(entry.version == Entry.currentVersion)
        #expect(try journal.entry(id: entry.id) == entry)
        // And through a separate unlock of the file.
        #expect(try vault.unlock().entry(id: entry.id) == entry)
    }

    @Test func addWithoutATimeIsWrittenNow() throws {
        let before = Instant.now().millis
        let entry = try journal.addEntry("Now.")
        let after = Instant.now().millis
        #expect((before...after).contains(entry.created.millis))
        #expect(entry.modifiedAt == entry.created.millis)
        #expect(entry.created.utcOffsetSeconds == TimeZone.current.secondsFromGMT(for: entry.created.date))
    }

    @Test func storedPlaintextColumnsMatchTheEntry() throws {
        let entry = try journal.addEntry("Columns.", at: moment(hoursAfterJan5UTC: 4.5, offsetHours: -5), starred: true)
        #expect(try vault.entryColumn("created_at", of: entry.id) == jan5UTCMillis + 4 * hourMillis + hourMillis / 2)
        #expect(try vault.entryColumn("utc_offset", of: entry.id) == -18_000)
        #expect(try vault.entryColumn("local_day", of: entry.id) == "2026-01-04")
        #expect(try vault.entryColumn("starred", of: entry.id) == 1)
        #expect(try vault.entryColumn("version", of: entry.id) == Entry.currentVersion)
        #expect(try vault.entryColumn("modified_at", of: entry.id) == entry.modifiedAt)
    }

    @Test func addRefusesBadInputAndWritesNothing() throws {
        #expect(throws: VaultError.contentTooLong(characters: 50_001, limit: 50_000)) {
            try journal.addEntry(String(repeating: "a", count: 50_001))
        }
        #expect(throws: VaultError.contentBlank) { try journal.addEntry(" \n\t ") }
        #expect(throws: VaultError.invalidTag("two words")) { try journal.addEntry("Fine text.", tags: ["two words"]) }
        #expect(try journal.entries().isEmpty)
        #expect(try vault.tagIndexRows().isEmpty)
        // The limit itself is fine.
        let longest = try journal.addEntry(String(repeating: "é", count: 50_000))
        #expect(try journal.entry(id: longest.id).content.count == 50_000)
    }

    @Test func unicodeContentRoundTripsExactly() throws {
        let text = "Caf\u{e9} vs cafe\u{301} — 東京 👩‍👩‍👧 \u{0}nul inside\r\nCRLF line"
        let entry = try journal.addEntry(text)
        #expect(Array(try journal.entry(id: entry.id).content.utf8) == Array(text.utf8))
    }

    @Test func updateChangesContentAndReindexesTags() throws {
        let entry = try journal.addEntry("Trip to #paris.", at: moment(hoursAfterJan5UTC: 10, offsetHours: 1), tags: ["holiday"])
        let updated = try journal.updateEntry(id: entry.id, content: "  Trip to #rome instead.  ")
        #expect(updated.content == "Trip to #rome instead.")
        #expect(updated.created == entry.created)
        #expect(updated.modifiedAt > entry.modifiedAt)
        #expect(updated.explicitTags == ["holiday"])
        #expect(try journal.entry(id: entry.id) == updated)
        #expect(try journal.entries(query(tags: ["paris"])).isEmpty)
        #expect(try journal.entries(query(tags: ["rome"])).map(\.id) == [entry.id])
        #expect(try journal.entries(query(tags: ["holiday"])).map(\.id) == [entry.id])
        #expect(try journal.check().isClean)
    }

    @Test func updateCanMoveAnEntryInTimeAndStarIt() throws {
        let entry = try journal.addEntry("Moved.", at: moment(hoursAfterJan5UTC: 10, offsetHours: 1))
        let later = moment(hoursAfterJan5UTC: 30, offsetHours: -5)
        let updated = try journal.updateEntry(id: entry.id, created: later, starred: true)
        #expect(updated.created == later)
        #expect(updated.localDay == day(2026, 1, 6))
        #expect(updated.starred)
        #expect(updated.content == "Moved.")
        #expect(try vault.entryColumn("local_day", of: entry.id) == "2026-01-06")
        #expect(try journal.entry(id: entry.id) == updated)
        let unstarred = try journal.updateEntry(id: entry.id, starred: false)
        #expect(!unstarred.starred)
        #expect(unstarred.modifiedAt > updated.modifiedAt)
        #expect(try journal.check().isClean)
    }

    @Test func modifiedAtAlwaysMovesForward() throws {
        // Even when the stored modified_at lies in the future (another machine's clock).
        let entry = try journal.addEntry("Clock skew.")
        let future = Instant.now().millis + 10 * 86_400_000
        try journal.addEntries([Entry(id: UUID(), content: "unused", created: entry.created, modifiedAt: future)])
        let skewed = try #require(try journal.entries().first { $0.modifiedAt == future })
        let updated = try journal.updateEntry(id: skewed.id, content: "edited")
        #expect(updated.modifiedAt == future + 1)
    }

    @Test func updateRefusesBlankContentAndLeavesTheEntry() throws {
        let entry = try journal.addEntry("Keep me.")
        #expect(throws: VaultError.contentBlank) { try journal.updateEntry(id: entry.id, content: "   ") }
        #expect(throws: VaultError.contentTooLong(characters: 50_001, limit: 50_000)) {
            try journal.updateEntry(id: entry.id, content: String(repeating: "z", count: 50_001))
        }
        #expect(try journal.entry(id: entry.id) == entry)
        #expect(RecordMeta(encoded: try vault.entryColumn("enc_meta", of: entry.id))?.revision == 1)
    }

    @Test func unknownIDsAreNotFound() throws {
        let missing = UUID()
        let notFound = VaultError.notFound(kind: "entry", id: missing.storageText)
        #expect(throws: notFound) { try journal.entry(id: missing) }
        #expect(throws: notFound) { try journal.updateEntry(id: missing, content: "x") }
        #expect(throws: notFound) { try journal.deleteEntry(id: missing) }
    }

    @Test func deleteRemovesTheEntryAndItsTagIndex() throws {
        let doomed = try journal.addEntry("Delete me. #gone", tags: ["also-gone"])
        let kept = try journal.addEntry("Keep me. #gone")
        #expect(try vault.tagIndexRows().count == 3)
        try journal.deleteEntry(id: doomed.id)
        #expect(throws: VaultError.notFound(kind: "entry", id: doomed.id.storageText)) { try journal.entry(id: doomed.id) }
        #expect(throws: VaultError.notFound(kind: "entry", id: doomed.id.storageText)) { try journal.deleteEntry(id: doomed.id) }
        #expect(try vault.tagIndexRows().map(\.0) == [kept.id.storageText])
        #expect(try journal.entries() == [kept])
        #expect(try journal.entries(query(tags: ["gone"])) == [kept])
        #expect(try journal.check().isClean)
    }

    @Test func addEntriesIsAllOrNothing() throws {
        let id = UUID()
        let created = moment(hoursAfterJan5UTC: 1, offsetHours: 0)
        let batch = [
            Entry(id: UUID(), content: "one", created: created, modifiedAt: created.millis),
            Entry(id: id, content: "two", created: created, modifiedAt: created.millis),
            Entry(id: id, content: "duplicate id", created: created, modifiedAt: created.millis),
        ]
        #expect(throws: VaultError.self) { try journal.addEntries(batch) }
        #expect(try journal.entries().isEmpty)
        try journal.addEntries(Array(batch.prefix(2)))
        #expect(try journal.entries().count == 2)
    }

    @Test func addEntriesKeepsIDsTimesAndFlags() throws {
        let entries = (0..<5).map { index in
            Entry(id: UUID(), content: "Imported #\(index) @batch", created: moment(hoursAfterJan5UTC: Double(index), offsetHours: 2),
                  modifiedAt: jan5UTCMillis + Int64(index), starred: index.isMultiple(of: 2), explicitTags: ["imported"])
        }
        try journal.addEntries(entries)
        #expect(try journal.entries() == entries)
        #expect(try journal.entries(query(tags: ["imported", "batch"])).count == 5)
        #expect(try journal.entries(query(tags: ["3"])).map(\.id) == [entries[3].id])
        #expect(try journal.check().isClean)
    }

    // MARK: Id prefixes

    static let idA1 = UUID(uuidString: "aaaaaaaa-0000-4000-8000-000000000001")!
    static let idA2 = UUID(uuidString: "aaaaaaaa-0000-4000-8000-000000000002")!
    static let idB = UUID(uuidString: "bbbbbbbb-1111-4000-8000-000000000003")!

    private func addChosenIDs() throws {
        let created = moment(hoursAfterJan5UTC: 1, offsetHours: 0)
        try journal.addEntries([Self.idA1, Self.idA2, Self.idB].map {
            Entry(id: $0, content: "Entry \($0)", created: created, modifiedAt: created.millis)
        })
    }

    @Test func idPrefixResolution() throws {
        try addChosenIDs()
        for (text, expected) in [
            ("bbbb", Self.idB), ("BBBB", Self.idB), ("  bbbbbbbb-11 ", Self.idB), ("bbbbbbbb-1111-4000-8000-000000000003", Self.idB),
            ("BBBBBBBB-1111-4000-8000-000000000003", Self.idB), ("aaaaaaaa-0000-4000-8000-000000000001", Self.idA1),
            ("aaaaaaaa-0000-4000-8000-000000000002", Self.idA2),
        ] {
            #expect(try journal.resolveEntryID(text) == expected, "\(text)")
        }
        // Ambiguous: how many match is reported.
        #expect(throws: VaultError.ambiguousID(prefix: "aaaa", matches: 2)) { try journal.resolveEntryID("aaaa") }
        #expect(throws: VaultError.ambiguousID(prefix: "aaaaaaaa-0000-4000-8000-00000000000", matches: 2)) {
            try journal.resolveEntryID("aaaaaaaa-0000-4000-8000-00000000000")
        }
        // Too short, not hexadecimal, too long.
        for text in ["", "a", "aaa", "bbb", "zzzz", "bbbb?", "bb bb", "bbbb%", "bbbb_", "aaaaaaaa-0000-4000-8000-0000000000011"] {
            #expect(throws: VaultError.invalidID(text), "\(text)") { try journal.resolveEntryID(text) }
        }
        // Well-formed but unknown.
        for text in ["cccc", "aaab", "bbbbbbbb-2", "aaaaaaaa-0000-4000-8000-000000000009"] {
            #expect(throws: VaultError.notFound(kind: "entry", id: text), "\(text)") { try journal.resolveEntryID(text) }
        }
    }

    private func query(tags: [String]) -> EntryQuery {
        var query = EntryQuery()
        query.tags = tags
        return query
    }
}
