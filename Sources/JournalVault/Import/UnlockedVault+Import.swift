// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// What an import did, by kind of record.
public struct ImportSummary: Sendable, Equatable {
    public var added: [String: Int] = [:]
    public var updated: [String: Int] = [:]
    public var unchanged: [String: Int] = [:]
    /// Records whose stored version was kept and the file's text kept beside it as a conflict
    /// copy: the two cannot be ordered (an entry changed at the same moment, a chat message).
    public var conflictCopies: [String: Int] = [:]
    /// Records whose stored version was kept because it is newer than the file's, or (kinds that
    /// get no conflict copies) as new; or whose file version differs in no text.
    public var skipped: [String: Int] = [:]

    /// True when the import changed nothing (e.g. the same file imported again).
    public var changedNothing: Bool {
        [added, updated, conflictCopies].allSatisfy { $0.values.allSatisfy { $0 == 0 } }
    }
}

extension UnlockedVault {
    /// Imports `snapshot` in one transaction. A record whose id is not stored is added; one
    /// whose id is stored is left alone if it is the same, and otherwise replaces the stored
    /// version only if it is newer (an entry's `modifiedAt`, a thread's `updatedAt`, an
    /// analysis's `processedAt`; a chat message is never changed, so no version of it is
    /// newer): an import never reverts a later change. A version that is older is skipped; one
    /// that cannot be ordered (an entry changed at the same moment, a chat message) with another
    /// text is kept as a conflict copy beside the stored record, as sync keeps concurrent edits,
    /// under an id derived from the record and the text, so importing it again adds nothing.
    /// With `overwrite`, a file's version that differs replaces the stored one whatever its age.
    ///
    /// An entry's measures are added where it has none, and replace its stored ones when its own
    /// version in the file replaced the stored entry (or with `overwrite`); otherwise they are skipped.
    /// A knowledge node whose (type, name) exists under another id is merged into it.
    /// Knowledge nodes and relations are stored under the ids this vault derives for them
    /// (FORMAT.md §1.6, §1.7), not the file's, and relations follow their nodes there.
    /// Importing the same records twice changes nothing.
    /// An attachment is added to its entry under its id in the file, or one derived from where
    /// the file lists it (Day One), unless one of that id is there; its file is read a chunk at
    /// a time, in the same transaction, and one over `attachmentLimit` bytes, unreadable or of
    /// another size than the file says stops the import.
    /// `progress` is told how many of the snapshot's records are done, after each one.
    @discardableResult
    public func importSnapshot(_ snapshot: VaultSnapshot, overwrite: Bool = false, attachmentLimit: Int64 = defaultAttachmentLimit,
                               progress: ((Int, Int) -> Void)? = nil) throws -> ImportSummary {
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
            case .conflictCopy: summary.conflictCopies[kind, default: 0] += 1
            case .skipped: summary.skipped[kind, default: 0] += 1
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
            // The file's measures of an entry it added or brought a newer version of replace
            // the stored ones; of any other entry they are added only where it has none.
            var replaced = Set(new.map(\.id))
            for entry in known {
                let outcome = try upsert(entry, overwrite: overwrite, db)
                if outcome == .updated { replaced.insert(entry.id) }
                count("entries", outcome)
            }
            for (entryID, measures) in snapshot.measures.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                try requireEntry(entryID, db)
                count("measures", try upsert(measures, of: entryID, replacing: overwrite || replaced.contains(entryID), db))
            }
            for attachment in snapshot.attachments { count("attachments", try store(attachment, limit: attachmentLimit, db)) }
            var nodeIDs: [UUID: UUID] = [:]
            for node in snapshot.nodes {
                let (id, outcome) = try upsert(node, db)
                nodeIDs[node.id] = id
                count("nodes", outcome)
            }
            for analysis in snapshot.analyses {
                try requireEntry(analysis.entryID, db)
                count("analyses", try upsert(analysis, overwrite: overwrite, db))
            }
            for relation in snapshot.relations {
                // A node the file does not list is one of this vault's, named by its id here.
                count("relations", try upsertRelation(from: nodeIDs[relation.from] ?? relation.from, to: nodeIDs[relation.to] ?? relation.to,
                                                      type: relation.type, strength: relation.strength, entryID: relation.entryID,
                                                      createdAt: Instant.now().millis, db))
            }
            let messagesByThread = Dictionary(grouping: snapshot.messages, by: \.threadID)
            for thread in snapshot.threads {
                count("threads", try upsert(thread, overwrite: overwrite, db))
                for message in messagesByThread[thread.id] ?? [] { count("messages", try upsert(message, overwrite: overwrite, db)) }
            }
            for (threadID, messages) in messagesByThread where !snapshot.threads.contains(where: { $0.id == threadID }) {
                _ = try ThreadRow.fetch(id: threadID, db)
                for message in messages { count("messages", try upsert(message, overwrite: overwrite, db)) }
            }
        }
        return summary
    }

    private typealias Outcome = UpsertOutcome

    private func upsert(_ entry: Entry, overwrite: Bool, _ db: Database) throws -> Outcome {
        let existing = try Row.fetchOne(db, sql: "SELECT \(EncryptedEntryRow.selection) FROM entry WHERE id = ?", arguments: [entry.id.storageText])
        guard let stored = try existing.map(EncryptedEntryRow.init(row:)) else {
            try store(entry, replacing: nil, db)
            return .added
        }
        let current = try stored.decrypt(keys: keys)
        if current == entry { return .unchanged }
        if overwrite || entry.modifiedAt > current.modifiedAt {
            try store(entry, replacing: stored, db)
            return .updated
        }
        // Older: the stored text is a later change of it. The same moment with the same text:
        // only a star or tags differ, and nothing of the text would be lost.
        guard entry.modifiedAt == current.modifiedAt, entry.content != current.content else { return .skipped }
        return try keepImportedCopy(of: entry.id, in: .entry, text: entry.content, db) { copyID in
            try keepCopy(of: EncryptedEntryRow(entry, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).row, as: copyID,
                         why: "an imported file held this other text, changed at the same moment as the entry's.", db)
        }
    }

    /// The file's measures of an entry: added where it has none, else written over the stored
    /// ones only when `replacing` (its entry's version in the file won).
    private func upsert(_ measures: Measures, of entryID: UUID, replacing: Bool, _ db: Database) throws -> Outcome {
        let stored = try storedMeasures(of: entryID, db)
        guard let stored else {
            try storeMeasures(measures, of: entryID, replacing: nil, db)
            return .added
        }
        if try stored.decrypt(keys: keys) == measures { return .unchanged }
        guard replacing else { return .skipped }
        try storeMeasures(measures, of: entryID, replacing: stored, db)
        return .updated
    }

    /// Stores a file's attachment unless its id is taken; an attachment is never changed, so one
    /// of that id is the same.
    private func store(_ imported: ImportedAttachment, limit: Int64, _ db: Database) throws -> Outcome {
        let id = imported.id ?? Self.importedAttachmentID(entryID: imported.entryID, origin: imported.origin, syncKey: keys.syncKey)
        if try Int.fetchOne(db, sql: "SELECT 1 FROM attachment WHERE id = ?", arguments: [id.storageText]) != nil { return .unchanged }
        try requireEntry(imported.entryID, db)
        let source = try AttachmentInput.file(imported.path, name: imported.name, media: imported.media).opened(limit: limit)
        let stored = try storeAttachment(source, entryID: imported.entryID, id: id, limit: limit, db)
        if let expected = imported.expectedSize, stored.size != expected {
            throw ImportError(reason: "the file \(imported.path) holds \(stored.size) bytes, not the \(expected) the export lists (it was changed or cut short)")
        }
        return .added
    }

    /// ``ConflictCopy/id(domain:table:id:syncKey:version:)`` of `"JVLT-import-attachment"`, the
    /// entry and where the file lists the attachment (FORMAT.md §9): the same on every device.
    static func importedAttachmentID(entryID: UUID, origin: String, syncKey: SecureBytes) -> UUID {
        ConflictCopy.id(domain: "JVLT-import-attachment", table: .attachment, id: entryID, syncKey: syncKey) { $0.raw(origin.utf8) }
    }

    /// Keeps a file's `text` of the record `id` of `table` as a conflict copy, made by `store`,
    /// under an id derived from both, so the same file imported again, here or on another
    /// device of the vault, makes no second copy.
    private func keepImportedCopy(of id: UUID, in table: SealedTable, text: String, _ db: Database,
                                  store: (UUID) throws -> Void) throws -> Outcome {
        let copyID = Self.importConflictCopyID(of: id, in: table, text: text, syncKey: keys.syncKey)
        if try Int.fetchOne(db, sql: "SELECT 1 FROM \(table.name) WHERE id = ?", arguments: [copyID.storageText]) != nil { return .unchanged }
        try store(copyID)
        return .conflictCopy
    }

    /// Stores the file's version `record`, sealed as it would be stored, as the conflict copy `copyID`.
    private func keepCopy(of record: SealedRow, as copyID: UUID, why: String, _ db: Database) throws {
        _ = try ConflictCopy.keep(record, against: nil, as: copyID, why: why, keys: keys, rows: SyncRows(db: db))
    }

    /// ``ConflictCopy/id(domain:table:id:syncKey:version:)`` of `"JVLT-import-conflict"` and
    /// the text (FORMAT.md §9).
    static func importConflictCopyID(of id: UUID, in table: SealedTable, text: String, syncKey: SecureBytes) -> UUID {
        ConflictCopy.id(domain: "JVLT-import-conflict", table: table, id: id, syncKey: syncKey) { $0.raw(text.utf8) }
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

    /// Analyses get no conflict copies (as in sync): an older one, or another of the same
    /// moment, is skipped.
    private func upsert(_ analysis: Analysis, overwrite: Bool, _ db: Database) throws -> Outcome {
        try replaceWhole(analysis, as: AnalysisRow.self, db) { stored in
            overwrite || analysis.processedAt.millis > stored.processedAt.millis ? nil : .skipped
        }
    }

    /// Threads neither (their messages do): an older one, or another of the same moment, is skipped.
    private func upsert(_ thread: ChatThread, overwrite: Bool, _ db: Database) throws -> Outcome {
        var thread = thread
        if let existing = try Row.fetchOne(db, sql: "SELECT \(ThreadRow.selection) FROM chat_thread WHERE id = ?", arguments: [thread.id.storageText]) {
            let stored = try ThreadRow(row: existing)
            var current = try stored.decrypt(keys: keys, db: db)
            current.messageCount = 0
            thread.messageCount = 0
            if current == thread { return .unchanged }
            guard overwrite || thread.updatedAt > current.updatedAt else { return .skipped }
            if thread.isActive { try db.execute(sql: "UPDATE chat_thread SET is_active = 0 WHERE is_active = 1 AND id <> ?", arguments: [thread.id.storageText]) }
            try ThreadRow(thread, meta: .rewriting(stored.encMeta, keyVersion: keys.keyVersion), keys: keys).update(db)
            return .updated
        }
        if thread.isActive { try db.execute(sql: "UPDATE chat_thread SET is_active = 0 WHERE is_active = 1") }
        try ThreadRow(thread, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
        return .added
    }

    /// A chat message is never changed once written, so another version of one was written
    /// elsewhere, and none is newer: another text is kept as a conflict copy, as sync does.
    private func upsert(_ message: ChatMessage, overwrite: Bool, _ db: Database) throws -> Outcome {
        if let entryID = message.entryID { try requireEntry(entryID, db) }
        return try replaceWhole(message, as: MessageRow.self, db) { stored in
            if overwrite { return nil }
            guard message.content != stored.content else { return .skipped }
            return try keepImportedCopy(of: message.id, in: .chatMessage, text: message.content, db) { copyID in
                try keepCopy(of: MessageRow(message, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).row, as: copyID,
                             why: "an imported file held this other text under the message's id.", db)
            }
        }
    }

    /// A record stored as one row and rewritten whole (analyses, messages): left alone if it
    /// decrypts to the same; else `keep` is asked first, with the stored record, and what it
    /// returns is what happened, or if nil the record is written again under the next
    /// revision of its metadata.
    private func replaceWhole<Stored: WholeRecordRow>(_ record: Stored.Record, as _: Stored.Type, _ db: Database,
                                                      keep: (Stored.Record) throws -> Outcome?) throws -> Outcome {
        let id = record.id.storageText
        let existing = try Row.fetchOne(db, sql: "SELECT \(Stored.selection) FROM \(Stored.table) WHERE id = ?", arguments: [id])
            .map(Stored.init(row:))
        if let existing {
            let current = try existing.decrypt(keys: keys)
            if current == record { return .unchanged }
            if let kept = try keep(current) { return kept }
            try db.execute(sql: "DELETE FROM \(Stored.table) WHERE id = ?", arguments: [id])
        }
        try Stored(record, meta: .rewriting(existing?.encMeta, keyVersion: keys.keyVersion), keys: keys).insert(db)
        return existing == nil ? .added : .updated
    }
}

/// What writing a record that may already be stored did: import keeps a stored record that is
/// newer (`skipped`), or one that cannot be ordered and keeps the file's text beside it
/// (`conflictCopy`).
enum UpsertOutcome { case added, updated, unchanged, conflictCopy, skipped }

/// The stored form of a record that import replaces whole.
private protocol WholeRecordRow {
    associatedtype Record: Equatable & Identifiable<UUID>
    static var table: String { get }
    static var selection: String { get }
    var encMeta: Data? { get }
    init(row: Row) throws
    init(_ record: Record, meta: RecordMeta, keys: VaultKeys) throws
    func decrypt(keys: VaultKeys) throws -> Record
    func insert(_ db: Database) throws
}

extension AnalysisRow: WholeRecordRow {}
extension MessageRow: WholeRecordRow {}
