// SPDX-License-Identifier: Apache-2.0
/// A week (ISO 8601: Monday to Sunday), a calendar month or a calendar year of local days: what
/// a digest gathers (``UnlockedVault/digest(of:sections:)``). Its days compare with the
/// entries' local days, as `jv list --from/--to` does, whatever time zone each was written in.
///
/// ```swift
/// let week = DigestPeriod(containing: CivilDay(year: 2026, month: 11, day: 25)!, kind: .week)
/// week.name                           // "2026-W48"
/// week.first.description              // "2026-11-23"
/// week.moved(by: -1)?.name            // "2026-W47"
/// DigestPeriod(named: "2024-02", kind: .month)?.last.description   // "2024-02-29"
/// ```
public struct DigestPeriod: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case week, month, year
    }

    public let kind: Kind
    /// The first and last days, both included.
    public let first: CivilDay
    public let last: CivilDay

    /// The period of `kind` that holds `day`.
    public init(containing day: CivilDay, kind: Kind) {
        self.kind = kind
        switch kind {
        case .week:
            first = ISOWeek.monday(of: day)
            last = first.adding(days: 6)
        case .month:
            first = day.adding(days: 1 - day.day)
            last = first.adding(days: CivilDay.daysIn(month: day.month, year: day.year) - 1)
        case .year:
            first = day.adding(days: 1 - day.dayOfYear)
            // 365 days, or 366 when February has 29.
            last = first.adding(days: 364 + CivilDay.daysIn(month: 2, year: day.year) - 28)
        }
    }

    /// The period `name` names in the form ``name`` gives (`2026-W48`, `2026-11`, `2026`); nil
    /// for any other text, or a week the year does not have.
    public init?(named name: String, kind: Kind) {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        func number(_ text: Substring, digits: Int) -> Int? {
            guard text.count == digits, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else { return nil }
            return Int(text)
        }
        guard let year = parts.first.flatMap({ number($0, digits: 4) }) else { return nil }
        let day: CivilDay?
        switch (kind, parts.count) {
        case (.week, 2) where parts[1].first == "W":
            day = number(parts[1].dropFirst(), digits: 2).flatMap { ISOWeek.monday(ofWeek: $0, in: year) }
        case (.month, 2): day = number(parts[1], digits: 2).flatMap { CivilDay(year: year, month: $0, day: 1) }
        case (.year, 1): day = CivilDay(year: year, month: 1, day: 1)
        default: day = nil
        }
        guard let day else { return nil }
        self.init(containing: day, kind: kind)
    }

    /// `2026-W48` (the ISO week-numbering year, which may differ from the calendar year of the
    /// week's first days), `2026-11`, or `2026`.
    public var name: String {
        switch kind {
        case .week: ISOWeek.name(of: first)
        case .month: String(first.description.prefix(7))
        case .year: String(first.description.prefix(4))
        }
    }

    public var description: String { name }

    public var days: ClosedRange<CivilDay> { first...last }

    /// The period `count` periods later (earlier when negative), or nil past the years a day
    /// can have (1…9999).
    public func moved(by count: Int) -> DigestPeriod? {
        let day: CivilDay?
        switch kind {
        case .week:
            let moved = count.multipliedReportingOverflow(by: 7)
            day = moved.overflow || abs(moved.partialValue) > 4_000_000 ? nil : first.adding(days: moved.partialValue)
        case .month:
            let months = (first.year * 12 + first.month - 1).addingReportingOverflow(count)
            day = months.overflow || months.partialValue < 0 ? nil
                : CivilDay(year: months.partialValue / 12, month: months.partialValue % 12 + 1, day: 1)
        case .year:
            let year = first.year.addingReportingOverflow(count)
            day = year.overflow ? nil : CivilDay(year: year.partialValue, month: 1, day: 1)
        }
        guard let day, (1...9999).contains(day.year) else { return nil }
        return DigestPeriod(containing: day, kind: kind)
    }
}
