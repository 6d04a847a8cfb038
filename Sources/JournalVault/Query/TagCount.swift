// SPDX-License-Identifier: Apache-2.0
/// A tag and the number of entries that carry it (``UnlockedVault/tagCounts(_:)``).
public struct TagCount: Sendable, Equatable {
    /// The tag in its normal form (FORMAT.md §5), without `#` or `@`.
    public let tag: String
    /// Entries carrying it, inline or explicitly (each entry counted once).
    public let count: Int
}

extension UnlockedVault {
    /// Every tag of the entries `query` selects, with how many carry it: most used first, then
    /// by name (jrnl's `--tags`).
    ///
    /// ```swift
    /// for each in try journal.tagCounts() { print(each.tag, each.count) }
    /// ```
    public func tagCounts(_ query: EntryQuery = EntryQuery()) throws -> [TagCount] {
        TagCount.counting(try entries(query))
    }
}

extension TagCount {
    /// The tags of `entries`, each with the number of them that carry it, most used first.
    static func counting(_ entries: [Entry]) -> [TagCount] {
        var counts: [String: Int] = [:]
        for entry in entries {
            for tag in Set(entry.tags) { counts[tag, default: 0] += 1 }
        }
        return counts.map { TagCount(tag: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.tag < $1.tag }
    }
}
