// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A moment as the vault stores it: milliseconds since the Unix epoch (UTC), with the UTC
/// offset of the person who wrote it, so that their local day and wall-clock time survive
/// travel and time-zone changes.
///
/// ```swift
/// let now = Instant.now()
/// now.localDay          // the writer's calendar day
/// now.iso8601           // "2026-11-22T09:15:00.000+01:00"
/// ```
public struct Instant: Hashable, Sendable, Comparable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millis: Int64
    /// The writer's offset from UTC in seconds (east positive), at that moment.
    public var utcOffsetSeconds: Int

    public init(millis: Int64, utcOffsetSeconds: Int) {
        self.millis = millis
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The instant `date`, with the offset `zone` had then.
    public init(_ date: Date, zone: TimeZone = .current) {
        millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        utcOffsetSeconds = zone.secondsFromGMT(for: date)
    }

    /// Now, in the process's time zone (`TZ`).
    public static func now(zone: TimeZone = .current) -> Instant {
        Instant(Date(), zone: zone)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// Milliseconds since the epoch of the writer's wall clock.
    private var localMillis: Int64 { millis + Int64(utcOffsetSeconds) * 1000 }

    /// The writer's calendar day.
    public var localDay: CivilDay {
        CivilDay(daysSinceEpoch: Int(localMillis.floorDiv(86_400_000)))
    }

    /// Milliseconds since the writer's local midnight.
    public var localMillisOfDay: Int64 { localMillis - Int64(localDay.daysSinceEpoch) * 86_400_000 }

    /// ISO 8601 with milliseconds and the writer's offset: `2026-11-22T09:15:00.000+01:00`.
    public var iso8601: String {
        let ms = localMillisOfDay
        let seconds = ms / 1000 % 60, fraction = ms % 1000
        let fractionText = String(fraction + 1000).dropFirst()
        return "\(localDay)T\(timeOfDayText):\(Self.twoDigits(seconds)).\(fractionText)\(Self.offsetText(utcOffsetSeconds))"
    }

    /// The writer's wall-clock time of day, `HH:MM`.
    public var timeOfDayText: String {
        let minutes = localMillisOfDay / 60_000
        return Self.twoDigits(minutes / 60) + ":" + Self.twoDigits(minutes % 60)
    }

    /// `n` (0–99) in two digits.
    private static func twoDigits<Number: BinaryInteger>(_ n: Number) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// The writer's day and time to the minute, `YYYY-MM-DD HH:MM`, for people.
    public var minuteText: String { "\(localDay) \(timeOfDayText)" }

    /// `+HH:MM` / `-HH:MM`; `Z` is avoided so every timestamp has the same shape.
    public static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return "\(sign)\(twoDigits(minutes / 60)):\(twoDigits(minutes % 60))"
    }

    /// The UTC instant at which `day` begins for a writer at `utcOffsetSeconds`.
    public static func startOf(_ day: CivilDay, utcOffsetSeconds: Int) -> Instant {
        Instant(millis: Int64(day.daysSinceEpoch) * 86_400_000 - Int64(utcOffsetSeconds) * 1000,
                utcOffsetSeconds: utcOffsetSeconds)
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.millis < rhs.millis }
}

extension Int64 {
    /// Division rounding toward negative infinity (days before 1970 stay on the right day).
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
