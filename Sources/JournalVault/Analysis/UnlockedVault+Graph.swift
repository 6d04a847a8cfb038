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

    /// The relations learnt from the entries written on `days` (the entries' local days), oldest first.
    func relations(learntFromEntriesOn days: ClosedRange<CivilDay>) throws -> [KnowledgeRelation] {
        try relations(where: "entry_id IN (SELECT id FROM entry WHERE local_day BETWEEN ? AND ?)",
                      arguments: [days.lowerBound.description, days.upperBound.description])
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
        guard let existing = try storedRelation(like: relation, key: key, db) else {
            try RelationRow(relation, createdAt: createdAt, key: key, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
            return .added
        }
        return try revise(existing, as: existing.decrypt(keys: keys), type: relation.type, strength: relation.strength, key: key, db)
            ? .updated : .unchanged
    }

    /// The stored relation that is `relation`: the one under its id, or the one with its nodes,
    /// entry and type's blind index `key` (a relation made before a rekey keeps the id derived
    /// under the key of its time: FORMAT.md §1.6).
    private func storedRelation(like relation: KnowledgeRelation, key: Data, _ db: Database) throws -> RelationRow? {
        try RelationRow.fetchAll(db, where: "id = ? OR (from_node = ? AND to_node = ? AND relation_key = ? AND entry_id IS ?)",
                                 arguments: [relation.id.storageText, relation.from.storageText, relation.to.storageText,
                                             key, relation.entryID?.storageText],
                                 orderedBy: "created_at, id").first
    }

    /// Seals `existing` (opened as `opened`) again with `type` and `strength`, as its next
    /// revision, unless it has them already; returns whether it changed.
    private func revise(_ existing: RelationRow, as opened: KnowledgeRelation, type: String, strength: Double, key: Data,
                        _ db: Database) throws -> Bool {
        guard opened.strength != strength || opened.type != type else { return false }
        var revised = opened
        revised.strength = strength
        revised.type = type
        try RelationRow(revised, createdAt: existing.createdAt, key: key,
                        meta: .rewriting(existing.encMeta, keyVersion: keys.keyVersion), keys: keys).update(db)
        return true
    }

    /// Merges the node `removed` into the node `kept`, in one transaction: each relation of
    /// `removed` is moved to `kept` (sealed again under the id derived from its new nodes,
    /// FORMAT.md §1.7), unless `kept` already has that relation — same type, other node and
    /// entry —, which then keeps the stronger strength, or it joins the two nodes, which would
    /// join `kept` to itself and is deleted; then `removed` is deleted. `kept` itself is left as
    /// it is. The row-set manifest and sync see every row rewritten or deleted, as for any write.
    ///
    /// An analysis that names the removed node's type and name again makes that node anew.
    ///
    /// ```swift
    /// let ben = try journal.resolveNode("Ben"), benny = try journal.resolveNode("Benny")
    /// let merge = try journal.mergeNode(benny.id, into: ben.id)   // Benny's relations are Ben's now
    /// ```
    public func mergeNode(_ removed: UUID, into kept: UUID) throws -> NodeMerge {
        try write { db in
            let keptNode = try fetchNode(id: kept, db)
            _ = try fetchNode(id: removed, db)
            guard removed != kept else { throw VaultError.invalidGraph("a node cannot be merged into itself") }
            var moved = 0, collapsed = 0, dropped = 0
            let rows = try RelationRow.fetchAll(db, where: "from_node = ?1 OR to_node = ?1", arguments: [removed.storageText],
                                                orderedBy: "created_at, id")
            for stored in rows {
                let relation = try stored.decrypt(keys: keys)
                let movedRow = try stored.row.withDerivedGraphID(nodeIDs: [removed: kept])
                let target = KnowledgeRelation(id: movedRow.id, from: try movedRow.uuid("from_node"), to: try movedRow.uuid("to_node"),
                                               type: relation.type, strength: relation.strength, entryID: relation.entryID)
                if target.from == target.to && relation.from != relation.to {
                    try deleteRelation(stored, db)
                    dropped += 1
                    continue
                }
                let key = relationKey(relation.type)
                if let existing = try storedRelation(like: target, key: key, db) {
                    let opened = try existing.decrypt(keys: keys)
                    _ = try revise(existing, as: opened, type: opened.type, strength: max(opened.strength, relation.strength), key: key, db)
                    try deleteRelation(stored, db)
                    collapsed += 1
                    continue
                }
                try rewrite(stored.row, as: movedRow, db)
                moved += 1
            }
            try db.execute(sql: "DELETE FROM knowledge_node WHERE id = ?", arguments: [removed.storageText])
            return NodeMerge(kept: keptNode, removedID: removed, relationsMoved: moved, relationsCollapsed: collapsed, relationsDropped: dropped)
        }
    }

    /// Deletes a node and every relation from or to it, in one transaction; returns how many
    /// relations went with it. The analyses that named it stay (as ``deleteAnalysis(id:)``
    /// leaves the graph); analysing an entry that names it again makes it anew.
    ///
    /// ```swift
    /// let relations = try journal.deleteNode(id: journal.resolveNode("Mondays").id)
    /// ```
    @discardableResult
    public func deleteNode(id: UUID) throws -> Int {
        try write { db in
            let relations = try Int.fetchOne(db, sql: "SELECT count(*) FROM knowledge_relation WHERE from_node = ?1 OR to_node = ?1",
                                             arguments: [id.storageText]) ?? 0
            // Its relations go by the foreign keys' cascade, which the manifest's and sync's triggers see.
            try db.execute(sql: "DELETE FROM knowledge_node WHERE id = ?", arguments: [id.storageText])
            guard db.changesCount == 1 else { throw VaultError.notFound(kind: "node", id: id.storageText) }
            return relations
        }
    }

    private func deleteRelation(_ stored: RelationRow, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM knowledge_relation WHERE id = ?", arguments: [stored.id.storageText])
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
