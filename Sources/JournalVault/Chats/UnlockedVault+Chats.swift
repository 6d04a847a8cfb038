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
            let rows = try Row.fetchCursor(db, sql: "SELECT \(ThreadRow.selection) FROM chat_thread ORDER BY coalesce(last_message_at, created_at) DESC, id")
            var result: [ChatThread] = []
            while let row = try rows.next() { result.append(try ThreadRow(row: row).decrypt(keys: keys, db: db)) }
            return result
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
            let rows = try Row.fetchCursor(db, sql: "SELECT \(MessageRow.selection) FROM chat_message WHERE \(condition) ORDER BY timestamp, id",
                                           arguments: arguments)
            var result: [ChatMessage] = []
            while let row = try rows.next() { result.append(try MessageRow(row: row).decrypt(keys: keys)) }
            return result
        }
    }

    func requireEntry(_ id: UUID, _ db: Database) throws {
        guard try Int.fetchOne(db, sql: "SELECT 1 FROM entry WHERE id = ?", arguments: [id.storageText]) != nil else {
            throw VaultError.notFound(kind: "entry", id: id.storageText)
        }
    }
}

/// The stored form of a chat thread (FORMAT.md §chat_thread).
struct ThreadRow {
    static let table = "chat_thread"
    static let selection = SealedTable.chatThread.selection

    var id: UUID
    var isActive: Bool
    var createdAt: Int64
    var utcOffset: Int
    var updatedAt: Int64
    var lastMessageAt: Int64?
    var encMeta: Data
    var title: Data
    var metadata: Data

    static func fetch(id: UUID, _ db: Database) throws -> ThreadRow {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(selection) FROM chat_thread WHERE id = ?", arguments: [id.storageText]) else {
            throw VaultError.notFound(kind: "chat thread", id: id.storageText)
        }
        return try ThreadRow(row: row)
    }

    init(row: Row) throws {
        id = try RecordID.parse(try row.stored(0, table: Self.table), table: Self.table)
        isActive = try row.stored(1, table: Self.table)
        createdAt = try row.stored(2, table: Self.table)
        utcOffset = try row.stored(3, table: Self.table)
        updatedAt = try row.stored(4, table: Self.table)
        lastMessageAt = try row.stored(5, table: Self.table)
        encMeta = try row.stored(6, table: Self.table)
        title = try row.stored(7, table: Self.table)
        metadata = try row.stored(8, table: Self.table)
        for millis in [createdAt, updatedAt, lastMessageAt ?? createdAt] {
            _ = try Instant.stored(millis: millis, utcOffsetSeconds: utcOffset, table: Self.table, id: id)
        }
    }

    init(_ thread: ChatThread, meta: RecordMeta, keys: VaultKeys) throws {
        id = thread.id
        isActive = thread.isActive
        createdAt = thread.created.millis
        utcOffset = thread.created.utcOffsetSeconds
        updatedAt = thread.updatedAt
        lastMessageAt = thread.lastMessageAt
        encMeta = meta.encoded
        title = Data()
        metadata = Data()
        let sealed = try keys.seal([("title", Array(thread.title.utf8)), ("metadata", thread.metadata.utf8Bytes)],
                                   table: Self.table, id: id, meta: meta, columns: boundColumns)
        title = sealed[0]
        metadata = sealed[1]
    }

    func decrypt(keys: VaultKeys, db: Database) throws -> ChatThread {
        let fields = try keys.open([("title", title), ("metadata", metadata)], table: Self.table, id: id, encMeta: encMeta,
                                   columns: boundColumns)
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message WHERE thread_id = ?", arguments: [id.storageText]) ?? 0
        return ChatThread(id: id, title: try String(decrypted: fields[0], table: Self.table, id: id), isActive: isActive,
                          created: Instant(millis: createdAt, utcOffsetSeconds: utcOffset), updatedAt: updatedAt,
                          lastMessageAt: lastMessageAt, messageCount: count,
                          metadata: try JSONValue(decrypted: fields[1], table: Self.table, id: id))
    }

    func insert(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO chat_thread (\(Self.selection)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: arguments)
    }

    func update(_ db: Database) throws {
        try db.execute(sql: """
            UPDATE chat_thread SET is_active = ?2, created_at = ?3, utc_offset = ?4, updated_at = ?5, last_message_at = ?6,
            enc_meta = ?7, title = ?8, metadata = ?9 WHERE id = ?1
            """, arguments: arguments)
    }

    private var arguments: StatementArguments {
        [id.storageText, isActive, createdAt, utcOffset, updatedAt, lastMessageAt, encMeta, title, metadata]
    }

    /// Bound in FORMAT.md's order: created_at, utc_offset, updated_at, last_message_at.
    private var boundColumns: [RecordBinding.Value] {
        [.integer(createdAt), .integer(Int64(utcOffset)), .integer(updatedAt), lastMessageAt.map(RecordBinding.Value.integer) ?? .null]
    }
}

/// The stored form of a chat message (FORMAT.md §chat_message).
struct MessageRow {
    static let table = "chat_message"
    static let selection = SealedTable.chatMessage.selection

    var id: UUID
    var threadID: UUID
    var role: String
    var timestamp: Int64
    var utcOffset: Int
    var entryID: UUID?
    var encMeta: Data
    var content: Data
    var metadata: Data

    init(row: Row) throws {
        id = try RecordID.parse(try row.stored(0, table: Self.table), table: Self.table)
        threadID = try RecordID.parse(try row.stored(1, table: Self.table), table: Self.table)
        role = try row.stored(2, table: Self.table)
        timestamp = try row.stored(3, table: Self.table)
        utcOffset = try row.stored(4, table: Self.table)
        entryID = try RecordID.parse(optional: try row.stored(5, table: Self.table), table: Self.table)
        encMeta = try row.stored(6, table: Self.table)
        content = try row.stored(7, table: Self.table)
        metadata = try row.stored(8, table: Self.table)
        _ = try Instant.stored(millis: timestamp, utcOffsetSeconds: utcOffset, table: Self.table, id: id)
    }

    init(_ message: ChatMessage, meta: RecordMeta, keys: VaultKeys) throws {
        id = message.id
        threadID = message.threadID
        role = message.role.rawValue
        timestamp = message.timestamp.millis
        utcOffset = message.timestamp.utcOffsetSeconds
        entryID = message.entryID
        encMeta = meta.encoded
        content = Data()
        metadata = Data()
        let sealed = try keys.seal([("content", Array(message.content.utf8)), ("metadata", message.metadata.utf8Bytes)],
                                   table: Self.table, id: id, meta: meta, columns: boundColumns)
        content = sealed[0]
        metadata = sealed[1]
    }

    func decrypt(keys: VaultKeys) throws -> ChatMessage {
        let fields = try keys.open([("content", content), ("metadata", metadata)], table: Self.table, id: id, encMeta: encMeta,
                                   columns: boundColumns)
        let metadata = try JSONValue(decrypted: fields[1], table: Self.table, id: id)
        guard let role = ChatRole(rawValue: role) else {
            throw VaultError.tamperedRecord(table: Self.table, id: id.storageText, detail: "unknown role")
        }
        return ChatMessage(id: id, threadID: threadID, role: role, content: try String(decrypted: fields[0], table: Self.table, id: id),
                           timestamp: Instant(millis: timestamp, utcOffsetSeconds: utcOffset),
                           model: metadata["model"]?.stringValue, language: metadata["language"]?.stringValue,
                           entryID: entryID, usage: metadata["usage"] ?? .null)
    }

    func insert(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO chat_message (\(Self.selection)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       arguments: [id.storageText, threadID.storageText, role, timestamp, utcOffset, entryID?.storageText,
                                   encMeta, content, metadata])
    }

    /// Bound in FORMAT.md's order: thread_id, role, timestamp, utc_offset. (`entry_id` is not
    /// bound: deleting the entry sets it to NULL without re-encrypting the message.)
    private var boundColumns: [RecordBinding.Value] {
        [.text(threadID.storageText), .text(role), .integer(timestamp), .integer(Int64(utcOffset))]
    }
}
