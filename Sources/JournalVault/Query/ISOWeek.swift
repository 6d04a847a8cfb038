// SPDX-License-Identifier: Apache-2.0
/// ISO 8601 weeks (Monday first; week 1 holds the year's first Thursday), as `jv stats` counts them.
///
/// ```swift
/// let day = CivilDay(year: 2027, month: 1, day: 1)!   // a Friday
/// ISOWeek.name(of: day)                               // "2026-W53"
/// ```
public enum ISOWeek {
    /// The Monday that starts `day`'s week.
    public static func monday(of day: CivilDay) -> CivilDay {
        day.adding(days: 1 - day.isoWeekday)
    }

    /// `YYYY-Www`: the ISO week-numbering year (that of the week's Thursday) and the week number.
    public static func name(of day: CivilDay) -> String {
        let thursday = day.adding(days: 4 - day.isoWeekday)
        let januaryFirst = CivilDay(daysSinceEpoch: thursday.daysSinceEpoch - (thursday.dayOfYear - 1))
        let week = (thursday.daysSinceEpoch - januaryFirst.daysSinceEpoch) / 7 + 1
        return String(thursday.description.prefix(4)) + "-W" + (week < 10 ? "0\(week)" : "\(week)")
    }

    /// The Monday that starts week `week` of ISO year `year`, or nil when that year has no such
    /// week (53 only in the years whose week of December 28th is the 53rd).
    ///
    /// ```swift
    /// ISOWeek.monday(ofWeek: 1, in: 2026)    // 2025-12-29
    /// ISOWeek.monday(ofWeek: 53, in: 2025)   // nil
    /// ```
    public static func monday(ofWeek week: Int, in year: Int) -> CivilDay? {
        // January 4th is always in week 1; December 28th always in the year's last week.
        guard let january4 = CivilDay(year: year, month: 1, day: 4), let december28 = CivilDay(year: year, month: 12, day: 28),
              week >= 1, week <= (monday(of: december28).daysSinceEpoch - monday(of: january4).daysSinceEpoch) / 7 + 1 else { return nil }
        return monday(of: january4).adding(days: 7 * (week - 1))
    }
}

extension CivilDay {
    /// 1 for January 1st.
    var dayOfYear: Int {
        (1..<month).reduce(day) { $0 + CivilDay.daysIn(month: $1, year: year) }
    }
}
