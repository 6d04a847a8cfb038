// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A date the user typed on the command line (`--at`, `--from`, `--to`, `--on`): a calendar day,
/// a run of whole days (a week, a month, a year) or a precise moment.
///
/// ```swift
/// let now = Instant(millis: 1_767_614_400_000, utcOffsetSeconds: 3600)  // 2026-01-05T13:00+01:00
/// let berlin = TimeZone(identifier: "Europe/Berlin")!
/// try DateExpression.parse("yesterday", now: now, zone: berlin)        // .day(2026-01-04)
/// try DateExpression.parse("monday 9pm", now: now, zone: berlin)       // .instant(2026-01-05T21:00+01:00)
/// try DateExpression.parse("nov 5", now: now, zone: berlin)            // .day(2025-11-05)
/// try DateExpression.parse("last month", now: now, zone: berlin)       // .days(2025-12-01...2025-12-31)
/// try DateExpression.parse("2026-01-05T23:30+09:00", now: now, zone: berlin)
/// ```
public enum DateExpression: Hashable, Sendable {
    /// A whole calendar day (date-only forms: `2026-01-05`, `today`, `3 days ago`, `monday`, `nov 5`).
    case day(CivilDay)
    /// A moment (`now`, forms with a time of day, or a full ISO 8601 date-time).
    case instant(Instant)
    /// Several whole days: a year (`2026`, `last year`), a month (`2026-11`, `nov 2026`,
    /// `last month`) or an ISO week, Monday to Sunday (`this week`, `last week`).
    case days(ClosedRange<CivilDay>)

    /// Parses `text` relative to `now` (whose `utcOffsetSeconds` and `localDay` give "today") in `zone`
    /// (used to turn a wall-clock time without an explicit offset into an instant, DST-aware).
    ///
    /// Accepted, case-insensitively:
    /// - days: `YYYY-MM-DD`; `today`, `yesterday`, `tomorrow`; `N days ago`, `N weeks ago`;
    ///   weekday names (`monday`, `mon`: the most recent, today included; `last monday`: that
    ///   day of last week, as jrnl reads it); a month and a day (`nov 5`, `5 november`,
    ///   `november 5th`), with a year (`november 5 2025`, `nov 5, 2025`) or without (the most
    ///   recent one not after today);
    /// - moments: `now`; ISO 8601 date-times (`2026-01-05T21:30`, `…:SS`, `…:SS.fff`, `T` or a
    ///   space, optional `Z`/`±HH:MM`/`±HHMM`/`±HH`); any day form followed by a time
    ///   (`yesterday at 9:30 pm`, `nov 5 21:00`, `friday noon`); a time alone (`9pm`, `21:00`,
    ///   `midnight`: today at that time);
    /// - runs of days: `YYYY`, `YYYY-MM`, a month and a year (`nov 2026`), `this week`,
    ///   `last week`, `this month`, `last month`, `this year`, `last year`.
    ///
    /// With a `DateOrder`, also a day written in numbers (`5/11/2026`, `2026/11/05`), read in
    /// that order; one the order cannot read (`13/05/2026` month first) is an error saying so,
    /// never the other order's day. Without one, such dates are not read.
    public static func parse(_ text: String, now: Instant, zone: TimeZone, order: DateOrder? = nil) throws(DateExpressionError) -> DateExpression {
        guard let parser = DateExpressionParser(text: text, now: now, zone: zone, order: order) else {
            throw DateExpressionError(input: text)
        }
        guard let result = parser.parse() else {
            if let order, case .impossible(let otherwise) = parser.numericDate(order: order) {
                throw DateExpressionError(input: text, misread: .init(order: order, otherwise: otherwise))
            }
            throw DateExpressionError(input: text)
        }
        return result
    }

    /// jrnl's leading date: when the text before the first `": "` of `text` names a day or a
    /// moment, that date and the text after the `": "`; otherwise nil, and `text` is all entry.
    ///
    /// Only the first line counts (as in jrnl, whose rule looks at the title), and a run of days
    /// does not count ("Last week: a summary" keeps its title).
    ///
    /// ```swift
    /// DateExpression.leadingDate(of: "yesterday: Went for a walk", now: now, zone: zone)
    /// // (.day(2026-01-04), "Went for a walk")
    /// DateExpression.leadingDate(of: "Note to self: buy milk", now: now, zone: zone)  // nil
    /// ```
    public static func leadingDate(of text: String, now: Instant, zone: TimeZone, order: DateOrder? = nil) -> (date: DateExpression, rest: Substring)? {
        // No date is longer than the parser's limit, so only the start of the text is searched
        // (an entry may be megabytes long).
        guard let separator = text.prefix(maximumInputLength + 2).firstRange(of: ": ") else { return nil }
        let prefix = text[..<separator.lowerBound]
        guard !prefix.isEmpty, !prefix.contains(where: \.isNewline),
              let date = try? parse(String(prefix), now: now, zone: zone, order: order) else { return nil }
        if case .days = date { return nil }
        return (date, text[separator.upperBound...])
    }

    /// The local days this names: the day, the run of days, or a moment's day on its writer's clock.
    public var coveredDays: ClosedRange<CivilDay> {
        switch self {
        case .day(let day): day...day
        case .days(let days): days
        case .instant(let instant): instant.localDay...instant.localDay
        }
    }
}

/// A date argument that matches none of the accepted forms.
public struct DateExpressionError: Error, Equatable, Sendable, CustomStringConvertible {
    public let input: String
    /// Set when `input` is a day in numbers that its `DateOrder` cannot read (`13/05/2026`
    /// month first).
    public let misread: Misread?

    public struct Misread: Equatable, Sendable {
        public let order: DateOrder
        /// The day the other order reads, if it reads one.
        public let otherwise: CivilDay?
    }

    public init(input: String, misread: Misread? = nil) {
        self.input = input
        self.misread = misread
    }

    public var description: String {
        // The input is echoed so the user sees which argument was wrong; a pasted novel is cut
        // short so the sentence stays readable. The forms are too many for one sentence: a few
        // examples (where the rest are listed is the front end's to say).
        let shown = input.count > 100 ? String(input.prefix(100)) + "…" : input
        if let misread {
            let instead = misread.otherwise.map { "; if you meant \($0), write that" } ?? "; write YYYY-MM-DD"
            return "'\(shown)' is no day read \(misread.order.phrase)\(instead)."
        }
        return "Unrecognised date '\(shown)': try YYYY-MM-DD, 'yesterday 9pm', '3 days ago', 'nov 5' or 'last month'."
    }
}

// MARK: - Parser

/// Longer inputs are rejected before any work: no valid form comes close, and it bounds the
/// cost of fuzzed input.
private let maximumInputLength = 100
private let maximumDaysAgo = 100_000

/// A hand-written recogniser over whitespace-separated ASCII tokens. Every step returns nil on
/// anything unexpected; `DateExpression.parse` turns nil into the one error.
private struct DateExpressionParser {
    private let tokens: [[UInt8]]
    private let now: Instant
    private let today: CivilDay
    private let zone: TimeZone
    private let order: DateOrder?

    init?(text: String, now: Instant, zone: TimeZone, order: DateOrder?) {
        guard text.utf8.count <= maximumInputLength else { return nil }
        // Lowercase ASCII only: `String.lowercased()` would turn e.g. "İ" into "i" plus a
        // combining mark, and non-ASCII can never be part of a valid form anyway.
        let bytes = text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
        tokens = bytes.split(whereSeparator: isSpace).map(Array.init)
        guard !tokens.isEmpty else { return nil }
        self.now = now
        today = now.localDay
        self.zone = zone
        self.order = order
    }

    /// The first token as a day in numbers (`5/11/2026`) in `order`.
    func numericDate(order: DateOrder) -> DateOrder.Reading {
        order.day(of: tokens[0])
    }

    func parse() -> DateExpression? {
        if tokens == [word("now")] { return .instant(now) }
        if let moment = momentAgo() { return .instant(moment) }
        if let days = runOfDays() { return .days(days) }
        // A time alone is today at that time; an offset belongs to ISO 8601 date-times only.
        if let time = timeOfDay(from: tokens[...]) {
            return time.offsetSeconds == nil ? instant(on: today, at: time) : nil
        }
        guard let (date, rest) = datePart() else { return partOfDay() ?? timeBeforeDay() }
        switch date {
        case .isoDateTime(let day, let timeText):
            // The whole date-time was one token: nothing may follow it.
            guard rest.isEmpty, let time = TimeOfDay(timeText), time.hourDigits == 2,
                  !time.hadMeridiem else { return nil }
            return instant(on: day, at: time)
        case .day(let day, let isISO):
            if rest.isEmpty { return .day(day) }
            let hasAt = rest.first == word("at")
            let timeTokens = hasAt ? rest.dropFirst() : rest[...]
            guard let time = timeOfDay(from: timeTokens) else { return nil }
            // An explicit offset belongs to ISO 8601 ("2026-01-05 21:30+09:00"); on
            // "yesterday 21:30Z" or "9pm+01" it is more likely a typo than intent.
            if time.offsetSeconds != nil, !isISO || hasAt || time.hadMeridiem { return nil }
            return instant(on: day, at: time)
        }
    }

    /// jrnl's parts of the day, at parsedatetime's hours: `this morning` (06:00), `this
    /// afternoon` (13:00), `this evening` (18:00), `tonight` (21:00), `last night` (yesterday 21:00).
    private func partOfDay() -> DateExpression? {
        if tokens == [word("tonight")] { return instant(on: today, at: TimeOfDay(hour: 21)) }
        let hours = [word("morning"): 6, word("afternoon"): 13, word("evening"): 18, word("night"): 21]
        guard tokens.count == 2, let hour = hours[tokens[1]] else { return nil }
        if tokens[0] == word("this") { return instant(on: today, at: TimeOfDay(hour: hour)) }
        if tokens[0] == word("last"), hour == 21 { return instant(on: today.adding(days: -1), at: TimeOfDay(hour: hour)) }
        return nil
    }

    /// A time before its day (`noon yesterday`, `9pm friday`): read as the day, then the time.
    private func timeBeforeDay() -> DateExpression? {
        guard tokens.count >= 2, timeOfDay(from: tokens.prefix(1)) != nil, timeOfDay(from: tokens.dropFirst().prefix(1)) == nil else {
            return nil
        }
        let reordered = (tokens.dropFirst() + tokens.prefix(1)).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
        guard let date = DateExpressionParser(text: reordered, now: now, zone: zone, order: order)?.parse(), case .instant = date else { return nil }
        return date
    }

    // MARK: Runs of days

    /// The whole input as a year (`2026`, `this year`, `last year`), a month (`2026-11`,
    /// `nov 2026`, `this month`, `last month`) or an ISO week (`this week`, `last week`).
    private func runOfDays() -> ClosedRange<CivilDay>? {
        switch tokens.count {
        case 1:
            let token = tokens[0]
            if let year = number(token[...], digits: 4...4) { return Self.wholeYear(year) }
            guard token.count == 7, token[4] == UInt8(ascii: "-"), let year = number(token[0..<4], digits: 4...4),
                  let month = number(token[5...], digits: 2...2) else { return nil }
            return Self.wholeMonth(month, of: year)
        case 2:
            if let month = Self.month(named: tokens[0]) {
                return number(tokens[1][...], digits: 4...4).flatMap { Self.wholeMonth(month, of: $0) }
            }
            let back: Int
            switch tokens[0] {
            case word("this"): back = 0
            case word("last"): back = 1
            default: return nil
            }
            switch tokens[1] {
            case word("week"):
                let monday = today.adding(days: 1 - today.isoWeekday - 7 * back)
                return monday...monday.adding(days: 6)
            case word("month"):
                let months = today.year * 12 + today.month - 1 - back
                return Self.wholeMonth(months % 12 + 1, of: months / 12)
            case word("year"):
                return Self.wholeYear(today.year - back)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    private static func wholeYear(_ year: Int) -> ClosedRange<CivilDay>? {
        guard let first = CivilDay(year: year, month: 1, day: 1), let last = CivilDay(year: year, month: 12, day: 31) else {
            return nil
        }
        return first...last
    }

    private static func wholeMonth(_ month: Int, of year: Int) -> ClosedRange<CivilDay>? {
        guard let first = CivilDay(year: year, month: month, day: 1) else { return nil }
        return first...first.adding(days: CivilDay.daysIn(month: month, year: year) - 1)
    }

    // MARK: Date part

    private enum DatePart {
        case day(CivilDay, isISO: Bool)
        /// `YYYY-MM-DDT…`: the time is glued to the date in the same token.
        case isoDateTime(CivilDay, time: ArraySlice<UInt8>)
    }

    /// Recognises the leading date form and returns the tokens after it.
    private func datePart() -> (DatePart, ArraySlice<[UInt8]>)? {
        let first = tokens[0]
        let afterFirst = tokens.dropFirst()

        switch first {
        case word("today"): return (.day(today, isISO: false), afterFirst)
        case word("yesterday"): return (.day(today.adding(days: -1), isISO: false), afterFirst)
        case word("tomorrow"): return (.day(today.adding(days: 1), isISO: false), afterFirst)
        default: break
        }

        if let weekday = Self.weekday(first) {
            return (.day(mostRecent(weekday), isISO: false), afterFirst)
        }
        if first == word("last") {
            guard tokens.count >= 2, let weekday = Self.weekday(tokens[1]) else { return nil }
            // As jrnl reads it: that day of last week (Monday to Sunday), as 'last week' is.
            let lastMonday = today.adding(days: 1 - today.isoWeekday - 7)
            return (.day(lastMonday.adding(days: weekday - 1), isISO: false), tokens.dropFirst(2))
        }
        if first == word("next") {
            guard tokens.count >= 2, let weekday = Self.weekday(tokens[1]) else { return nil }
            let ahead = (weekday - today.isoWeekday + 7) % 7
            return (.day(today.adding(days: ahead == 0 ? 7 : ahead), isISO: false), tokens.dropFirst(2))
        }
        if first == word("in") {
            guard tokens.count >= 3, let count = number(tokens[1][...], digits: 1...6), count <= maximumDaysAgo,
                  let unit = Self.daysPerUnit(tokens[2]) else { return nil }
            return (.day(today.adding(days: count * unit), isISO: false), tokens.dropFirst(3))
        }
        if tokens.count >= 2, Self.month(named: first) != nil || Self.month(named: tokens[1]) != nil {
            return monthAndDay().map { (.day($0, isISO: false), $1) }
        }
        // At most six digits are converted, so "99999999999999999999 days ago" is an error
        // rather than an overflow.
        if let count = number(first[...], digits: 1...6) {
            guard tokens.count >= 3, tokens[2] == word("ago"), count <= maximumDaysAgo, let unit = Self.daysPerUnit(tokens[1]) else {
                return nil
            }
            return (.day(today.adding(days: -count * unit), isISO: false), tokens.dropFirst(3))
        }

        if let order, case .day(let day) = numericDate(order: order) {
            return (.day(day, isISO: false), afterFirst)
        }
        // ISO: exactly ten bytes of date, optionally followed by `T` and a time in the same token.
        guard first.count >= 10, let day = CivilDay(iso: String(decoding: first[0..<10], as: UTF8.self)) else {
            return nil
        }
        if first.count == 10 { return (.day(day, isISO: true), afterFirst) }
        guard first[10] == UInt8(ascii: "t") else { return nil }
        return (.isoDateTime(day, time: first[11...]), afterFirst)
    }

    /// 1 for `day`/`days`, 7 for `week`/`weeks`.
    private static func daysPerUnit(_ token: [UInt8]) -> Int? {
        switch token {
        case word("day"), word("days"): 1
        case word("week"), word("weeks"): 7
        default: nil
        }
    }

    /// The whole input as `an hour ago`, `3 hours ago` or `20 minutes ago`: that moment.
    private func momentAgo() -> Instant? {
        guard tokens.count == 3, tokens[2] == word("ago"),
              let count = [word("a"), word("an")].contains(tokens[0]) ? 1 : number(tokens[0][...], digits: 1...6) else { return nil }
        let seconds: Int
        switch tokens[1] {
        case word("hour"), word("hours"): seconds = 3600
        case word("minute"), word("minutes"): seconds = 60
        default: return nil
        }
        return Instant(Date(timeIntervalSince1970: Double(now.millis) / 1000 - Double(count * seconds)), zone: zone)
    }

    /// `nov 5`, `5 november`, `november 5th`, optionally followed by a year (`nov 5 2025`,
    /// `nov 5, 2025`). Without a year it is the most recent such day not after today, as in
    /// jrnl: in March, "nov 5" is last November's.
    private func monthAndDay() -> (CivilDay, ArraySlice<[UInt8]>)? {
        let monthFirst = Self.month(named: tokens[0]) != nil
        guard let month = Self.month(named: monthFirst ? tokens[0] : tokens[1]) else { return nil }
        let year = tokens.count >= 3 ? number(tokens[2][...], digits: 4...4) : nil
        var dayToken = (monthFirst ? tokens[1] : tokens[0])[...]
        // "November 5, 2025", the way it is written in English.
        if monthFirst, year != nil, dayToken.last == UInt8(ascii: ",") { dayToken = dayToken.dropLast() }
        guard let dayOfMonth = Self.dayOfMonth(dayToken) else { return nil }
        if let year {
            return CivilDay(year: year, month: month, day: dayOfMonth).map { ($0, tokens.dropFirst(3)) }
        }
        return mostRecent(month: month, day: dayOfMonth).map { ($0, tokens.dropFirst(2)) }
    }

    /// The latest `month`-`day` not after today. February 29 goes back to the last leap year;
    /// leap years are at most eight years apart.
    private func mostRecent(month: Int, day: Int) -> CivilDay? {
        for year in stride(from: today.year, through: max(1, today.year - 8), by: -1) {
            if let date = CivilDay(year: year, month: month, day: day), date <= today { return date }
        }
        return nil
    }

    /// 1 = January … 12 = December, from the full name or its first three letters (and `sept`).
    private static func month(named token: [UInt8]) -> Int? {
        let names = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"]
        if token == word("sept") { return 9 }
        for (index, name) in names.enumerated() where token == word(name) || token == word(String(name.prefix(3))) {
            return index + 1
        }
        return nil
    }

    /// `5`, `05` or `5th` (any of st, nd, rd, th): a day of the month, checked against the month later.
    private static func dayOfMonth(_ token: ArraySlice<UInt8>) -> Int? {
        var scanner = ByteScanner(token)
        guard let (day, _) = scanner.digits(1...2) else { return nil }
        _ = scanner.skip("st") || scanner.skip("nd") || scanner.skip("rd") || scanner.skip("th")
        return scanner.isAtEnd ? day : nil
    }

    /// The value of a token made of exactly `digits` decimal digits (never converted when longer).
    private func number(_ token: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        var scanner = ByteScanner(token)
        guard let (value, _) = scanner.digits(digits), scanner.isAtEnd else { return nil }
        return value
    }

    /// 1 = Monday … 7 = Sunday, matching `CivilDay.isoWeekday`.
    private static func weekday(_ token: [UInt8]) -> Int? {
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        for (index, name) in names.enumerated() where token == word(name) || token == word(String(name.prefix(3))) {
            return index + 1
        }
        return nil
    }

    /// "friday" on a Friday means today (the user is most likely talking about this week).
    private func mostRecent(_ weekday: Int) -> CivilDay {
        today.adding(days: -((today.isoWeekday - weekday + 7) % 7))
    }

    // MARK: Time part

    /// The tokens after the date (and after `at`): `21:30`, `9pm`, `9:30` `pm`, `noon` or
    /// `midnight` (the start of the day, 00:00).
    private func timeOfDay(from tokens: ArraySlice<[UInt8]>) -> TimeOfDay? {
        switch tokens.count {
        case 1:
            switch tokens[tokens.startIndex] {
            case word("noon"): return TimeOfDay(hour: 12)
            case word("midnight"): return TimeOfDay(hour: 0)
            case let token: return TimeOfDay(token[...])
            }
        case 2:
            // "9 pm": glue the meridiem back on so one scanner handles both spellings.
            let meridiem = tokens[tokens.startIndex + 1]
            guard meridiem == word("am") || meridiem == word("pm") else { return nil }
            let glued = tokens[tokens.startIndex] + meridiem
            // "9pm pm" would glue into something the scanner rejects anyway.
            return TimeOfDay(glued[...])
        default:
            return nil
        }
    }

    /// The instant for a wall-clock time on `day`: at the explicit offset if there is one,
    /// otherwise as `zone` reads that wall-clock time.
    private func instant(on day: CivilDay, at time: TimeOfDay) -> DateExpression {
        let localSeconds = Int64(day.daysSinceEpoch) * 86_400 + Int64(time.secondsOfDay)
        let (utcSeconds, offset) = time.offsetSeconds.map { (localSeconds - Int64($0), $0) }
            ?? DateExpression.resolve(localSeconds: localSeconds, in: zone)
        let instant = Instant(millis: utcSeconds * 1000 + Int64(time.milliseconds), utcOffsetSeconds: offset)
        return .instant(instant)
    }
}

extension DateExpression {
    /// The moment this names: an instant as it is, a day (a run of days: its first) at
    /// `secondsOfDay` after midnight on `zone`'s clocks (so `--at 2026-01-05` means 09:00 that
    /// day where the user is).
    public func instant(atSecondsOfDay secondsOfDay: Int, zone: TimeZone) -> Instant {
        if case .instant(let instant) = self { return instant }
        let day = coveredDays.lowerBound
        let (utc, offset) = Self.resolve(localSeconds: Int64(day.daysSinceEpoch) * 86_400 + Int64(secondsOfDay), in: zone)
        return Instant(millis: utc * 1000, utcOffsetSeconds: offset)
    }

    /// The UTC moment (and `zone`'s offset then) at which `zone`'s clocks show `local`.
    ///
    /// A local time normally maps to one moment. Around a DST change it can map to two (the
    /// clock is set back: take the earlier, as a user typing "02:30" on that night most likely
    /// means the first one) or to none (the clock jumps forward: read it with the offset from
    /// before the jump, which lands as many minutes after the jump as the time was into the
    /// gap, 02:30 → 03:30 — the same choice Foundation's Calendar makes).
    ///
    /// The offsets a day either side cover both sides of any single transition near the time.
    static func resolve(localSeconds local: Int64, in zone: TimeZone) -> (utcSeconds: Int64, offset: Int) {
        func offset(atUTC seconds: Int64) -> Int {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        let before = offset(atUTC: local - 86_400)
        let after = offset(atUTC: local + 86_400)
        let consistent = [before, after, offset(atUTC: local)].filter { offset(atUTC: local - Int64($0)) == $0 }
        // Of two readings, the earlier moment is the one with the larger offset.
        if let best = consistent.max() { return (local - Int64(best), best) }
        // In a gap: the pre-jump reading is a moment after the jump, so its offset is the new one.
        let utc = local - Int64(before)
        return (utc, offset(atUTC: utc))
    }
}

// MARK: - Time of day scanner

/// `H:MM`, `HH:MM`, `HH:MM:SS`, `HH:MM:SS.fffffffff`, `9pm`, `9:30am`, each optionally
/// followed by `z`, `±HH:MM`, `±HHMM` or `±HH`. The callers decide which combinations their
/// form allows; this only checks that the pieces are well-formed and in range.
private struct TimeOfDay {
    /// 0…23, after applying am/pm.
    var hour = 0, minute = 0, second = 0, milliseconds = 0
    /// How the hour was written: ISO 8601 requires two digits.
    var hourDigits = 0
    var hadMeridiem = false
    var offsetSeconds: Int?

    var secondsOfDay: Int { hour * 3600 + minute * 60 + second }

    /// A whole hour said in words (`noon`, `midnight`).
    init(hour: Int) {
        self.hour = hour
    }

    init?(_ text: ArraySlice<UInt8>) {
        var scanner = ByteScanner(text)

        // Digit runs are length-limited before conversion, so no input can overflow.
        guard let (hour, hourDigits) = scanner.digits(1...2) else { return nil }
        self.hourDigits = hourDigits
        var hasMinutes = false
        if scanner.skip(":") {
            guard let (minute, _) = scanner.digits(2...2) else { return nil }
            self.minute = minute
            hasMinutes = true
            if scanner.skip(":") {
                guard let (second, _) = scanner.digits(2...2) else { return nil }
                self.second = second
                if scanner.skip(".") {
                    // Keep milliseconds and truncate finer digits: the vault stores millis.
                    guard let (fraction, count) = scanner.digits(1...9) else { return nil }
                    var scale = 1
                    for _ in count..<9 { scale *= 10 }
                    milliseconds = fraction * scale / 1_000_000
                }
            }
        }

        var isPM = false
        if scanner.skip("am") {
            hadMeridiem = true
        } else if scanner.skip("pm") {
            hadMeridiem = true
            isPM = true
        }
        // A bare hour ("21") is too ambiguous to accept; "9pm" is not.
        guard hasMinutes || hadMeridiem else { return nil }

        if scanner.skip("z") {
            offsetSeconds = 0
        } else if let sign = scanner.sign() {
            guard let offset = scanner.offset() else { return nil }
            offsetSeconds = sign * offset
        }
        guard scanner.isAtEnd, minute < 60, second < 60 else { return nil }

        if hadMeridiem {
            // 12-hour clock: 1…12 only ("0am" and "13pm" are mistakes); 12am is midnight.
            guard (1...12).contains(hour) else { return nil }
            self.hour = hour % 12 + (isPM ? 12 : 0)
        } else {
            guard hour < 24 else { return nil }
            self.hour = hour
        }
    }
}

/// A cursor over ASCII bytes with the few primitives the time scanner needs.
private struct ByteScanner {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var isAtEnd: Bool { index == bytes.endIndex }

    /// A run of decimal digits whose length is in `count`, with its value. A longer run is
    /// rejected outright (not read as a shorter number followed by junk), and never converted.
    mutating func digits(_ count: ClosedRange<Int>) -> (value: Int, count: Int)? {
        let start = index
        while index < bytes.endIndex, isDigit(bytes[index]) {
            index += 1
            guard index - start <= count.upperBound else { return nil }
        }
        guard count.contains(index - start) else { return nil }
        let value = bytes[start..<index].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (value, index - start)
    }

    mutating func skip(_ literal: String) -> Bool {
        guard bytes[index...].starts(with: literal.utf8) else { return false }
        index += literal.utf8.count
        return true
    }

    /// `+` → 1, `-` → -1, anything else → nil without moving.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    /// The magnitude of a UTC offset after its sign, in seconds: `HH:MM`, `HHMM` or `HH`,
    /// at most 18:00 (the ISO 8601 / java.time limit; real zones stay within ±14:00).
    mutating func offset() -> Int? {
        guard let (value, count) = digits(2...4), count != 3 else { return nil }
        var hours = value, minutes = 0
        if count == 4 {
            hours = value / 100
            minutes = value % 100
        } else if skip(":") {
            guard let (value, _) = digits(2...2) else { return nil }
            minutes = value
        }
        let seconds = hours * 3600 + minutes * 60
        guard minutes < 60, seconds <= 18 * 3600 else { return nil }
        return seconds
    }
}

// MARK: - Helpers

private func word(_ text: String) -> [UInt8] { Array(text.utf8) }

private func isSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
}

private func isDigit(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
}
