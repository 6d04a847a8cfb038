// SPDX-License-Identifier: Apache-2.0
/// The kinds of record a search reads, in the order results are given: entries, then chat
/// messages, then analyses.
///
/// ```swift
/// let kinds: Set<SearchKind> = [.entry, .chatMessage]
/// ```
public enum SearchKind: String, Sendable, CaseIterable, Hashable, Comparable {
    case entry, chatMessage, analysis

    /// The order of ``allCases``.
    public static func < (lhs: SearchKind, rhs: SearchKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
