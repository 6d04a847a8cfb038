// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A node of the knowledge graph: a person, place, event, emotion, topic… One node exists per
/// (type, name), found through a blind index so the name is never stored in the clear.
public struct KnowledgeNode: Sendable, Hashable, Identifiable {
    public let id: UUID
    /// Lower-case word: `person`, `place`, `event`, `emotion`, `topic`, …
    public var type: String
    public var name: String
    public var created: Instant
    public var metadata: JSONValue

    /// README "JSON": `{id, type, name, created_at}`.
    public var json: JSONValue {
        .object([("id", .string(id.storageText)), ("type", .string(type)), ("name", .string(name)),
                 ("created_at", .string(created.iso8601))])
    }

    /// The node types stored (in plaintext, FORMAT.md §1.6): a fixed vocabulary, so that no word
    /// an analyser chose about a person's life is left readable. Any other type is stored as `other`.
    public static let types: Set<String> = ["person", "place", "organization", "event", "emotion", "topic", "activity", "object", "other"]

    /// The stored type for an analyser's `type`: the lower-cased word if it is in ``types``,
    /// `other` for any other word; nil if it is not one word.
    public static func normalizedType(_ type: String) -> String? {
        let text = type.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !text.isEmpty, text.count <= 64,
              text.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" }) else { return nil }
        return types.contains(text) ? text : "other"
    }

    /// The form names are compared in: NFC, lower case, white space trimmed and collapsed.
    static func comparableName(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// A typed, weighted edge between two nodes, remembering the entry it was learnt from.
public struct KnowledgeRelation: Sendable, Hashable, Identifiable {
    public let id: UUID
    public var from: UUID
    public var to: UUID
    public var type: String
    /// 0…1.
    public var strength: Double
    public var entryID: UUID?

    /// README "JSON": `{id, from, to, type, strength, entry_id}`.
    public var json: JSONValue {
        .object([("id", .string(id.storageText)), ("from", .string(from.storageText)), ("to", .string(to.storageText)),
                 ("type", .string(type)), ("strength", .number(strength)), ("entry_id", .optional(entryID?.storageText))])
    }
}
