// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import JournalVault
import Testing

/// The config file's `time_format`: times for people in 24 hours or in 12 with AM/PM, always in
/// the writer's own wall-clock time.
@Suite("Time format", .tags(.inProcess))
struct TimeFormatTests {
    /// 2026-11-22 21:15 UTC.
    static let evening: Int64 = 1_795_382_100_000
    static let hour: Int64 = 3_600_000

    @Test("24h and 12h of one moment, in the writer's UTC offset")
    func formats() {
        let utc = Instant(millis: Self.evening, utcOffsetSeconds: 0)
        #expect(TimeFormat.twentyFourHour.minuteText(utc) == "2026-11-22 21:15")
        #expect(TimeFormat.twelveHour.minuteText(utc) == "2026-11-22 09:15 PM")
        let tokyo = Instant(millis: Self.evening, utcOffsetSeconds: 9 * 3600)
        #expect(TimeFormat.twentyFourHour.minuteText(tokyo) == "2026-11-23 06:15")
        #expect(TimeFormat.twelveHour.minuteText(tokyo) == "2026-11-23 06:15 AM")
    }

    @Test("Midnight is 12 AM and noon 12 PM; hours keep two digits so that times line up")
    func twelveHourEdges() {
        let midnight = Instant(millis: Self.evening + 2 * Self.hour + 45 * 60_000, utcOffsetSeconds: 0)
        #expect(TimeFormat.twelveHour.timeOfDayText(midnight) == "12:00 AM")
        #expect(TimeFormat.twentyFourHour.timeOfDayText(midnight) == "00:00")
        let noon = Instant(millis: Self.evening - 9 * Self.hour - 15 * 60_000, utcOffsetSeconds: 0)
        #expect(TimeFormat.twelveHour.timeOfDayText(noon) == "12:00 PM")
        let one = Instant(millis: Self.evening - 8 * Self.hour - 15 * 60_000, utcOffsetSeconds: 0)
        #expect(TimeFormat.twelveHour.timeOfDayText(one) == "01:00 PM")
        #expect(TimeFormat(rawValue: "12h") == .twelveHour && TimeFormat(rawValue: "24h") == .twentyFourHour)
    }
}
