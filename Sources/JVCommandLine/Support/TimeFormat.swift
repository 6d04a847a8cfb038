// SPDX-License-Identifier: Apache-2.0
import JournalVault

/// How times are printed for people (the config file's `time_format`): `24h`, the default,
/// or `12h` with AM/PM. JSON and ISO 8601 timestamps never change.
///
/// ```swift
/// TimeFormat.twelveHour.minuteText(entry.created)   // "2026-11-22 09:15 PM"
/// TimeFormat.twentyFourHour.minuteText(entry.created)   // "2026-11-22 21:15"
/// ```
enum TimeFormat: String, CaseIterable, Sendable {
    case twentyFourHour = "24h"
    case twelveHour = "12h"

    /// The writer's day and time to the minute.
    func minuteText(_ instant: Instant) -> String {
        "\(instant.localDay) \(timeOfDayText(instant))"
    }

    /// The writer's wall-clock time of day: `21:15`, or `09:15 PM` (two-digit hours either
    /// way, so that times line up in a column).
    func timeOfDayText(_ instant: Instant) -> String {
        let clock = instant.timeOfDayText
        guard self == .twelveHour, let hours = Int(clock.prefix(2)) else { return clock }
        let twelve = hours % 12 == 0 ? 12 : hours % 12
        return (twelve < 10 ? "0" : "") + "\(twelve)" + clock.dropFirst(2) + (hours < 12 ? " AM" : " PM")
    }
}
