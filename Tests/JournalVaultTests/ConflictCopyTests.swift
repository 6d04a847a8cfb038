// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
@testable import JournalVault

/// Conflict copies are made from the description (`SealedTable.conflictCopy`), for any table
/// that keeps the losing text: the copy holds the loser's values under a new id, its kept field
/// starts by naming the record, its references follow the schema's ON DELETE, and its derived
/// data is made with it.
@Suite struct ConflictCopyTests {
    let vault: TemporaryVault
    init() throws { vault = try TemporaryVault() }

    private func row(_ table: SealedTable, _ id: UUID) throws -> SealedRow {
        try vault.journal.database.read { db in
            try SealedRow(table, row: try #require(try Row.fetchOne(db, sql: "SELECT \(table.selection) FROM \(table.name) WHERE id = ?",
                                                                    arguments: [id.storageText])))
        }
    }

    private func keep(_ loser: SealedRow, against winner: SealedRow?, as copyID: UUID) throws -> Bool {
        try vault.journal.write { db in
            try ConflictCopy.keep(loser, against: winner, as: copyID, why: "a test.", keys: vault.journal.keys, rows: SyncRows(db: db))
        }
    }

    @Test func anEntrysCopyKeepsItsTimesStarAndTagsAndIsFoundByTag() throws {
        let journal = vault.journal
        let entry = try journal.addEntry("Walked by the river. #walk", starred: true, tags: ["outside"])
        let loser = try row(.entry, entry.id)
        let winner = try journal.updateEntry(id: entry.id, content: "Walked by the lake. #walk")
        let copyID = UUID()
        #expect(try keep(loser, against: try row(.entry, winner.id), as: copyID))

        let copy = try journal.entry(id: copyID)
        #expect(copy.content == "Conflict copy of entry \(entry.id.storageText): a test.\n\nWalked by the river. #walk")
        #expect(copy.created == entry.created && copy.starred && copy.explicitTags == ["outside"] && copy.version == entry.version)
        var byTag = EntryQuery()
        byTag.tags = ["outside"]
        #expect(Set(try journal.entries(byTag).map(\.id)) == [entry.id, copyID], "the copy's tag index was made with it")
        let check = try journal.check()
        #expect(check.isClean, "\(check.problems)")
    }

    @Test func theSameTextMakesNoCopy() throws {
        let journal = vault.journal
        let entry = try journal.addEntry("Same words.")
        let loser = try row(.entry, entry.id)
        _ = try journal.updateEntry(id: entry.id, content: "Same words.", starred: true)
        #expect(try !keep(loser, against: try row(.entry, entry.id), as: UUID()))
        #expect(try journal.entries().count == 1)
    }

    @Test func aMessagesCopyLosesAMissingEntryButNeedsItsThread() throws {
        let journal = vault.journal
        let entry = try journal.addEntry("About this.")
        let message = try journal.addMessage(ChatMessageDraft(role: .user, content: "What about it?", entryID: entry.id))
        let loser = try row(.chatMessage, message.id)
        try journal.deleteEntry(id: entry.id)

        let copyID = UUID()
        #expect(try keep(loser, against: nil, as: copyID))
        let copy = try #require(try journal.messages(inThread: message.threadID).first { $0.id == copyID })
        #expect(copy.content == "Conflict copy of message \(message.id.storageText): a test.\n\nWhat about it?")
        #expect(copy.entryID == nil, "the entry is gone here: the copy's reference is cleared, as ON DELETE SET NULL would")
        #expect(copy.role == .user && copy.timestamp == message.timestamp)

        try journal.deleteThread(id: message.threadID)
        #expect(try !keep(loser, against: nil, as: UUID()), "without its thread a message would be deleted with it: no copy")
        let check = try journal.check()
        #expect(check.isClean, "\(check.problems)")
    }

    @Test func tablesThatMergeByLastWriterKeepNoCopy() throws {
        let thread = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Hello")).threadID
        #expect(try !keep(try row(.chatThread, thread), against: nil, as: UUID()))
    }
}
