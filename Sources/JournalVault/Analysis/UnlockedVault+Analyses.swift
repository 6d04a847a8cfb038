// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// Stores an analysis of an entry together with the nodes and relations it names, in one
    /// transaction: all of it or nothing. Nodes are found or created per (type, name).
    /// `replacingEarlier` deletes, in the same transaction, the entry's other analyses by the
    /// same model (their nodes and relations stay, as ``deleteAnalysis(id:)`` leaves them; the
    /// relations the new one names are updated in place).
    ///
    /// ```swift
    /// try journal.addAnalysis(Analysis(entryID: id, model: "llama3", processedAt: .now(), sentiment: "calm"),
    ///                         replacingEarlier: true)
    /// ```
    @discardableResult
    public func addAnalysis(_ analysis: Analysis, nodes: [NodeReference] = [], relations: [RelationDraft] = [],
                            replacingEarlier: Bool = false) throws -> Analysis {
        let row = try AnalysisRow(analysis, meta: .fresh(keyVersion: keys.keyVersion), keys: keys)
        try Self.validate(nodes: nodes, relations: relations)
        try write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM entry WHERE id = ?", arguments: [analysis.entryID.storageText]) != nil else {
                throw VaultError.notFound(kind: "entry", id: analysis.entryID.storageText)
            }
            if replacingEarlier {
                try db.execute(sql: "DELETE FROM analysis WHERE entry_id = ? AND model = ? AND id != ?",
                               arguments: [analysis.entryID.storageText, analysis.model, analysis.id.storageText])
            }
            try row.insert(db)
            for node in nodes { _ = try findOrCreateNode(node, db) }
            for relation in relations {
                let from = try findOrCreateNode(relation.from, db)
                let to = try findOrCreateNode(relation.to, db)
                _ = try upsertRelation(from: from, to: to, type: relation.type, strength: relation.strength, entryID: analysis.entryID,
                                       createdAt: analysis.processedAt.millis, db)
            }
        }
        return analysis
    }

    /// The analysis `text` names (full id or a unique prefix of 4+ characters).
    public func resolveAnalysisID(_ text: String) throws -> UUID {
        try database.read { db in try RecordID.resolve(text, table: AnalysisRow.table, kind: "analysis", db: db) }
    }

    public func analysis(id: UUID) throws -> Analysis {
        try database.read { db in
            guard let row = try AnalysisRow.fetchOne(id: id, db) else { throw VaultError.notFound(kind: "analysis", id: id.storageText) }
            return try row.decrypt(keys: keys)
        }
    }

    /// Analyses matching `query`, oldest first by processing time.
    public func analyses(_ query: AnalysisQuery = AnalysisQuery()) throws -> [Analysis] {
        var clauses: [String] = []
        var arguments = StatementArguments()
        if let entryID = query.entryID {
            clauses.append("entry_id = ?")
            _ = arguments.append(contentsOf: [entryID.storageText])
        }
        if let model = query.model {
            clauses.append("model = ?")
            _ = arguments.append(contentsOf: [model])
        }
        let bounds = TimeBounds(from: query.from, to: query.to)
        clauses += bounds.clauses(millisColumn: "processed_at", localDay: TimeBounds.localDay(millisColumn: "processed_at", offsetColumn: "utc_offset"))
        arguments += bounds.arguments
        if query.entryFrom != nil || query.entryTo != nil {
            let entryBounds = TimeBounds(from: query.entryFrom, to: query.entryTo)
            clauses.append("entry_id IN (SELECT id FROM entry WHERE "
                           + entryBounds.clauses(millisColumn: "created_at", localDay: "local_day").joined(separator: " AND ") + ")")
            arguments += entryBounds.arguments
        }
        return try database.read { db in
            try AnalysisRow.fetchAll(db, where: clauses.isEmpty ? "1" : clauses.joined(separator: " AND "), arguments: arguments,
                                     orderedBy: "processed_at, id").map { try $0.decrypt(keys: keys) }
        }
    }

    /// Deletes one analysis (its nodes and relations stay: they may come from other analyses).
    public func deleteAnalysis(id: UUID) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM analysis WHERE id = ?", arguments: [id.storageText])
            guard db.changesCount == 1 else { throw VaultError.notFound(kind: "analysis", id: id.storageText) }
        }
    }

    private static func validate(nodes: [NodeReference], relations: [RelationDraft]) throws {
        for node in nodes + relations.flatMap({ [$0.from, $0.to] }) {
            guard KnowledgeNode.normalizedType(node.type) != nil else { throw VaultError.invalidGraph("node type '\(node.type)' is not one word") }
            guard !node.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw VaultError.invalidGraph("a node has an empty name") }
        }
        for relation in relations {
            guard (0...1).contains(relation.strength) else { throw VaultError.invalidGraph("relation strength \(relation.strength) is outside 0…1") }
            guard !relation.type.trimmingCharacters(in: .whitespaces).isEmpty else { throw VaultError.invalidGraph("a relation has an empty type") }
        }
    }
}
