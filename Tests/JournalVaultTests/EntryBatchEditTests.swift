// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// Several entries edited together as jrnl text (``EntryBatchEdit``) and written in one
/// transaction (``UnlockedVault/applyEntryChanges(_:)``).
@Suite struct EntryBatchEditTests {
    let vault: TemporaryVault
    let utc = TimeZone(identifier: "UTC")!

    init() throws {
        vault = try TemporaryVault()
    }

    var journal: UnlockedVault { vault.journal }

    /// Three entries: one with a body, seconds and a star; one written in Tokyo with an
    /// explicit tag; one on a single line.
    private func threeEntries() throws -> [Entry] {
        try journal.addEntry("Morning walk.\n\nCold, bright. #outside", at: Instant(millis: jan5UTCMillis + 8 * hourMillis + 42_123, utcOffsetSeconds: 0),
                             starred: true)
        try journal.addEntry("Tokyo evening. Ramen.", at: moment(hoursAfterJan5UTC: 14.5, offsetHours: 9), tags: ["travel"])
        try journal.addEntry("Quiet day.", at: moment(hoursAfterJan5UTC: 30, offsetHours: 0))
        return try journal.entries()
    }

    private func marker(_ entry: Entry) -> String { "{jv:" + entry.id.uuidString.lowercased().prefix(8) + "}" }

    @Test func theTextIsJrnlHeadersWithMarkersAndReadsBackUnchanged() throws {
        let entries = try threeEntries()
        let edit = try EntryBatchEdit(entries)
        #expect(edit.text == """
            [2026-01-05 08:00] \(marker(entries[0])) Morning walk.

            Cold, bright. #outside

            [2026-01-05 23:30] \(marker(entries[1])) Tokyo evening. Ramen.

            [2026-01-06 06:00] \(marker(entries[2])) Quiet day.

            """)
        #expect(try edit.changes(in: edit.text, zone: utc).isEmpty)
        // In another zone too: an unchanged time keeps the entry's own offset and seconds.
        #expect(try edit.changes(in: edit.text, zone: TimeZone(identifier: "America/New_York")!).isEmpty)
    }

    @Test func editsBecomeRevisionsAdditionsAndDeletions() throws {
        let entries = try threeEntries()
        let edit = try EntryBatchEdit(entries)
        let edited = """
            [2026-01-05 08:00] \(marker(entries[0])) Morning walk.

            Cold, bright, windy. #outside

            [2026-01-05 12:00] A new one.
            With two lines.

            [2026-01-07 21:15] \(marker(entries[1])) Tokyo evening. Ramen.
            """
        let changes = try edit.changes(in: edited, zone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(changes.updated == [
            EntryChanges.Revision(id: entries[0].id, content: "Morning walk.\n\nCold, bright, windy. #outside", created: entries[0].created),
            // A changed time is read in the zone given.
            EntryChanges.Revision(id: entries[1].id, content: entries[1].content,
                                  created: Instant(millis: jan5UTCMillis + 2 * 24 * hourMillis + 12 * hourMillis + 15 * 60_000, utcOffsetSeconds: 9 * 3600)),
        ])
        #expect(changes.added.map(\.content) == ["A new one.\nWith two lines."])
        #expect(changes.added.first?.created == Instant(millis: jan5UTCMillis + 3 * hourMillis, utcOffsetSeconds: 9 * 3600))
        #expect(changes.deleted == [entries[2].id])

        try journal.applyEntryChanges(changes)
        let after = try journal.entries()
        // The new entry, at 03:00 UTC, comes first.
        #expect(after.map(\.content) == ["A new one.\nWith two lines.", "Morning walk.\n\nCold, bright, windy. #outside", "Tokyo evening. Ramen."])
        let walk = try journal.entry(id: entries[0].id)
        #expect(walk.starred && walk.created == entries[0].created && walk.modifiedAt > entries[0].modifiedAt)
        let tokyo = try journal.entry(id: entries[1].id)
        #expect(tokyo.explicitTags == ["travel"] && tokyo.localDay == day(2026, 1, 7))
        #expect(try journal.entries(EntryQuery.tagged("travel")).map(\.id) == [entries[1].id])
        #expect(try journal.check().isClean)
    }

    @Test func applyingIsAllOrNothing() throws {
        let entries = try threeEntries()
        let missing = UUID()
        let changes = EntryChanges(updated: [EntryChanges.Revision(id: entries[0].id, content: "Changed.", created: entries[0].created)],
                                   added: [Entry(content: "Added.", created: .now(), modifiedAt: Instant.now().millis)],
                                   deleted: [entries[2].id, missing])
        #expect(throws: VaultError.notFound(kind: "entry", id: missing.storageText)) { try journal.applyEntryChanges(changes) }
        #expect(try journal.entries() == entries)
        let blank = EntryChanges(updated: [EntryChanges.Revision(id: entries[0].id, content: " \n ", created: entries[0].created)],
                                 deleted: [entries[2].id])
        #expect(throws: VaultError.contentBlank) { try journal.applyEntryChanges(blank) }
        #expect(try journal.entries() == entries)
        #expect(try journal.check().isClean)
    }

    @Test(arguments: [
        ("{jv:00000000}", 1, "is not the marker of an entry being edited"),
        ("DUPLICATE", 5, "was already at line 1"),
        ("[2026-02-30 09:00] Bad day.", 5, "is not of the form [YYYY-MM-DD HH:MM]"),
        ("[2026-01-05 9:00] Bad time.", 5, "is not of the form [YYYY-MM-DD HH:MM]"),
        ("[2026-01-05 09:00]No space.", 5, "a space must follow"),
        ("[2026-01-05 09:00] {jv:zz} Bad marker.", 5, "does not hold the start of an entry's id"),
        ("[2026-01-05 09:00]", 5, "the entry has no text"),
        ("PREAMBLE", 1, "there is text before the first header"),
    ])
    func ambiguousTextIsRefused(edit change: String, line: Int, says: String) throws {
        let entries = try threeEntries()
        let edit = try EntryBatchEdit(Array(entries.prefix(2)))
        var lines = edit.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch change {
        case "{jv:00000000}": lines[0] = lines[0].replacingOccurrences(of: marker(entries[0]), with: change)
        case "DUPLICATE": lines[4] = lines[0]
        case "PREAMBLE": lines.insert("A note above the first header.", at: 0)
        default: lines.insert(change, at: 4)
        }
        do {
            _ = try edit.changes(in: lines.joined(separator: "\n"), zone: utc)
            Issue.record("accepted: \(change)")
        } catch let error as EntryEditError {
            guard case .unreadable(let at, let reason) = error else { throw error }
            #expect(at == line && reason.contains(says), "\(error)")
            #expect(error.description.hasPrefix("Line \(line) of the edited text: ") && error.description.hasSuffix("; nothing was changed."))
        }
    }

    @Test func anEntryWithAHeaderLikeLineCannotBeEditedWithOthers() throws {
        let entry = try journal.addEntry("Copied from jrnl:\n[2026-01-05 09:00] an old line")
        #expect(throws: EntryEditError.headerInText(id: entry.id)) { try EntryBatchEdit([entry]) }
        // Brackets that are not a date are text.
        let fine = try journal.addEntry("Tasks\n[x] done\n[2026] a year")
        let edit = try EntryBatchEdit([fine])
        #expect(try edit.changes(in: edit.text, zone: utc).isEmpty)
    }

    @Test func markersGrowUntilTheyTellTheEntriesApart() throws {
        let created = moment(hoursAfterJan5UTC: 1, offsetHours: 0)
        let first = Entry(id: UUID(uuidString: "1a2b3c4d-5e00-4000-8000-000000000001")!, content: "One.", created: created, modifiedAt: 0)
        let second = Entry(id: UUID(uuidString: "1a2b3c4d-5e11-4000-8000-000000000002")!, content: "Two.", created: created, modifiedAt: 0)
        let edit = try EntryBatchEdit([first, second])
        #expect(edit.text.contains("{jv:1a2b3c4d5e0} One.") && edit.text.contains("{jv:1a2b3c4d5e1} Two."))
        let swapped = edit.text.replacingOccurrences(of: "One.", with: "Uno.")
        #expect(try edit.changes(in: swapped, zone: utc).updated.map(\.id) == [first.id])
    }
}

private extension EntryQuery {
    static func tagged(_ tag: String) -> EntryQuery {
        var query = EntryQuery()
        query.tags = [tag]
        return query
    }
}
