// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
@testable import JournalVault

/// The session index's looks at the manifest: a table the manifest shows unchanged is `unchanged`, rows only added are
/// exactly those rows, and any other change is `unknown` (the caller then compares every row).
@Suite("session table looks")
struct SessionTableLooksTests {
    private func look(_ looks: inout SessionTableLooks, _ journal: UnlockedVault, commit: Bool = true) throws -> SessionTableLooks.Change? {
        let changes = try journal.database.read { db in try looks.changes(of: [.entry, .chatMessage], db, keys: journal.keys) }
        if commit { looks.commit() }
        return changes[SealedTable.entry.name]
    }

    @Test("first look unknown; then unchanged; added rows by id; an edit, a deletion, a reused rowid unknown")
    func changes() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        var looks = SessionTableLooks()
        let first = try journal.addEntry("the first")
        #expect(try look(&looks, journal) == .unknown)
        #expect(try look(&looks, journal) == .unchanged)

        let added = [try journal.addEntry("a second"), try journal.addEntry("a third")]
        #expect(try look(&looks, journal) == .added(ids: added.map(\.id.storageText)))
        #expect(try look(&looks, journal) == .unchanged)

        // Another table's write leaves the entries alone.
        try journal.addMessage(ChatMessageDraft(role: .user, content: "a message", timestamp: .now()))
        #expect(try look(&looks, journal) == .unchanged)

        _ = try journal.updateEntry(id: first.id, content: "the first, edited")
        #expect(try look(&looks, journal) == .unknown)
        let fourth = try journal.addEntry("a fourth")
        _ = try journal.updateEntry(id: added[0].id, content: "edited while a fourth was added")
        #expect(try look(&looks, journal) == .unknown, "an addition and an edit together")
        _ = try look(&looks, journal)

        // The newest row deleted and another added: it takes the same rowid, which is not after the last look's.
        try journal.deleteEntry(id: fourth.id)
        _ = try journal.addEntry("a fifth, in the fourth's row")
        #expect(try look(&looks, journal) == .unknown)
        try journal.deleteEntry(id: added[1].id)
        #expect(try look(&looks, journal) == .unknown)
    }

    @Test("a look not committed (the index could not be brought up) is asked again: its additions stay additions")
    func uncommitted() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        var looks = SessionTableLooks()
        _ = try journal.addEntry("the first")
        _ = try look(&looks, journal)
        let added = try journal.addEntry("a second")
        #expect(try look(&looks, journal, commit: false) == .added(ids: [added.id.storageText]))
        let third = try journal.addEntry("a third")
        #expect(try look(&looks, journal) == .added(ids: [added.id.storageText, third.id.storageText]))
    }
}
