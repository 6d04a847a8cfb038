// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Entry counts per local day for a month or a year — read from the plaintext `local_day`
/// column, so it needs no key.
///
/// ```swift
/// let november = try Vault.open(at: path).calendar(year: 2026, month: 11)
/// november.days[CivilDay(year: 2026, month: 11, day: 22)!]   // 3
/// ```
public struct CalendarCounts: Sendable, Hashable {
    public let year: Int
    /// nil for a whole year.
    public let month: Int?
    /// Days with at least one entry.
    public let days: [CivilDay: Int]

    /// The first and last day the period covers.
    public var range: ClosedRange<CivilDay> {
        let first = CivilDay(year: year, month: month ?? 1, day: 1)!
        let lastMonth = month ?? 12
        return first...CivilDay(year: year, month: lastMonth, day: CivilDay.daysIn(month: lastMonth, year: year))!
    }
}

extension Vault {
    /// Counts per day for `month` of `year`, or the whole year when `month` is nil.
    public func calendar(year: Int, month: Int? = nil) throws -> CalendarCounts {
        guard CivilDay(year: year, month: month ?? 1, day: 1) != nil else {
            throw VaultError.storage("no such month: \(year)-\(month ?? 0)")
        }
        let period = CalendarCounts(year: year, month: month, days: [:])
        let days = try database.read { db in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT local_day, count(*) FROM entry WHERE local_day BETWEEN ? AND ? GROUP BY local_day
                """), arguments: [period.range.lowerBound.description, period.range.upperBound.description])
            var days: [CivilDay: Int] = [:]
            while let row = try rows.next() {
                // An edited local_day of another type is skipped here; `jv check` reports it.
                if let text = try? row.decode(String.self, atIndex: 0), let day = CivilDay(iso: text) {
                    days[day] = try row.decode(Int.self, atIndex: 1)
                }
            }
            return days
        }
        return CalendarCounts(year: year, month: month, days: days)
    }
}

extension CalendarCounts {
    /// The calendar shape of README "JSON": `{year, month?, days: {"YYYY-MM-DD": count}}`, listing
    /// only days with entries, in date order.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("year", .integer(Int64(year)))]
        if let month { members.append(("month", .integer(Int64(month)))) }
        members.append(("days", .object(days.sorted { $0.key < $1.key }.map { ($0.key.description, .integer(Int64($0.value))) })))
        return .object(members)
    }
}
