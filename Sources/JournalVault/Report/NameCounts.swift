// SPDX-License-Identifier: Apache-2.0
/// How often each name (a tag, a person) came up in each month of a report's period: the
/// report's "over time" sections.
///
/// ```swift
/// var tags = NameCounts(months: ["2026-01", "2026-02"])
/// tags.add("work", month: 0)
/// tags.top(5)                 // [(name: "work", counts: [1, 0])]
/// tags.top(3, inMonth: 0)     // [(name: "work", count: 1)]
/// ```
public struct NameCounts: Sendable {
    /// Every month of the period, `YYYY-MM`, oldest first.
    public let months: [String]
    /// Each name's count per month, aligned with ``months``.
    public private(set) var counts: [String: [Int]] = [:]

    public init(months: [String]) {
        self.months = months
    }

    /// Counts `name` once in the month at `month` (an index into ``months``).
    public mutating func add(_ name: String, month: Int) {
        guard months.indices.contains(month) else { return }
        counts[name, default: Array(repeating: 0, count: months.count)][month] += 1
    }

    /// The `limit` names counted most over the whole period, most first (ties by name), each
    /// with its counts per month.
    public func top(_ limit: Int) -> [(name: String, counts: [Int])] {
        let totals: [(name: String, counts: [Int], total: Int)] = counts.map { name, counts in (name, counts, counts.reduce(0, +)) }
        let ranked = totals.sorted { $0.total != $1.total ? $0.total > $1.total : $0.name < $1.name }
        return ranked.prefix(limit).map { (name: $0.name, counts: $0.counts) }
    }

    /// The `limit` names counted most in the month at `month`, most first (ties by name).
    public func top(_ limit: Int, inMonth month: Int) -> [(name: String, count: Int)] {
        let counted: [(name: String, count: Int)] = counts.compactMap { name, counts in counts[month] > 0 ? (name, counts[month]) : nil }
        let ranked = counted.sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        return Array(ranked.prefix(limit))
    }
}
