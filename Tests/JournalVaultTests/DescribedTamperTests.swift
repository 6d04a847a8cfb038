// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

/// Tamper tests generated from the descriptions (``SealedTable``), so that a new table brings
/// its own: for every table, one record's sealed fields, bound columns and `enc_meta` altered one
/// at a time, each field swapped with the same field of another record (the careful attacker, who
/// moves authentic ciphertext instead of making some), and each derived value made not to match —
/// `check()` names the record every time, and reading it through the API fails. What is written
/// per table here is only how the API reads a record (``readers``), which a new table must add.
@Suite struct DescribedTamperTests {
    /// How the API reads a record of each table: by its id, or with the whole table where there
    /// is no reading by id.
    static let readers: [String: @Sendable (UnlockedVault, UUID) throws -> Void] = [
        "entry": { _ = try $0.entry(id: $1) },
        "analysis": { _ = try $0.analysis(id: $1) },
        "knowledge_node": { _ = try $0.node(id: $1) },
        "knowledge_relation": { journal, _ in _ = try journal.allRelations() },
        "chat_thread": { _ = try $0.thread(id: $1) },
        "chat_message": { journal, _ in _ = try journal.messages() },
        "attachment_blob": { journal, _ in _ = try journal.attachments() },
        "attachment": { _ = try $0.attachment(id: $1) },
        "measure": { journal, _ in _ = try journal.measures() },
    ]

    /// A vault with two records or more of every sealed table, and the raw edits of the rounds.
    final class Fixture {
        let vault: TemporaryVault
        var journal: UnlockedVault { vault.journal }

        init() throws {
            vault = try TemporaryVault()
            let first = try journal.addEntry("Lunch with @anna by the #sea.", at: moment(hoursAfterJan5UTC: 12, offsetHours: 1), tags: ["food"])
            let second = try journal.addEntry("Quiet evening. #home", at: moment(hoursAfterJan5UTC: 20, offsetHours: -5), starred: true)
            let me = NodeReference(type: "person", name: "me")
            try journal.addAnalysis(Analysis(entryID: first.id, model: "m", processedAt: moment(hoursAfterJan5UTC: 13, offsetHours: 1),
                                             sentiment: "warm", themes: ["sea"]),
                                    nodes: [NodeReference(type: "place", name: "Sea")],
                                    relations: [RelationDraft(from: me, to: NodeReference(type: "person", name: "Anna"), type: "meets", strength: 0.8)])
            try journal.addAnalysis(Analysis(entryID: second.id, model: "n", processedAt: moment(hoursAfterJan5UTC: 21, offsetHours: -5),
                                             sentiment: "calm", themes: ["home"]),
                                    relations: [RelationDraft(from: me, to: NodeReference(type: "place", name: "Home"), type: "rests at", strength: 0.4)])
            try journal.createThread(title: "Talk")
            try journal.addMessage(ChatMessageDraft(role: .user, content: "How was lunch?", entryID: first.id))
            try journal.addMessage(ChatMessageDraft(role: .assistant, content: "Sunny."))
            try journal.createThread(title: "Plans", entryID: second.id)
            try journal.addMessage(ChatMessageDraft(role: .user, content: "What next?"))
            for (name, entry, content) in [("ridge.jpg", first, "the view from the ridge"), ("memo.ogg", second, "a voice memo")] {
                let path = vault.folder.file(name)
                try Data(content.utf8).write(to: URL(fileURLWithPath: path))
                try journal.attach([.file(path)], to: entry.id)
            }
            try journal.updateEntry(id: first.id, settingMeasures: Measures.assignments(["mood=7", "weather=rain"]))
            try journal.updateEntry(id: second.id, settingMeasures: Measures.assignments(["mood=4", "outside=yes"]))
            // An entry without measures, whose id another entry's measures can be moved to.
            try journal.addEntry("A day without measures.", at: moment(hoursAfterJan5UTC: 30, offsetHours: 0))
            for table in SealedTable.all {
                #expect(try vault.count(table.name) >= 2, "\(table.name) needs two records for its swaps")
            }
        }

        /// The ids of two records of `table`: the one altered, and another to take values from.
        func twoRecords(of table: SealedTable) throws -> (UUID, UUID) {
            let ids = try journal.database.read { db in try String.fetchAll(db, sql: "SELECT id FROM \(table.name) ORDER BY rowid LIMIT 2") }
            return (try #require(UUID(uuidString: ids[0])), try #require(UUID(uuidString: ids[1])))
        }

        /// Alters the file with `alter` behind the vault's back, expects `check()` to name every
        /// record of `tampered` (with `detail`, where given) and the API to refuse to read it,
        /// then puts every row of `table` and of its derived tables back as it was.
        func expectReported(_ table: SealedTable, _ tampered: [UUID], detail: String? = nil, _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation, alter: (Database) throws -> Void) throws {
            let restored = [table.name] + table.derived.compactMap(\.derivedTable?.name)
            let saved = try journal.database.read { db in
                // A derived table may have no rowid: its rows go back whole.
                try restored.map { try Row.fetchAll(db, sql: "SELECT \($0 == table.name ? "rowid" : "NULL") AS saved_rowid, * FROM \($0)") }
            }
            try journal.writeBehindTheVaultsBack(alter)
            let report = try journal.check()
            for id in tampered {
                #expect(report.problems.contains { problem in problem.contains(id.storageText) && (detail.map { problem.contains($0) } ?? true) },
                        "\(table.name) \(what): \(report.problems)", sourceLocation: sourceLocation)
                if detail == nil {
                    let read = try #require(DescribedTamperTests.readers[table.name], "no reader for \(table.name)")
                    expectTampered("\(table.name) \(what)", sourceLocation: sourceLocation) { try read(journal, id) }
                }
            }
            try journal.writeBehindTheVaultsBack { db in
                for (name, rows) in zip(restored, saved) { try Self.restore(name, rows, isDerived: name != table.name, db) }
            }
        }

        /// Writes `rows` (selected with their rowid, or NULL, first) back: a sealed table's in place, so
        /// that no record refers to one deleted; a derived table's whole.
        static func restore(_ table: String, _ rows: [Row], isDerived: Bool, _ db: Database) throws {
            if isDerived { try db.execute(sql: "DELETE FROM \(table)") }
            for row in rows {
                let columns = Array(row.columnNames.dropFirst())
                let values = columns.indices.map { row[$0 + 1] as DatabaseValue }
                if isDerived {
                    try db.execute(sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                                   arguments: StatementArguments(values))
                } else {
                    try db.execute(sql: "UPDATE \(table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE rowid = ?",
                                   arguments: StatementArguments(values + [row[0] as DatabaseValue]))
                }
            }
        }
    }

    static func value(_ table: SealedTable, _ column: String, of id: UUID, _ db: Database) throws -> DatabaseValue {
        try #require(try Row.fetchOne(db, sql: "SELECT \(column) FROM \(table.name) WHERE id = ?", arguments: [id.storageText]))[0]
    }

    static func set(_ table: SealedTable, _ column: String, of id: UUID, to value: DatabaseValue, _ db: Database) throws {
        try db.execute(sql: "UPDATE \(table.name) SET \(column) = ? WHERE id = ?", arguments: [value, id.storageText])
    }

    /// Values a careful attacker would put in a bound column instead of `value`, the likeliest
    /// to pass the schema first: an integer one away; another record's text (a parent column:
    /// another parent's id), or the text with a letter added; a blind index with a byte flipped.
    static func alternatives(to value: DatabaseValue, of column: String, kind: SealedTable.BoundKind, in table: SealedTable,
                             _ db: Database) throws -> [DatabaseValue] {
        switch (kind, value.storage) {
        case (.integer, .int64(let integer)):
            return [(integer ^ 1).databaseValue]
        case (.integer, .null):
            return [jan5UTCMillis.databaseValue]
        case (.text, _):
            let parents = try table.parents.filter { $0.column == column }.flatMap { parent in
                try DatabaseValue.fetchAll(db, sql: "SELECT id FROM \(parent.tableName) ORDER BY rowid")
            }
            let others = try DatabaseValue.fetchAll(db, sql: "SELECT DISTINCT \(column) FROM \(table.name) WHERE \(column) IS NOT NULL")
            let edited = String.fromDatabaseValue(value).map { ($0 + "x").databaseValue }
            return (parents + others + [edited].compactMap { $0 }).filter { $0 != value }
        case (.hexText, .blob(let data)):
            return [data.flipping(0).databaseValue]
        default:
            Issue.record("\(table.name).\(column) holds \(value), not a \(kind) value")
            return []
        }
    }

    @Test func everyTableHasAReader() {
        #expect(Set(Self.readers.keys) == Set(SealedTable.all.map(\.name)))
    }

    /// The rounds alter what the descriptions bind: a column neither sealed, bound nor this
    /// device's own must be named here with the reason it is not bound.
    @Test func everyColumnIsSealedBoundOrKnownToBeUnbound() {
        let unbound: [String: Set<String>] = [
            "entry": ["local_day"], // held to created_at and utc_offset, which are bound
            "chat_message": ["entry_id"], // cleared when its entry is deleted (ON DELETE SET NULL)
        ]
        for table in SealedTable.all {
            let covered = Set(["id", "enc_meta"] + table.fields + table.bound.map(\.column) + table.deviceLocal.map(\.column))
            #expect(Set(table.columns).subtracting(covered) == unbound[table.name] ?? [], "\(table.name)")
        }
    }

    @Test func everySealedFieldAndEncMetaWithAByteFlippedIsReported() throws {
        let fixture = try Fixture()
        var rounds = 0
        for table in SealedTable.all {
            let (victim, _) = try fixture.twoRecords(of: table)
            for column in table.fields + ["enc_meta"] {
                try fixture.expectReported(table, [victim], "\(column) with a byte flipped") { db in
                    let blob = try #require(Data.fromDatabaseValue(try Self.value(table, column, of: victim, db)))
                    try Self.set(table, column, of: victim, to: blob.flipping(blob.count / 2).databaseValue, db)
                }
                rounds += 1
            }
        }
        #expect(rounds == SealedTable.all.reduce(0) { $0 + $1.fields.count + 1 })
        try fixture.expectClean()
    }

    @Test func everyBoundColumnChangedIsReported() throws {
        let fixture = try Fixture()
        var rounds = 0
        for table in SealedTable.all {
            let (victim, _) = try fixture.twoRecords(of: table)
            for (column, kind) in table.bound {
                try fixture.expectReported(table, [victim], "\(column) changed") { db in
                    let value = try Self.value(table, column, of: victim, db)
                    // The first alternative the schema takes (a unique index or a check may refuse one).
                    for alternative in try Self.alternatives(to: value, of: column, kind: kind, in: table, db) {
                        do {
                            try Self.set(table, column, of: victim, to: alternative, db)
                            rounds += 1
                            return
                        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                            continue
                        }
                    }
                    Issue.record("no value the schema takes for \(table.name).\(column)")
                }
            }
        }
        #expect(rounds == SealedTable.all.reduce(0) { $0 + $1.bound.count })
        try fixture.expectClean()
    }

    @Test func everyFieldSwappedWithAnotherRecordsIsReportedForBoth() throws {
        let fixture = try Fixture()
        var rounds = 0
        for table in SealedTable.all {
            let (victim, other) = try fixture.twoRecords(of: table)
            for column in table.fields + ["enc_meta"] {
                try fixture.expectReported(table, [victim, other], "\(column) swapped") { db in
                    let (mine, theirs) = (try Self.value(table, column, of: victim, db), try Self.value(table, column, of: other, db))
                    try Self.set(table, column, of: victim, to: theirs, db)
                    try Self.set(table, column, of: other, to: mine, db)
                }
                rounds += 1
            }
        }
        #expect(rounds == SealedTable.all.reduce(0) { $0 + $1.fields.count + 1 })
        try fixture.expectClean()
    }

    /// A record sealed anew with the keys, its derived data not that of its fields (a bug, or an
    /// attacker who got the keys at some time): only `check()`'s own comparison finds it.
    @Test func derivedDataThatDoesNotMatchItsRecordIsReported() throws {
        let fixture = try Fixture()
        let keys = fixture.journal.keys
        var rounds = 0
        for table in SealedTable.all {
            let (victim, _) = try fixture.twoRecords(of: table)
            for derived in table.derived {
                try fixture.expectReported(table, [victim], detail: derived.mismatch, "\(derived) not matching") { db in
                    let stored = try #require(try Row.fetchOne(db, sql: "SELECT \(table.selection), rowid FROM \(table.name) WHERE id = ?",
                                                               arguments: [victim.storageText]))
                    var row = try SealedRow(table, row: stored)
                    let plaintexts = try row.openedFields(keys: keys)
                    switch try derived.value(of: row, plaintexts: plaintexts, keys: keys) {
                    case .column(let column, let value):
                        row = row.set(column, value.flipping(0))
                        try row.seal(plaintexts, meta: try row.meta().next(keyVersion: keys.keyVersion), keys: keys)
                        try row.update(db)
                    case .rows(let indexes):
                        let index = try #require(indexes.first)
                        try derived.insert([index.flipping(0)], rowKey: stored[table.columns.count], db)
                    }
                }
                rounds += 1
            }
        }
        #expect(rounds == 4, "the tag index, the node key, the relation key and the content tag")
        try fixture.expectClean()
    }
}

extension DescribedTamperTests.Fixture {
    /// Every round put the vault back as it was.
    func expectClean(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let report = try journal.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems) \(report.notes)", sourceLocation: sourceLocation)
    }
}
