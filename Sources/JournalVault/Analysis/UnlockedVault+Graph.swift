// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// Nodes of the graph, optionally of one type, oldest first.
    public func nodes(type: String? = nil) throws -> [KnowledgeNode] {
        try database.read { db in
            try NodeRow.fetchAll(db, where: type == nil ? "1" : "type = ?",
                                 arguments: StatementArguments(type.map { [KnowledgeNode.normalizedType($0) ?? $0] } ?? []),
                                 orderedBy: "type, created_at, id").map { try $0.decrypt(keys: keys) }
        }
    }

    /// The node `text` names: an id or unique id prefix, else a node name (any type, any case).
    public func resolveNode(_ text: String) throws -> KnowledgeNode {
        try database.read { db in
            if let id = try? RecordID.resolve(text, table: NodeRow.table, kind: "node", db: db) {
                return try fetchNode(id: id, db)
            }
            let types = try String.fetchAll(db, sql: "SELECT DISTINCT type FROM knowledge_node")
            let keys = types.map { nodeKey(NodeReference(type: $0, name: text)) }
            let matches = try keys.flatMap { key in try NodeRow.fetchAll(db, where: "node_key = ?", arguments: [key]) }
            guard let row = matches.first else { throw VaultError.notFound(kind: "node", id: text) }
            guard matches.count == 1 else { throw VaultError.ambiguousID(prefix: text, matches: matches.count) }
            return try row.decrypt(keys: self.keys)
        }
    }

    /// Relations from or to `node`.
    public func relations(of node: UUID) throws -> [KnowledgeRelation] {
        try relations(where: "from_node = ?1 OR to_node = ?1", arguments: [node.storageText])
    }

    /// Every relation, oldest first.
    public func allRelations() throws -> [KnowledgeRelation] {
        try relations(where: "1", arguments: [])
    }

    /// Sealed relations, and — in a vault not yet upgraded to the manifest (FORMAT.md §11.4) —
    /// the relations written before relations were sealed.
    private func relations(where condition: String, arguments: StatementArguments) throws -> [KnowledgeRelation] {
        try database.read { db in
            var result = try RelationRow.fetchAll(db, where: condition, arguments: arguments, orderedBy: "created_at, id")
                .map { try $0.decrypt(keys: keys) }
            if try !Manifest.isStored(db) {
                result += try Row.fetchAll(db, sql: """
                    SELECT id, from_node, to_node, type, strength, entry_id FROM legacy_relation WHERE \(condition) ORDER BY created_at, id
                    """, arguments: arguments).map(Self.legacyRelation)
            }
            return result
        }
    }

    /// Stores the relation of `type` from one node to another learnt from `entryID`, under the id
    /// derived from them (FORMAT.md §1.7), or changes the strength of the one stored (matched by
    /// that id, or by its nodes, entry and the type's blind index).
    func upsertRelation(from: UUID, to: UUID, type: String, strength: Double, entryID: UUID?, createdAt: Int64,
                        _ db: Database) throws -> UpsertOutcome {
        let key = relationKey(type)
        let relation = KnowledgeRelation(id: KnowledgeRelation.derivedID(from: from, to: to, relationKey: key, entryID: entryID),
                                         from: from, to: to, type: type, strength: strength, entryID: entryID)
        let existing = try RelationRow.fetchAll(db, where: "id = ? OR (from_node = ? AND to_node = ? AND relation_key = ? AND entry_id IS ?)",
                                                arguments: [relation.id.storageText, relation.from.storageText, relation.to.storageText,
                                                            key, relation.entryID?.storageText],
                                                orderedBy: "created_at, id").first
        guard let existing else {
            try RelationRow(relation, createdAt: createdAt, key: key, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
            return .added
        }
        var stored = try existing.decrypt(keys: keys)
        guard stored.strength != relation.strength || stored.type != relation.type else { return .unchanged }
        stored.strength = relation.strength
        stored.type = relation.type
        try RelationRow(stored, createdAt: existing.createdAt, key: key,
                        meta: .rewriting(existing.encMeta, keyVersion: keys.keyVersion), keys: keys).update(db)
        return .updated
    }

    /// The blind index of a relation type: FORMAT.md §5 with domain `relation`.
    func relationKey(_ type: String) -> Data {
        Self.relationKey(type, keys: keys)
    }

    static func relationKey(_ type: String, keys: VaultKeys) -> Data {
        Data(keys.blindIndex.value(domain: "relation", parts: [type]))
    }

    public func node(id: UUID) throws -> KnowledgeNode {
        try database.read { db in try fetchNode(id: id, db) }
    }

    func fetchNode(id: UUID, _ db: Database) throws -> KnowledgeNode {
        guard let row = try NodeRow.fetchOne(id: id, db) else { throw VaultError.notFound(kind: "node", id: id.storageText) }
        return try row.decrypt(keys: keys)
    }

    /// The id of the node for `reference`, created (with this spelling of the name, under the id
    /// derived from its name index: FORMAT.md §1.6) if new.
    func findOrCreateNode(_ reference: NodeReference, _ db: Database) throws -> UUID {
        guard let type = KnowledgeNode.normalizedType(reference.type) else {
            throw VaultError.invalidGraph("node type '\(reference.type)' is not one word")
        }
        let key = nodeKey(reference)
        if let existing = try String.fetchOne(db, sql: "SELECT id FROM knowledge_node WHERE node_key = ?", arguments: [key]) {
            return try RecordID.parse(existing, table: NodeRow.table)
        }
        let node = KnowledgeNode(id: KnowledgeNode.derivedID(nodeKey: key), type: type,
                                 name: reference.name.trimmingCharacters(in: .whitespacesAndNewlines), created: .now(), metadata: .null)
        try NodeRow(node, key: key, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
        return node.id
    }

    /// The blind index of a (type, name): FORMAT.md §5 with domain `node`.
    func nodeKey(_ reference: NodeReference) -> Data {
        Self.nodeKey(reference, keys: keys)
    }

    static func nodeKey(_ reference: NodeReference, keys: VaultKeys) -> Data {
        nodeKey(storedType: KnowledgeNode.normalizedType(reference.type) ?? reference.type, name: reference.name, keys: keys)
    }

    /// The blind index of a node as stored: its `type` column as it is (a node kept from before
    /// the type vocabulary has a type outside it).
    static func nodeKey(storedType: String, name: String, keys: VaultKeys) -> Data {
        Data(keys.blindIndex.value(domain: "node", parts: [storedType, KnowledgeNode.comparableName(name)]))
    }

    /// A row of `legacy_relation` (schema 4 and before: plaintext type and strength).
    static func legacyRelation(_ row: Row) throws -> KnowledgeRelation {
        let table = "legacy_relation"
        return KnowledgeRelation(id: try RecordID.parse(try row.stored(0, table: table), table: table), from: try RecordID.parse(try row.stored(1, table: table), table: table),
                                 to: try RecordID.parse(try row.stored(2, table: table), table: table), type: try row.stored(3, table: table), strength: try row.stored(4, table: table),
                                 entryID: try RecordID.parse(optional: try row.stored(5, table: table), table: table))
    }
}
