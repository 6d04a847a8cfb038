// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
@testable import JournalVault

/// What sync takes from the table descriptions (FORMAT.md §14.7): the records a row waits for
/// (parents), the rows parked with a record that goes (children), and the records that are the
/// same one under another id (rivals). Each is written out here as it was before the
/// descriptions gave it, so a change of a description cannot alter them unseen.
@Suite struct SyncRowsTests {
    /// A row of `table` whose every column holds its own name (`NULL` in the nullable ones when
    /// `nulls`), for the columns `parents` reads.
    static func row(_ table: SealedTable, nulls: Bool = false) -> [DatabaseValue] {
        table.schema.map { nulls && $0.nullable ? .null : $0.name.databaseValue }
    }

    static func parents(_ table: SealedTable, nulls: Bool = false) -> [String] {
        SyncRows.parents(of: table, row(table, nulls: nulls)).map { "\($0.table.name) \($0.id)" }
    }

    @Test func aRowWaitsForTheRecordsItsParentColumnsName() {
        #expect(Self.parents(.entry) == [])
        #expect(Self.parents(.analysis) == ["entry entry_id"])
        #expect(Self.parents(.knowledgeNode) == [])
        #expect(Self.parents(.knowledgeRelation) == ["knowledge_node from_node", "knowledge_node to_node", "entry entry_id"])
        #expect(Self.parents(.chatThread) == [])
        #expect(Self.parents(.chatMessage) == ["chat_thread thread_id", "entry entry_id"])
        #expect(Self.parents(.measure) == ["entry entry_id"])
        // A parent column that is NULL names nothing to wait for.
        #expect(Self.parents(.knowledgeRelation, nulls: true) == ["knowledge_node from_node", "knowledge_node to_node"])
        #expect(Self.parents(.chatMessage, nulls: true) == ["chat_thread thread_id"])
    }

    @Test func aRecordRemovedParksTheRowsOfItsChildTables() {
        func children(_ table: SealedTable) -> [String] { SyncRows.children(of: table).map { "\($0.table.name).\($0.column)" } }
        #expect(children(.entry) == ["analysis.entry_id", "knowledge_relation.entry_id", "chat_message.entry_id", "attachment.entry_id",
                                     "measure.entry_id"])
        #expect(children(.attachmentBlob) == ["attachment.blob_id"])
        #expect(children(.attachment) == [])
        #expect(children(.analysis) == [])
        #expect(children(.knowledgeNode) == ["knowledge_relation.from_node", "knowledge_relation.to_node"])
        #expect(children(.knowledgeRelation) == [])
        #expect(children(.chatThread) == ["chat_message.thread_id"])
        #expect(children(.chatMessage) == [])
    }

    @Test func rivalsAreTheSameNodeOrRelationUnderAnotherId() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let entry = try journal.addEntry("Anna and Ben.").id
        let other = UUID(storageText: "f0000000-0000-4000-8000-000000000000")!.storageText
        // One relation learnt from the entry, one from no entry (no unique index holds those
        // apart, but sync takes them as one all the same).
        let (anna, ben) = try SyncGraphCollisionTests.relate(journal, SyncGraphCollisionTests.anna, "knows", SyncGraphCollisionTests.ben,
                                                             strength: 0.5, entry: entry)
        try SyncGraphCollisionTests.relate(journal, SyncGraphCollisionTests.anna, "works with", SyncGraphCollisionTests.ben,
                                           strength: 0.5, entry: nil)
        try journal.database.read { db in
            let rows = SyncRows(db: db)
            func rivals(_ table: SealedTable, of id: String) throws -> (others: [String], itself: [String]) {
                let values = try #require(try rows.current(table, id)).values
                return (try rows.rivals(table, other, values), try rows.rivals(table, id, values))
            }
            for node in [anna, ben] {
                let found = try rivals(.knowledgeNode, of: node.storageText)
                #expect(found.others == [node.storageText], "the node of the same node_key, and not the other node")
                #expect(found.itself == [], "a record is not its own rival")
            }
            let relations = try String.fetchAll(db, sql: "SELECT id FROM knowledge_relation ORDER BY entry_id IS NULL")
            #expect(relations.count == 2)
            for relation in relations {
                let found = try rivals(.knowledgeRelation, of: relation)
                #expect(found.others == [relation], "the relation of the same from, to, relation_key and entry (or none)")
                #expect(found.itself == [])
            }
            // The tables without an identity have no rivals, even of a row just like one there.
            #expect(try rivals(.entry, of: entry.storageText).others == [])
            for table in SealedTable.all where ![.knowledgeNode, .knowledgeRelation, .attachmentBlob, .measure].contains(table) {
                #expect(table.identity.isEmpty && SyncRows.rivalsQuery(table) == nil, "\(table.name)")
            }
            // The same content stored under another id (its content tag) is the same blob; the
            // measures of one entry under another id (an earlier key's) are the same measures.
            #expect(SyncRows.rivalsQuery(.attachmentBlob) != nil)
            #expect(SyncRows.rivalsQuery(.measure) != nil)
        }
    }

    @Test func theRivalsQueryIsAnsweredByTheUniqueIndex() throws {
        let vault = try TemporaryVault()
        try vault.journal.database.read { db in
            for table in [SealedTable.knowledgeNode, .knowledgeRelation, .measure] {
                let sql = try #require(SyncRows.rivalsQuery(table))
                let arguments = StatementArguments(Array(repeating: DatabaseValue.null, count: table.identity.count + 1))
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                // One search of an index over every identity column (`IS ?` on a NOT NULL column is `=`).
                let columns = table.identity.map { "\($0)=?" }.joined(separator: " AND ")
                #expect(plan.count == 1 && plan[0].hasPrefix("SEARCH \(table.name) USING INDEX ") && plan[0].hasSuffix("(\(columns))"),
                        "\(table.name): \(plan)")
            }
        }
    }
}
