// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of a knowledge relation (FORMAT.md §1.7): which nodes it joins, the entry it
/// was learnt from and when, in plaintext; what the analyser said about them — the relation's
/// type and strength — sealed in the field `relation`, and bound to those columns.
struct RelationRow: SealedRecordRow {
    static let sealed = SealedTable.knowledgeRelation

    private(set) var row: SealedRow

    /// Seals `relation` under `meta`; `key` is the blind index of its type (``UnlockedVault/relationKey(_:)``).
    init(_ relation: KnowledgeRelation, createdAt: Int64, key: Data, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: relation.id, values: [
            relation.id.storageText.databaseValue, relation.from.storageText.databaseValue, relation.to.storageText.databaseValue,
            relation.entryID?.storageText.databaseValue ?? .null, createdAt.databaseValue, key.databaseValue, .null, .null,
        ])
        let payload = JSONValue.object([("type", .string(relation.type)), ("strength", .number(relation.strength))])
        try row.seal([payload.utf8Bytes], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) {
        self.row = row
    }

    var createdAt: Int64 { Int64.fromDatabaseValue(row["created_at"]) ?? 0 }

    /// Authenticates and decrypts; a type that is not text or a strength outside 0…1 is tampering.
    func decrypt(keys: VaultKeys) throws -> KnowledgeRelation {
        let from = try row.uuid("from_node"), to = try row.uuid("to_node"), entryID = try row.optional("entry_id", row.uuid)
        var payload = JSONValue.null
        try row.open(keys: keys) { _, plaintext in payload = try JSONValue(decrypted: Array(plaintext), table: Self.table, id: row.id) }
        guard let type = payload["type"]?.stringValue, let strength = payload["strength"]?.doubleValue, (0...1).contains(strength) else {
            throw row.tampered("the sealed relation is not a type and a strength in 0…1")
        }
        return KnowledgeRelation(id: row.id, from: from, to: to, type: type, strength: strength, entryID: entryID)
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }
}
