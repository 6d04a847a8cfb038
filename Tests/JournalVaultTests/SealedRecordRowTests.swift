// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import TestSupport
@testable import JournalVault

/// The typed rows built on ``SealedRow`` (``SealedRecordRow``): each seals, stores, reads back and
/// decrypts its record, refuses a column of the wrong type as tampering, and the entry row's own
/// fast path binds and stores exactly what the generic form does.
@Suite struct SealedRecordRowTests {
    let vault: TemporaryVault
    var keys: VaultKeys { vault.journal.keys }

    init() throws {
        vault = try TemporaryVault()
    }

    // MARK: The entry row's fast path and the generic form

    /// Random entries, written between 1900 and 2200 in any time zone, text in several scripts.
    static func randomEntries(count: Int, seed: UInt64) -> [Entry] {
        var generator = SeededGenerator(seed: seed)
        let words = ["Morgen", "été", "冬", "🌧", "tag", "#walk", "", "\n", "ok"]
        return (0..<count).map { _ in
            let created = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)
            let offset = Int.random(in: Instant.offsetRange, using: &generator) / 60 * 60
            return Entry(content: (0..<Int.random(in: 0...12, using: &generator)).map { _ in words.randomElement(using: &generator)! }.joined(separator: " "),
                         created: Instant(millis: created, utcOffsetSeconds: offset),
                         modifiedAt: Int64.random(in: Instant.millisRange, using: &generator), starred: Bool.random(using: &generator),
                         explicitTags: Bool.random(using: &generator) ? [] : ["a", "ß"], version: Int.random(in: 1...3, using: &generator))
        }
    }

    @Test func theEntryRowBindsAndStoresWhatTheGenericRowDoes() throws {
        for entry in Self.randomEntries(count: 60, seed: 22) {
            let meta = RecordMeta.fresh(keyVersion: keys.keyVersion)
            let fast = try EncryptedEntryRow(entry, meta: meta, keys: keys)
            let generic = fast.row
            #expect(generic.values.count == SealedTable.entry.columns.count)
            for field in SealedTable.entry.fields {
                #expect(try fast.binding(meta: meta).associatedData(field: field) == generic.binding(meta: meta).associatedData(field: field))
            }
            // Sealed by the fast path, opened by the generic one; sealed by the generic one, opened by the fast path.
            #expect(try generic.openedFields(keys: keys) == [Array(entry.content.utf8), JSONValue.strings(entry.explicitTags).utf8Bytes])
            var resealed = generic
            try resealed.seal(try generic.openedFields(keys: keys), meta: meta.next(keyVersion: keys.keyVersion), keys: keys)
            #expect(try EncryptedEntryRow(resealed).decrypt(keys: keys) == entry)
            #expect(try EncryptedEntryRow(generic).row.values == generic.values)
        }
    }

    @Test func theEntryRowStoresTheBytesTheGenericRowReads() throws {
        let entries = Self.randomEntries(count: 20, seed: 7)
        let rows = try entries.map { try EncryptedEntryRow($0, meta: .fresh(keyVersion: keys.keyVersion), keys: keys) }
        try vault.journal.write { db in
            for (index, row) in rows.enumerated() {
                if index.isMultiple(of: 2) { try row.insert(db) } else { try row.row.insert(db) }
            }
        }
        try vault.journal.database.read { db in
            for (entry, row) in zip(entries, rows) {
                let stored = try #require(try Row.fetchOne(db, sql: "SELECT \(SealedTable.entry.selection) FROM entry WHERE id = ?",
                                                           arguments: [entry.id.storageText]))
                #expect(try SealedRow(.entry, row: stored).values == row.row.values)
                #expect(try EncryptedEntryRow(row: stored).decrypt(keys: keys) == entry)
            }
        }
    }

    // MARK: Every typed row: seal, insert, fetch, decrypt

    @Test func everyTypedRowRoundTrips() throws {
        let entry = try vault.journal.addEntry("A walk by the river.", at: moment(hoursAfterJan5UTC: 8, offsetHours: 1))
        let at = moment(hoursAfterJan5UTC: 9, offsetHours: -5)
        let analysis = Analysis(entryID: entry.id, model: "toy", processedAt: at, sentiment: "calm", themes: ["river"],
                                entities: .object([("place", .string("river"))]))
        // A node's time is stored without its offset.
        let firstNamed = Instant(millis: at.millis, utcOffsetSeconds: 0)
        let river = KnowledgeNode(id: UUID(), type: "place", name: "River", created: firstNamed, metadata: .object([("k", .number(1))]))
        let anna = KnowledgeNode(id: UUID(), type: "person", name: "Anna", created: firstNamed, metadata: .null)
        let relation = KnowledgeRelation(id: UUID(), from: anna.id, to: river.id, type: "walks by", strength: 0.25, entryID: entry.id)
        let thread = ChatThread(id: UUID(), title: "March", isActive: true, created: at, updatedAt: at.millis + 5,
                                lastMessageAt: at.millis + 5, messageCount: 1, metadata: .null)
        let message = ChatMessage(id: UUID(), threadID: thread.id, role: .assistant, content: "It was calm.", timestamp: at,
                                  model: "toy", language: "en", entryID: entry.id, usage: .object([("tokens", .number(3))]))
        let measures = try Measures.assignments(["mood=7", "river=yes"])
        let meta = { RecordMeta.fresh(keyVersion: keys.keyVersion) }
        try vault.journal.write { db in
            try MeasureRow(measures, entryID: entry.id, id: UUID(), meta: meta(), keys: keys).insert(db)
            try AnalysisRow(analysis, meta: meta(), keys: keys).insert(db)
            for node in [river, anna] {
                try NodeRow(node, key: vault.journal.nodeKey(NodeReference(type: node.type, name: node.name)), meta: meta(), keys: keys).insert(db)
            }
            try RelationRow(relation, createdAt: at.millis, key: vault.journal.relationKey(relation.type), meta: meta(), keys: keys).insert(db)
            try ThreadRow(thread, meta: meta(), keys: keys).insert(db)
            try MessageRow(message, meta: meta(), keys: keys).insert(db)
        }
        let photo = vault.folder.file("river.jpg")
        try Data("river".utf8).write(to: URL(fileURLWithPath: photo))
        let attachment = try vault.journal.attach([.file(photo)], to: entry.id)[0]
        try vault.journal.database.read { db in
            #expect(try AttachmentRow.fetchOne(id: attachment.id, db)?.decryptName(keys: keys) == "river.jpg")
            #expect(try AttachmentBlobRow.fetchOne(id: attachment.blobID, db)?.decrypt(keys: keys).details.size == 5)
            #expect(try AnalysisRow.fetchOne(id: analysis.id, db)?.decrypt(keys: keys) == analysis)
            #expect(try MeasureRow.fetchAll(db, where: "entry_id = ?", arguments: [entry.id.storageText]).map { try $0.decrypt(keys: keys) } == [measures])
            #expect(try NodeRow.fetchAll(db).map { try $0.decrypt(keys: keys) }.sorted { $0.name < $1.name } == [anna, river])
            #expect(try RelationRow.fetchOne(id: relation.id, db)?.decrypt(keys: keys) == relation)
            #expect(try ThreadRow.fetch(id: thread.id, db).decrypt(keys: keys, db: db) == thread)
            #expect(try MessageRow.fetchAll(db, where: "thread_id = ?", arguments: [thread.id.storageText]).map { try $0.decrypt(keys: keys) } == [message])
            for table in SealedTable.all {
                let rows = try Row.fetchAll(db, sql: "SELECT \(table.selection) FROM \(table.name)")
                #expect(!rows.isEmpty, "\(table.name)")
                for row in rows { try table.rowType.init(SealedRow(table, row: row)).verify(keys: keys) }
            }
        }
        // The UPDATE built from the description rewrites the row in place.
        var renamed = thread
        renamed.title = "April"
        try vault.journal.write { db in try ThreadRow(renamed, meta: meta(), keys: keys).update(db) }
        #expect(try vault.journal.thread(id: thread.id).title == "April")
        #expect(try vault.count("chat_thread") == 1)
    }

    @Test func everyDescriptionNamesTheTypedRowOfItsTable() {
        for table in SealedTable.all { #expect(table.rowType.sealed == table, "\(table.name)") }
    }

    // MARK: A column of the wrong type is tampering

    /// For each table, a plaintext column set to a value of another type, and where the row is
    /// read: when it is taken from the database (a moment) or when it is decrypted.
    static let wrongTypes: [(table: String, column: String, literal: String)] = [
        ("analysis", "processed_at", "'later'"), ("analysis", "model", "x'00'"), ("analysis", "entry_id", "x'07'"),
        ("knowledge_node", "created_at", "1.5"), ("knowledge_node", "type", "x'01'"),
        ("knowledge_relation", "from_node", "x'02'"), ("knowledge_relation", "created_at", "'now'"),
        ("chat_thread", "utc_offset", "x'06'"), ("chat_thread", "last_message_at", "'soon'"), ("chat_thread", "updated_at", "x'03'"),
        ("chat_message", "thread_id", "x'08'"), ("chat_message", "timestamp", "x'04'"), ("chat_message", "entry_id", "x'05'"),
        ("entry", "version", "'one'"), ("entry", "local_day", "x'09'"), ("entry", "content", "'plain'"),
    ]

    @Test(arguments: wrongTypes)
    func aColumnOfTheWrongTypeIsTampering(table: String, column: String, literal: String) throws {
        let entry = try vault.journal.addEntry("Met Anna at the river.", at: moment(hoursAfterJan5UTC: 8, offsetHours: 1))
        try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "toy", processedAt: moment(hoursAfterJan5UTC: 9, offsetHours: 1)),
                                      relations: [RelationDraft(from: NodeReference(type: "person", name: "Anna"),
                                                                to: NodeReference(type: "place", name: "River"), type: "met at", strength: 0.5)])
        try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "How was it?", entryID: entry.id))
        let sealed = try #require(SealedTable.all.first { $0.name == table })
        // Some of the columns refer to other rows: the edit is made as someone editing the file would.
        try vault.journal.writeWithoutTransactionBehindTheVaultsBack { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE \(table) SET \(column) = \(literal) WHERE rowid = (SELECT min(rowid) FROM \(table))")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let error = #expect(throws: VaultError.self) {
            try vault.journal.database.read { db in
                let row = try #require(try Row.fetchOne(db, sql: "SELECT \(sealed.selection) FROM \(table) ORDER BY rowid LIMIT 1"))
                try sealed.rowType.init(SealedRow(sealed, row: row)).verify(keys: keys)
            }
        }
        guard case .tamperedRecord(table, _, let detail) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail == "column \(column) holds a value of the wrong type")
    }
}
