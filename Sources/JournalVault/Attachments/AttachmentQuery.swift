// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Which attachments ``UnlockedVault/attachments(_:)`` gives: of one entry or of all, of entries
/// written on the days `from`…`to` (the entry's own day, as `jv list` counts days — not when a
/// photo says it was taken, which many files do not say), of one kind.
///
/// ```swift
/// let photos = try journal.attachments(AttachmentQuery(from: CivilDay(year: 2026, month: 5, day: 1), kind: .image))
/// ```
public struct AttachmentQuery: Sendable, Equatable {
    public var entryID: UUID?
    public var from: CivilDay?
    public var to: CivilDay?
    public var kind: MediaKind?

    public init(entryID: UUID? = nil, from: CivilDay? = nil, to: CivilDay? = nil, kind: MediaKind? = nil) {
        self.entryID = entryID
        self.from = from
        self.to = to
        self.kind = kind
    }
}
