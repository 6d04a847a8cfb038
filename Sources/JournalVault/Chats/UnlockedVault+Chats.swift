// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// Starts a thread and makes it the active one. An empty title is filled from the first message.
    @discardableResult
    public func createThread(title: String = "", entryID: UUID? = nil) throws -> ChatThread {
        let now = Instant.now()
        let thread = ChatThread(id: UUID(), title: title.trimmingCharacters(in: .whitespacesAndNewlines), isActive: true,
                                created: now, updatedAt: now.millis, lastMessageAt: nil, messageCount: 0,
                                metadata: entryID.map { .object([("entry_id", .string($0.storageText))]) } ?? .null)
        try write { db in
            if let entryID { try requireEntry(entryID, db) }
            try db.execute(sql: "UPDATE chat_thread SET is_active = 0 WHERE is_active = 1")
            try ThreadRow(thread, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
        }
        return thread
    }

    /// Adds a message to the named thread, else to the active one, else to a new thread. The
    /// thread written to becomes the active one; its title defaults to the first message's first line.
    @discardableResult
    public func addMessage(_ draft: ChatMessageDraft) throws -> ChatMessage {
        let content = try ContentRules.validated(draft.content)
        let timestamp = draft.timestamp ?? .now()
        return try write { db in
            if let entryID = draft.entryID { try requireEntry(entryID, db) }
            var thread: ChatThread
            var storedMeta: Data?
            let activeID = try String.fetchOne(db, sql: "SELECT id FROM chat_thread WHERE is_active = 1")
                .map { try RecordID.parse($0, table: ThreadRow.table) }
            if let id = draft.threadID ?? activeID {
                let row = try ThreadRow.fetch(id: id, db)
                thread = try row.decrypt(keys: keys, db: db)
                storedMeta = row.encMeta
            } else {
                thread = ChatThread(id: UUID(), title: "", isActive: true, created: timestamp, updatedAt: timestamp.millis,
                                    lastMessageAt: nil, messageCount: 0, metadata: .null)
            }
            if thread.title.isEmpty { thread.title = ChatThread.title(from: content) }
            thread.isActive = true
            thread.updatedAt = max(timestamp.millis, thread.updatedAt)
            thread.lastMessageAt = max(timestamp.millis, thread.lastMessageAt ?? .min)
            try db.execute(sql: "UPDATE chat_thread SET is_active = 0 WHERE is_active = 1 AND id <> ?", arguments: [thread.id.storageText])
            let threadRow = try ThreadRow(thread, meta: .rewriting(storedMeta, keyVersion: keys.keyVersion), keys: keys)
            if storedMeta == nil { try threadRow.insert(db) } else { try threadRow.update(db) }
            let message = ChatMessage(id: UUID(), threadID: thread.id, role: draft.role, content: content, timestamp: timestamp,
                                      model: draft.model, language: draft.language, entryID: draft.entryID, usage: draft.usage)
            try MessageRow(message, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
            return message
        }
    }

    /// Every thread, most recently active first.
    public func threads() throws -> [ChatThread] {
        try database.read { db in
            try ThreadRow.fetchAll(db, orderedBy: "coalesce(last_message_at, created_at) DESC, id").map { try $0.decrypt(keys: keys, db: db) }
        }
    }

    public func resolveThreadID(_ text: String) throws -> UUID {
        try database.read { db in try RecordID.resolve(text, table: ThreadRow.table, kind: "chat thread", db: db) }
    }

    public func thread(id: UUID) throws -> ChatThread {
        try database.read { db in try ThreadRow.fetch(id: id, db).decrypt(keys: keys, db: db) }
    }

    /// The messages of a thread in time order.
    public func messages(inThread id: UUID) throws -> [ChatMessage] {
        try messages(where: "thread_id = ?", arguments: [id.storageText])
    }

    /// Messages in a time range (for search and export), in time order.
    public func messages(from: DateExpression? = nil, to: DateExpression? = nil) throws -> [ChatMessage] {
        let bounds = TimeBounds(from: from, to: to)
        let clauses = bounds.clauses(millisColumn: "timestamp", localDay: TimeBounds.localDay(millisColumn: "timestamp", offsetColumn: "utc_offset"))
        return try messages(where: clauses.isEmpty ? "1" : clauses.joined(separator: " AND "), arguments: bounds.arguments)
    }

    /// Deletes a thread and all its messages.
    public func deleteThread(id: UUID) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM chat_thread WHERE id = ?", arguments: [id.storageText])
            guard db.changesCount == 1 else { throw VaultError.notFound(kind: "chat thread", id: id.storageText) }
        }
    }

    private func messages(where condition: String, arguments: StatementArguments) throws -> [ChatMessage] {
        try database.read { db in
            try MessageRow.fetchAll(db, where: condition, arguments: arguments, orderedBy: "timestamp, id").map { try $0.decrypt(keys: keys) }
        }
    }

    func requireEntry(_ id: UUID, _ db: Database) throws {
        guard try Int.fetchOne(db, sql: "SELECT 1 FROM entry WHERE id = ?", arguments: [id.storageText]) != nil else {
            throw VaultError.notFound(kind: "entry", id: id.storageText)
        }
    }
}
