// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Decrypted records of a vault, or of a period of it: what exports render and imports produce.
///
/// ```swift
/// let snapshot = try journal.snapshot(from: .day(CivilDay(year: 2026, month: 1, day: 1)!))
/// print(snapshot.jvExport().serialized(pretty: true))
/// ```
public struct VaultSnapshot: Sendable {
    public var entries: [Entry] = []
    public var threads: [ChatThread] = []
    public var messages: [ChatMessage] = []
    public var analyses: [Analysis] = []
    public var nodes: [KnowledgeNode] = []
    public var relations: [KnowledgeRelation] = []
    /// The entries' measures, by entry id (entries without measures are not in it).
    public var measures: [UUID: Measures] = [:]
    /// Files an import brings as attachments of its entries (none in an export: the vault's
    /// attachments are read from it as the export is written).
    public var attachments: [ImportedAttachment] = []
    /// What an import's reader could not bring over from its file (nothing for an export).
    public var omissions = ImportOmissions()

    public init() {}

    /// Records of every kind, for progress and summaries.
    public var recordCount: Int {
        entries.count + threads.count + messages.count + analyses.count + nodes.count + relations.count + attachments.count + measures.count
    }
}

extension UnlockedVault {
    /// Everything, or the entries written in `from`…`to` with what belongs to them: their
    /// measures and analyses, the relations learnt from them and the nodes those relations join, and the chat
    /// messages of that period with their threads.
    public func snapshot(from: DateExpression? = nil, to: DateExpression? = nil) throws -> VaultSnapshot {
        var (snapshot, query) = try snapshotWithoutEntries(from: from, to: to)
        snapshot.entries = try entries(query)
        return snapshot
    }

    /// The snapshot of `from`…`to` but its entries, and the query that gives those: an export
    /// streams them. Which records belong to the period's entries is decided from the entries'
    /// ids, read without decrypting.
    func snapshotWithoutEntries(from: DateExpression?, to: DateExpression?) throws -> (VaultSnapshot, EntryQuery) {
        var snapshot = VaultSnapshot()
        var query = EntryQuery()
        query.from = from
        query.to = to
        snapshot.messages = try messages(from: from, to: to)
        snapshot.measures = try measures(matching: query)
        let everything = from == nil && to == nil
        let entryIDs = everything ? [] : try entryIDs(query)
        let messageThreads = Set(snapshot.messages.map(\.threadID))
        snapshot.threads = try threads().filter { everything || messageThreads.contains($0.id) }.sorted { $0.created < $1.created }
        snapshot.analyses = try analyses().filter { everything || entryIDs.contains($0.entryID) }
        snapshot.relations = try allRelations().filter { everything || $0.entryID.map(entryIDs.contains) == true }
        let nodeIDs = Set(snapshot.relations.flatMap { [$0.from, $0.to] })
        snapshot.nodes = try nodes().filter { everything || nodeIDs.contains($0.id) }.sorted { $0.created < $1.created }
        return (snapshot, query)
    }

    /// The ids of the entries `query` selects by its plaintext columns.
    private func entryIDs(_ query: EntryQuery) throws -> Set<UUID> {
        let condition = try condition(of: query)
        return try database.read { db in
            let ids = try String.fetchCursor(db, sql: "SELECT id FROM entry WHERE \(condition.sql)", arguments: condition.arguments)
            var result = Set<UUID>()
            while let id = try ids.next() { result.insert(try RecordID.parse(id, table: EncryptedEntryRow.table)) }
            return result
        }
    }
}
