// SPDX-License-Identifier: Apache-2.0
/// A record a search found: its kind, its id (as stored), its time and, for a ranked search,
/// its relevance.
///
/// ```swift
/// for hit in try journal.search(SearchRequest(query: try SearchQuery.parse("tea"))) {
///     print(hit.kind, hit.key, hit.time.iso8601)
/// }
/// ```
public struct SearchHit: Sendable, Equatable, Hashable {
    public var kind: SearchKind
    /// The record's id as stored (`UUID.storageText`).
    public var key: String
    /// When the record was written (an entry), sent (a message) or made (an analysis).
    public var time: Instant
    /// For a ranked search, FTS5's bm25 score negated, so higher is more relevant (0 for a
    /// query of exclusions only); nil otherwise.
    public var rank: Double?

    public init(kind: SearchKind, key: String, time: Instant, rank: Double? = nil) {
        self.kind = kind
        self.key = key
        self.time = time
        self.rank = rank
    }

    /// `hits` in ``precedes(_:_:)`` order, sorted through their indices: sorting the hits
    /// themselves retained and released both keys at every comparison, a third of a broad
    /// query's time. Both paths sort with it.
    static func sorted(_ hits: [SearchHit]) -> [SearchHit] {
        let order = hits.withUnsafeBufferPointer { hits in hits.indices.sorted { precedes(hits[$0], hits[$1]) } }
        return order.map { hits[$0] }
    }

    /// The order of results within a kind: newest first (by instant, then id, descending, as
    /// listings break ties); ranked, best first and ties newest first.
    static func precedes(_ lhs: borrowing SearchHit, _ rhs: borrowing SearchHit) -> Bool {
        if let left = lhs.rank, let right = rhs.rank, left != right { return left > right }
        if lhs.time.millis != rhs.time.millis { return lhs.time.millis > rhs.time.millis }
        return lhs.key > rhs.key
    }
}
