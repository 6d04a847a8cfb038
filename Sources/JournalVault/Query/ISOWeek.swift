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
}

private extension CivilDay {
    /// 1 for January 1st.
    var dayOfYear: Int {
        (1..<month).reduce(day) { $0 + CivilDay.daysIn(month: $1, year: year) }
    }
}
