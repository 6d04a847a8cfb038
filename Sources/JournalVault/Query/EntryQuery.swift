// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Which entries to list or search. Day bounds compare the writer's local day; instant bounds
/// compare the moment of writing. `to` includes its whole day.
///
/// ```swift
/// var query = EntryQuery()
/// query.from = .day(CivilDay(year: 2026, month: 11, day: 1)!)
/// query.tags = ["work"]
/// let entries = try journal.entries(query)
/// ```
public struct EntryQuery: Sendable {
    public var from: DateExpression?
    public var to: DateExpression?
    /// Entries whose local day is one of these (one day: `day...day`; a month for `--on 2026-11`).
    public var on: ClosedRange<CivilDay>?
    /// Only the newest `limit` matches (still given oldest first, unless asked newest first).
    public var limit: Int?
    public var starredOnly = false
    /// Entries carrying every one of these tags (any spelling: `@Work`, `#work`, `work`).
    public var tags: [String] = []
    /// Entries carrying at least one of these tags (when not empty).
    public var anyTags: [String] = []
    /// Entries carrying none of these tags. Decided from the decrypted entries, never from the
    /// tag index alone (a row taken out of the index must not let an entry through).
    public var withoutTags: [String] = []
    /// Case- and diacritic-insensitive text the content must contain.
    public var contains: String?
    /// Entries written on this day's month and day in earlier years ("on this day").
    public var onThisDay: CivilDay?
    /// Entries whose measures meet every one of these (`jv list --where`), decided from the
    /// decrypted measures.
    public var measureConditions: [MeasureCondition] = []

    public init() {}

    /// Whether only ``from`` and ``to`` select: every other condition is unset.
    var selectsByDatesOnly: Bool {
        on == nil && limit == nil && !starredOnly && tags.isEmpty && anyTags.isEmpty && withoutTags.isEmpty && contains == nil
            && onThisDay == nil && measureConditions.isEmpty
    }

    /// Whether an entry with `measures` (nil: none) meets every one of ``measureConditions``.
    func meetsMeasureConditions(_ measures: Measures?) -> Bool {
        let measures = measures ?? Measures()
        return measureConditions.allSatisfy { $0.matches(measures) }
    }

    /// The SQL condition and its arguments over the plaintext columns; `blindIndex` maps a
    /// normalised tag to its blind index. `byTime`: the tag conditions are written so that
    /// SQLite walks the time index and tests each entry's row key against the tag's rows,
    /// instead of fetching the tagged rows and sorting them whole before giving the first —
    /// the better plan when the tags are on a good part of the entries.
    func condition(blindIndex: (String) -> [UInt8], byTime: Bool = false) throws -> (sql: String, arguments: StatementArguments) {
        var clauses: [String] = []
        var arguments = StatementArguments()
        let bounds = TimeBounds(from: from, to: to)
        clauses += bounds.clauses(millisColumn: "created_at", localDay: "local_day")
        arguments += bounds.arguments
        if let on, on.lowerBound == on.upperBound {
            clauses.append("local_day = ?")
            _ = arguments.append(contentsOf: [on.lowerBound.description])
        } else if let on {
            // Bounded like --from and --to, so SQLite can walk the time index in order.
            let days = TimeBounds(from: .days(on), to: .days(on))
            clauses += days.clauses(millisColumn: "created_at", localDay: "local_day")
            arguments += days.arguments
        }
        if let onThisDay {
            // local_day is YYYY-MM-DD: its MM-DD, in years before.
            clauses.append("substr(local_day, 6, 5) = ? AND local_day < ?")
            _ = arguments.append(contentsOf: [String(onThisDay.description.suffix(5)), onThisDay.description])
        }
        if starredOnly { clauses.append("starred = 1") }
        // A unary + keeps SQLite from looking the rows up by key (it then walks an index).
        let seq = byTime ? "+seq" : "seq"
        for normal in try ContentRules.tags(tags) {
            clauses.append("\(seq) IN (SELECT entry_seq FROM entry_tag WHERE bidx = ?)")
            _ = arguments.append(contentsOf: [Data(blindIndex(normal))])
        }
        if !anyTags.isEmpty {
            let indexes = try ContentRules.tags(anyTags).map { Data(blindIndex($0)) }
            clauses.append("\(seq) IN (SELECT entry_seq FROM entry_tag WHERE bidx IN (\(indexes.map { _ in "?" }.joined(separator: ", "))))")
            _ = arguments.append(contentsOf: StatementArguments(indexes))
        }
        _ = try ContentRules.tags(withoutTags)
        return (clauses.isEmpty ? "1" : clauses.joined(separator: " AND "), arguments)
    }
}

/// Which way a listing runs: by time of writing (the instant, not the writer's wall clock),
/// entries written at the same instant by id.
public enum EntryOrder: Sendable {
    case oldestFirst
    case newestFirst
}
