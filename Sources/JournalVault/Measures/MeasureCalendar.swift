// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// One numeric field's mean per local day for a month or a year (`jv calendar --by mood`):
/// of the entries written that day that give the field a number, decrypted.
///
/// ```swift
/// let moods = try journal.measureCalendar("mood", year: 2026)
/// moods.days[CivilDay(year: 2026, month: 11, day: 22)!]?.mean   // 6.5
/// ```
public struct MeasureCalendar: Sendable {
    /// The field's normalised name.
    public let name: String
    /// The period and its entry counts.
    public let counts: CalendarCounts
    /// Days with at least one number for the field: their mean and how many entries gave one.
    public let days: [CivilDay: (mean: Double, entries: Int)]

    /// `{year, month?, by, days: {"YYYY-MM-DD": {mean, entries}}}`, days with a value only, in date order.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("year", .integer(Int64(counts.year)))]
        if let month = counts.month { members.append(("month", .integer(Int64(month)))) }
        members.append(("by", .string(name)))
        members.append(("days", .object(days.sorted { $0.key < $1.key }.map { day, value in
            (day.description, .object([("mean", .number(value.mean)), ("entries", .integer(Int64(value.entries)))]))
        })))
        return .object(members)
    }
}

extension UnlockedVault {
    /// The daily mean of the field `name` (normalised here) over `month` of `year`, or the whole
    /// year when `month` is nil; an entry whose value of it is not a number is left out.
    public func measureCalendar(_ name: String, year: Int, month: Int? = nil) throws -> MeasureCalendar {
        let field = try Measures.normalizedName(name)
        let counts = try vault.calendar(year: year, month: month)
        var query = EntryQuery()
        query.on = counts.range
        let measured = try measures(matching: query)
        let entryDays = try database.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, local_day FROM entry WHERE local_day BETWEEN ? AND ? AND id IN (SELECT entry_id FROM measure)
                """, arguments: [counts.range.lowerBound.description, counts.range.upperBound.description])
            var days: [UUID: CivilDay] = [:]
            while let row = try rows.next() {
                guard let day = CivilDay(iso: try row.stored(1, table: EncryptedEntryRow.table) as String) else { continue }
                days[try RecordID.parse(try row.stored(0, table: EncryptedEntryRow.table), table: EncryptedEntryRow.table)] = day
            }
            return days
        }
        var sums: [CivilDay: (sum: Double, entries: Int)] = [:]
        for (entryID, measures) in measured {
            guard let number = measures[field]?.number, let day = entryDays[entryID] else { continue }
            sums[day, default: (0, 0)].sum += number
            sums[day, default: (0, 0)].entries += 1
        }
        return MeasureCalendar(name: field, counts: counts, days: sums.mapValues { ($0.sum / Double($0.entries), $0.entries) })
    }
}
