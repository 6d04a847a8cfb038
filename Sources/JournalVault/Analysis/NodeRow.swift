// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of a knowledge node (FORMAT.md §1.6): its type, when it was first named and
/// the blind index of its type and name, in plaintext; its name and metadata sealed, and bound
/// to those columns.
struct NodeRow: SealedRecordRow {
    static let sealed = SealedTable.knowledgeNode

    private(set) var row: SealedRow

    /// Seals `node` under `meta`; `key` is the blind index of its type and name (``UnlockedVault/nodeKey(_:)``).
    init(_ node: KnowledgeNode, key: Data, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: node.id, values: [
            node.id.storageText.databaseValue, node.type.databaseValue, node.created.millis.databaseValue, key.databaseValue,
            .null, .null, .null,
        ])
        try row.seal([Array(node.name.utf8), node.metadata.utf8Bytes], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try row.instant("created_at")
    }

    /// The stored blind index (nil if it is not a blob, which decrypting reports).
    var nodeKey: Data? { Data.fromDatabaseValue(row["node_key"]) }

    func decrypt(keys: VaultKeys) throws -> KnowledgeNode {
        let fields = try row.openedFields(keys: keys)
        return KnowledgeNode(id: id, type: try row.text("type"), name: try String(decrypted: fields[0], table: Self.table, id: id),
                             created: try row.instant("created_at"), metadata: try JSONValue(decrypted: fields[1], table: Self.table, id: id))
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }
}
