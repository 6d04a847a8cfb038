// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A conversation with an AI. At most one thread is active: the one `jv chat add` writes to
/// when no thread is named.
///
/// ```swift
/// let message = try journal.addMessage(ChatMessageDraft(role: .user, content: "How was March?"))
/// let thread = try journal.thread(id: message.threadID)
/// ```
public struct ChatThread: Sendable, Hashable, Identifiable {
    public let id: UUID
    /// By default the first line of the first message.
    public var title: String
    public var isActive: Bool
    public var created: Instant
    public var updatedAt: Int64
    public var lastMessageAt: Int64?
    public var messageCount: Int
    /// Anything else about the thread (e.g. `{"entry_id": …}` for a thread about an entry).
    public var metadata: JSONValue

    /// README "JSON": `{id, title, is_active, created_at, updated_at, last_message_at, message_count}`.
    public var json: JSONValue {
        .object([
            ("id", .string(id.storageText)),
            ("title", .string(title)),
            ("is_active", .bool(isActive)),
            ("created_at", .string(created.iso8601)),
            ("updated_at", .string(Instant(millis: updatedAt, utcOffsetSeconds: created.utcOffsetSeconds).iso8601)),
            ("last_message_at", .optional(lastMessageAt.map { Instant(millis: $0, utcOffsetSeconds: created.utcOffsetSeconds).iso8601 })),
            ("message_count", .integer(Int64(messageCount))),
        ])
    }

    /// The default title drawn from a message: its first non-blank line, at most 80 characters.
    static func title(from content: String) -> String {
        let line = content.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }
}

/// Who wrote a chat message.
public enum ChatRole: String, Sendable, Hashable, CaseIterable {
    case user, assistant, system
}

/// One message of a thread.
public struct ChatMessage: Sendable, Hashable, Identifiable {
    public let id: UUID
    public var threadID: UUID
    public var role: ChatRole
    public var content: String
    public var timestamp: Instant
    public var model: String?
    public var language: String?
    /// The entry the message is about; set to nil when that entry is deleted.
    public var entryID: UUID?
    /// Token counts and anything else the model reported.
    public var usage: JSONValue

    /// README "JSON": `{id, thread_id, role, content, timestamp, model, language, entry_id}`.
    public var json: JSONValue {
        .object([
            ("id", .string(id.storageText)),
            ("thread_id", .string(threadID.storageText)),
            ("role", .string(role.rawValue)),
            ("content", .string(content)),
            ("timestamp", .string(timestamp.iso8601)),
            ("model", .optional(model)),
            ("language", .optional(language)),
            ("entry_id", .optional(entryID?.storageText)),
        ])
    }

    /// The encrypted metadata field: `{model, language, usage}`.
    var metadata: JSONValue {
        .object([("model", .optional(model)), ("language", .optional(language)), ("usage", usage)])
    }
}

/// A message to add: `threadID` nil means the active thread (one is created if there is none).
public struct ChatMessageDraft: Sendable {
    public var threadID: UUID?
    public var role: ChatRole
    public var content: String
    public var model: String?
    public var language: String?
    public var entryID: UUID?
    public var usage: JSONValue
    public var timestamp: Instant?

    public init(threadID: UUID? = nil, role: ChatRole, content: String, model: String? = nil, language: String? = nil,
                entryID: UUID? = nil, usage: JSONValue = .null, timestamp: Instant? = nil) {
        self.threadID = threadID
        self.role = role
        self.content = content
        self.model = model
        self.language = language
        self.entryID = entryID
        self.usage = usage
        self.timestamp = timestamp
    }
}
