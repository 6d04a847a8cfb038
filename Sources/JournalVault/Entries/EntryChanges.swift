// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Changes to several entries that ``UnlockedVault/applyEntryChanges(_:)`` writes in one
/// transaction: all of them or none.
///
/// ```swift
/// var changes = EntryChanges()
/// changes.updated = [EntryChanges.Revision(id: entry.id, content: "Better words.", created: entry.created)]
/// changes.deleted = [duplicate.id]
/// try journal.applyEntryChanges(changes)
/// ```
public struct EntryChanges: Sendable, Hashable {
    /// A new text and time of writing for an existing entry; its star and explicit tags stay.
    public struct Revision: Sendable, Hashable {
        public var id: UUID
        public var content: String
        public var created: Instant

        public init(id: UUID, content: String, created: Instant) {
            self.id = id
            self.content = content
            self.created = created
        }
    }

    public var updated: [Revision]
    /// New entries, stored as given once their text and tags are checked.
    public var added: [Entry]
    public var deleted: [UUID]

    public init(updated: [Revision] = [], added: [Entry] = [], deleted: [UUID] = []) {
        self.updated = updated
        self.added = added
        self.deleted = deleted
    }

    public var isEmpty: Bool { updated.isEmpty && added.isEmpty && deleted.isEmpty }
}
