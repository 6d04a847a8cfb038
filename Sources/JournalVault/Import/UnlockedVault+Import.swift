import Foundation
import GRDB

/// What an import did, by kind of record.
public struct ImportSummary: Sendable, Equatable {
    public var added: [String: Int] = [:]
    public var updated: [String: Int] = [:]
    public var unchanged: [String: Int] = [:]

    /// True when the import changed nothing (e.g. the same file imported again).
    public var changedNothing: Bool { added.values.allSatisfy { $0 == 0 } && updated.values.allSatisfy { $0 == 0 } }
}

extension UnlockedVault {
    /// Imports `snapshot` in one transaction: a record whose id exists is updated if it differs
    /// and left alone if not; a knowledge node whose (type, name) exists under another id is
    /// merged into it. Knowledge nodes and relations are stored under the ids this vault derives
    /// for them (FORMAT.md §1.6, §1.7), not the file's, and relations follow their nodes there.
    /// Importing the same records twice changes nothing.
    /// `progress` is told how many of the snapshot's records are done, after each one.
    @discardableResult
    public func importSnapshot(_ snapshot: VaultSnapshot, progress: ((Int, Int) -> Void)? = nil) throws -> ImportSummary {
        var summary = ImportSummary()
        var done = 0
        let total = snapshot.recordCount
        func count(_ kind: String, _ outcome: Outcome) {
            done += 1
            progress?(done, total)
            switch outcome {
            case .added: summary.added[kind, default: 0] += 1
            case .updated: summary.updated[kind, default: 0] += 1
            case .unchanged: summary.unchanged[kind, default: 0] += 1
            }
        }
        try write { db in
            // Entries new to the vault (most of a first import) are encrypted on all cores and
            // inserted in bulk; the rest, and any id the snapshot repeats, go one by one after.
            var seen = Set<UUID>()
            var new: [Entry] = []
            var known: [Entry] = []
            let exists = try db.cachedStatement(sql: "SELECT 1 FROM entry WHERE id = ?")
            for entry in snapshot.entries {
                let firstInSnapshot = seen.insert(entry.id).inserted
                if firstInSnapshot, try Int.fetchOne(exists, arguments: [entry.id.storageText]) == nil {
                    new.append(entry)
                } else {
                    known.append(entry)
                }
            }
            try insertNew(new, db) { count("entries", .added) }
            for entry in known { count("entries", try upsert(entry, db)) }
            var nodeIDs: [UUID: UUID] = [:]
            for node in snapshot.nodes {
                let (id, outcome) = try upsert(node, db)
                nodeIDs[node.id] = id
                count("nodes", outcome)
            }
            for analysis in snapshot.analyses {
                try requireEntry(analysis.entryID, db)
                count("analyses", try upsert(analysis, db))
            }
            for relation in snapshot.relations {
                // A node the file does not list is one of this vault's, named by its id here.
                count("relations", try upsertRelation(from: nodeIDs[relation.from] ?? relation.from, to: nodeIDs[relation.to] ?? relation.to,
                                                      type: relation.type, strength: relation.strength, entryID: relation.entryID,
                                                      createdAt: Instant.now().millis, db))
            }
            let messagesByThread = Dictionary(grouping: snapshot.messages, by: \.threadID)
            for thread in snapshot.threads {
                count("threads", try upsert(thread, db))
                for message in messagesByThread[thread.id] ?? [] { count("messages", try upsert(message, db)) }
            }
            for (threadID, messages) in messagesByThread where !snapshot.threads.contains(where: { $0.id == threadID }) {
                _ = try ThreadRow.fetch(id: threadID, db)
                for message in messages { count("messages", try upsert(message, db)) }
            }
        }
        return summary
    }

    private typealias Outcome = UpsertOutcome

    private func upsert(_ entry: Entry, _ db: Database) throws -> Outcome {
        let existing = try Row.fetchOne(db, sql: "SELECT \(EncryptedEntryRow.selection) FROM entry WHERE id = ?", arguments: [entry.id.storageText])
        let stored = try existing.map(EncryptedEntryRow.init(row:))
        if let stored, try stored.decrypt(keys: keys) == entry { return .unchanged }
        try store(entry, replacing: stored, db)
        return stored == nil ? .added : .updated
    }

    /// A node is the one of its (type, name), under the id derived from them; returns that id.
    /// The file's node is written over the stored one when the file gave it that same id (it
    /// came from this vault, or another device of it), and differs; from anywhere else — another
    /// vault, or before ids were derived — the stored node stands for it.
    private func upsert(_ node: KnowledgeNode, _ db: Database) throws -> (UUID, Outcome) {
        let key = nodeKey(NodeReference(type: node.type, name: node.name))
        let id = KnowledgeNode.derivedID(nodeKey: key)
        if let existing = try Row.fetchOne(db, sql: "SELECT \(NodeRow.selection) FROM knowledge_node WHERE node_key = ?", arguments: [key]) {
            let stored = try NodeRow(row: existing)
            guard node.id == stored.id, try stored.decrypt(keys: keys) != node else { return (stored.id, .unchanged) }
            try NodeRow(node, key: key, meta: .rewriting(stored.encMeta, keyVersion: keys.keyVersion), keys: keys).update(db)
            return (stored.id, .updated)
        }
        let derived = KnowledgeNode(id: id, type: node.type, name: node.name, created: node.created, metadata: node.metadata)
        try NodeRow(derived, key: key, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
        return (id, .added)
    }

    private func upsert(_ analysis: Analysis, _ db: Database) throws -> Outcome {
        try replaceWhole(analysis, as: AnalysisRow.self, db)
    }

    private func upsert(_ thread: ChatThread, _ db: Database) throws -> Outcome {
        var thread = thread
        if let existing = try Row.fetchOne(db, sql: "SELECT \(ThreadRow.selection) FROM chat_thread WHERE id = ?", arguments: [thread.id.storageText]) {
            let stored = try ThreadRow(row: existing)
            var current = try stored.decrypt(keys: keys, db: db)
            current.messageCount = 0
            thread.messageCount = 0
            if current == thread { return .unchanged }
            if thread.isActive { try db.execute(sql: "UPDATE chat_thread SET is_active = 0 WHERE is_active = 1 AND id <> ?", arguments: [thread.id.storageText]) }
            try ThreadRow(thread, meta: .rewriting(stored.encMeta, keyVersion: keys.keyVersion), keys: keys).update(db)
            return .updated
        }
        if thread.isActive { try db.execute(sql: "UPDATE chat_thread SET is_active = 0 WHERE is_active = 1") }
        try ThreadRow(thread, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
        return .added
    }

    private func upsert(_ message: ChatMessage, _ db: Database) throws -> Outcome {
        if let entryID = message.entryID { try requireEntry(entryID, db) }
        return try replaceWhole(message, as: MessageRow.self, db)
    }

    /// A record stored as one row and rewritten whole (analyses, messages): left alone if it
    /// decrypts to the same, else written again under the next revision of its metadata.
    private func replaceWhole<Stored: WholeRecordRow>(_ record: Stored.Record, as _: Stored.Type, _ db: Database) throws -> Outcome {
        let id = record.id.storageText
        let existing = try Row.fetchOne(db, sql: "SELECT \(Stored.selection) FROM \(Stored.table) WHERE id = ?", arguments: [id])
            .map(Stored.init(row:))
        if let existing {
            if try existing.decrypt(keys: keys) == record { return .unchanged }
            try db.execute(sql: "DELETE FROM \(Stored.table) WHERE id = ?", arguments: [id])
        }
        try Stored(record, meta: .rewriting(existing?.encMeta, keyVersion: keys.keyVersion), keys: keys).insert(db)
        return existing == nil ? .added : .updated
    }
}

/// What writing a record that may already be stored did.
enum UpsertOutcome { case added, updated, unchanged }

/// The stored form of a record that import replaces whole.
private protocol WholeRecordRow {
    associatedtype Record: Equatable & Identifiable<UUID>
    static var table: String { get }
    static var selection: String { get }
    var encMeta: Data { get }
    init(row: Row) throws
    init(_ record: Record, meta: RecordMeta, keys: VaultKeys) throws
    func decrypt(keys: VaultKeys) throws -> Record
    func insert(_ db: Database) throws
}

extension AnalysisRow: WholeRecordRow {}
extension MessageRow: WholeRecordRow {}
