// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of a knowledge relation (FORMAT.md §1.7): which nodes it joins, the entry it
/// was learnt from and when, in plaintext; what the analyser said about them — the relation's
/// type and strength — sealed in the field `relation`, and bound to those columns.
struct RelationRow {
    static let table = SealedTable.knowledgeRelation
    static let field = "relation"

    private(set) var row: SealedRow

    /// Seals `relation` under `meta`; `key` is the blind index of its type (``UnlockedVault/relationKey(_:)``).
    init(_ relation: KnowledgeRelation, createdAt: Int64, key: Data, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.table, id: relation.id, values: [
            relation.id.storageText.databaseValue, relation.from.storageText.databaseValue, relation.to.storageText.databaseValue,
            relation.entryID?.storageText.databaseValue ?? .null, createdAt.databaseValue, key.databaseValue, .null, .null,
        ])
        let payload = JSONValue.object([("type", .string(relation.type)), ("strength", .number(relation.strength))])
        try row.seal([payload.utf8Bytes], meta: meta, keys: keys)
    }

    init(row: Row) throws {
        self.row = try SealedRow(Self.table, row: row)
    }

    static func fetchAll(_ db: Database, where condition: String = "1", arguments: StatementArguments = []) throws -> [RelationRow] {
        let rows = try Row.fetchCursor(db, sql: "SELECT \(table.selection) FROM \(table.name) WHERE \(condition) ORDER BY created_at, id",
                                       arguments: arguments)
        var result: [RelationRow] = []
        while let row = try rows.next() { result.append(try RelationRow(row: row)) }
        return result
    }

    var createdAt: Int64 { Int64.fromDatabaseValue(row["created_at"]) ?? 0 }
    var encMeta: Data? { row.encMeta }

    /// Authenticates and decrypts; a type that is not text or a strength outside 0…1 is tampering.
    func decrypt(keys: VaultKeys) throws -> KnowledgeRelation {
        guard let fromText = String.fromDatabaseValue(row["from_node"]), let toText = String.fromDatabaseValue(row["to_node"]) else {
            throw row.tampered("a node id is not text")
        }
        let entryText = row["entry_id"].isNull ? nil : String.fromDatabaseValue(row["entry_id"])
        var payload = JSONValue.null
        try row.open(keys: keys) { _, plaintext in payload = try JSONValue(decrypted: Array(plaintext), table: Self.table.name, id: row.id) }
        guard let type = payload["type"]?.stringValue, let strength = payload["strength"]?.doubleValue, (0...1).contains(strength) else {
            throw row.tampered("the sealed relation is not a type and a strength in 0…1")
        }
        return KnowledgeRelation(id: row.id, from: try RecordID.parse(fromText, table: Self.table.name),
                                 to: try RecordID.parse(toText, table: Self.table.name), type: type, strength: strength,
                                 entryID: try RecordID.parse(optional: entryText, table: Self.table.name))
    }

    func insert(_ db: Database) throws { try row.insert(db) }
    func update(_ db: Database) throws { try row.update(db) }
}

extension SealedRow {
    /// A row about to be written: `values` in `table.columns` order (fields and enc_meta filled by ``seal(_:meta:keys:)``).
    init(_ table: SealedTable, id: UUID, values: [DatabaseValue]) {
        precondition(values.count == table.columns.count)
        self.table = table
        self.id = id
        self.values = values
    }
}
