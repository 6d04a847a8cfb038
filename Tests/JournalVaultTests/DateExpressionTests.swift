// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
@testable import JournalVault

/// Expected values are written out from known epoch seconds (checked with `date -u -d … +%s`),
/// never computed by the code under test.
@Suite struct DateExpressionTests {
    // 2026-01-05T00:00:00Z, a Monday.
    static let jan5UTC: Int64 = 1_767_571_200
    static let utc = TimeZone(identifier: "UTC")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// 2026-01-05T12:00Z seen from UTC+1: a Monday, local day 2026-01-05.
    static let mondayNoon = Instant(millis: (jan5UTC + 12 * 3600) * 1000, utcOffsetSeconds: 3600)

    func day(_ y: Int, _ m: Int, _ d: Int) -> DateExpression { .day(CivilDay(year: y, month: m, day: d)!) }

    func parse(_ text: String, now: Instant = mondayNoon, zone: TimeZone = utc) throws -> DateExpression {
        try DateExpression.parse(text, now: now, zone: zone)
    }

    func expectError(_ text: String, now: Instant = mondayNoon, zone: TimeZone = utc,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: DateExpressionError(input: text), "\(text)", sourceLocation: sourceLocation) {
            try DateExpression.parse(text, now: now, zone: zone)
        }
    }

    /// The instant `seconds` (UTC) plus `millis`, recorded at `offset`.
    func instant(_ seconds: Int64, millis: Int64 = 0, offset: Int) -> DateExpression {
        .instant(Instant(millis: seconds * 1000 + millis, utcOffsetSeconds: offset))
    }

    // MARK: Form 1: YYYY-MM-DD

    @Test func isoDate() throws {
        #expect(try parse("2026-01-05") == day(2026, 1, 5))
        #expect(try parse("  2024-02-29\t") == day(2024, 2, 29))
        #expect(try parse("0001-01-01") == day(1, 1, 1))
        #expect(try parse("9999-12-31") == day(9999, 12, 31))
    }

    @Test func invalidCalendarDates() {
        for text in ["2026-02-30", "2026-02-29", "2026-13-01", "2026-00-10", "2026-01-00", "2026-04-31",
                     "0000-01-01", "2026-1-5", "2026-01-5", "26-01-05", "2026/01/05", "20260105", "2026-01-05-"] {
            expectError(text)
        }
    }

    // MARK: Days in numbers, in a DateOrder

    @Test func numericDatesInEachOrder() throws {
        func parse(_ text: String, _ order: DateOrder) throws -> DateExpression {
            try DateExpression.parse(text, now: Self.mondayNoon, zone: Self.utc, order: order)
        }
        #expect(try parse("5/11/2026", .mdy) == day(2026, 5, 11))
        #expect(try parse("5.11.2026", .dmy) == day(2026, 11, 5))
        #expect(try parse("05/11/2026 9pm", .dmy) == instant(1_793_912_400, offset: 0), "2026-11-05T21:00Z")
        for order in DateOrder.allCases {
            #expect(try parse("2026/11/05", order) == day(2026, 11, 5), "year first in every order")
            #expect(try parse("2026.1.5", order) == day(2026, 1, 5))
            #expect(try parse("2026-01-05", order) == day(2026, 1, 5), "ISO stays ISO")
            #expect(try parse("5/5/2026", order) == day(2026, 5, 5), "the same both ways")
            // Without the order's reading, or without a year in full, it is no date.
            for text in ["5/11", "1/2", "5/11/26", "31/31/2026", "5-11-2026", "5/11.2026", "2026/02/30", "//2026", "5/11/2026/1"] {
                #expect(throws: DateExpressionError(input: text), "\(text) \(order)") { try parse(text, order) }
            }
        }
        // A reading the order makes impossible is refused, saying the other reading; never swapped.
        let misread = { (text: String, order: DateOrder, otherwise: CivilDay?) in
            DateExpressionError(input: text, misread: .init(order: order, otherwise: otherwise))
        }
        #expect(throws: misread("13/05/2026", .mdy, CivilDay(year: 2026, month: 5, day: 13))) { try parse("13/05/2026", .mdy) }
        #expect(throws: misread("5/13/2026", .dmy, CivilDay(year: 2026, month: 5, day: 13))) { try parse("5/13/2026", .dmy) }
        #expect(throws: misread("5/11/2026", .ymd, nil)) { try parse("5/11/2026", .ymd) }
        // Without an order (the import formats' dates), days in numbers are not read at all.
        expectError("5/11/2026")
        expectError("2026/11/05")
    }

    // MARK: Form 2: ISO 8601 date-time

    @Test func isoDateTimeWithOffsets() throws {
        let jan5_1430Z = Self.jan5UTC + 14 * 3600 + 30 * 60
        let result = try parse("2026-01-05T23:30+09:00")
        #expect(result == instant(jan5_1430Z, offset: 9 * 3600))
        if case .instant(let moment) = result {
            #expect(moment.localDay == CivilDay(year: 2026, month: 1, day: 5))
        }
        #expect(try parse("2026-01-05T23:30+0900") == instant(jan5_1430Z, offset: 9 * 3600))
        #expect(try parse("2026-01-05T23:30+09") == instant(jan5_1430Z, offset: 9 * 3600))
        #expect(try parse("2026-01-05T14:30Z") == instant(jan5_1430Z, offset: 0))
        #expect(try parse("2026-01-05t14:30z") == instant(jan5_1430Z, offset: 0))
        #expect(try parse("2026-01-05T14:30-00:00") == instant(jan5_1430Z, offset: 0))
        // Negative offset: 09:30 at -05:00 is 14:30Z.
        #expect(try parse("2026-01-05T09:30-05:00") == instant(jan5_1430Z, offset: -5 * 3600))
        // Half-hour offsets and ones that cross a day boundary.
        #expect(try parse("2026-01-05T20:00+05:30") == instant(jan5_1430Z, offset: 5 * 3600 + 1800))
        #expect(try parse("2026-01-04T22:00-16:30") == instant(jan5_1430Z, offset: -(16 * 3600 + 1800)))
        // The extreme offsets.
        #expect(try parse("2026-01-05T00:00+18:00") == instant(Self.jan5UTC - 18 * 3600, offset: 18 * 3600))
        #expect(try parse("2026-01-05T00:00-1800") == instant(Self.jan5UTC + 18 * 3600, offset: -18 * 3600))
        // The offset wins over `zone`.
        #expect(try parse("2026-01-05T14:30Z", zone: Self.berlin) == instant(jan5_1430Z, offset: 0))
    }

    @Test func isoDateTimePrecision() throws {
        let base = Self.jan5UTC + 21 * 3600 + 30 * 60
        #expect(try parse("2026-01-05T21:30") == instant(base, offset: 0))
        #expect(try parse("2026-01-05T21:30:15") == instant(base + 15, offset: 0))
        #expect(try parse("2026-01-05T21:30:15.5") == instant(base + 15, millis: 500, offset: 0))
        #expect(try parse("2026-01-05T21:30:15.12") == instant(base + 15, millis: 120, offset: 0))
        #expect(try parse("2026-01-05T21:30:15.123") == instant(base + 15, millis: 123, offset: 0))
        // Finer digits are truncated, not rounded.
        #expect(try parse("2026-01-05T21:30:15.123999999Z") == instant(base + 15, millis: 123, offset: 0))
        #expect(try parse("2026-01-05T21:30:15.9999") == instant(base + 15, millis: 999, offset: 0))
        #expect(try parse("2026-01-05T00:00:00.000") == instant(Self.jan5UTC, offset: 0))
        #expect(try parse("2026-01-05T23:59:59.999") == instant(Self.jan5UTC + 86_399, millis: 999, offset: 0))
    }

    @Test func isoDateTimeWithSpaceSeparator() throws {
        let base = Self.jan5UTC + 21 * 3600 + 30 * 60
        #expect(try parse("2026-01-05 21:30") == instant(base, offset: 0))
        #expect(try parse("2026-01-05   21:30:15.250Z") == instant(base + 15, millis: 250, offset: 0))
        #expect(try parse("2026-01-05 22:30+01:00") == instant(base, offset: 3600))
        // Berlin winter time is UTC+1.
        #expect(try parse("2026-01-05 21:30", zone: Self.berlin) == instant(base - 3600, offset: 3600))
        #expect(try parse("2026-01-05T21:30", zone: Self.berlin) == instant(base - 3600, offset: 3600))
        // New York winter time is UTC-5.
        #expect(try parse("2026-01-05 21:30", zone: Self.newYork) == instant(base + 5 * 3600, offset: -5 * 3600))
    }

    @Test func malformedDateTimes() {
        for text in ["2026-01-05T", "2026-01-05T21", "2026-01-05T9:30", "2026-01-05T21:3", "2026-01-05T21:300",
                     "2026-01-05T24:00", "2026-01-05T21:60", "2026-01-05T21:30:60", "2026-01-05T21:30:5",
                     "2026-01-05T21:30.5", "2026-01-05T21:30:15.", "2026-01-05T21:30:15.1234567890",
                     "2026-01-05T21:30pm", "2026-01-05T9pm", "2026-01-05T21:30+18:01", "2026-01-05T21:30+19",
                     "2026-01-05T21:30+9", "2026-01-05T21:30+090", "2026-01-05T21:30+09:0", "2026-01-05T21:30+09:",
                     "2026-01-05T21:30+09:60", "2026-01-05T21:30+", "2026-01-05T21:30zz", "2026-01-05T21:30 Z",
                     "2026-01-05T21:30 +09:00", "2026-01-05TT21:30", "2026-01-05X21:30", "2026-01-05T21:30 pm",
                     "2026-01-05 21:30 +09:00", "2026-01-05 at 21:30Z", "2026-01-05 9pm+01:00",
                     "2026-02-30T10:00", "2026-01-05T-1:00", "2026-01-05T21:30Z extra"] {
            expectError(text)
        }
    }

    // MARK: DST

    @Test func berlinSpringForwardGapMovesForward() throws {
        // 2026-03-29: 02:00 CET jumps to 03:00 CEST (01:00Z). 02:30 does not exist; it is read
        // as 03:30 CEST = 01:30Z.
        #expect(try parse("2026-03-29T02:30", zone: Self.berlin) == instant(1_774_747_800, offset: 7200))
        #expect(try parse("2026-03-29 02:00", zone: Self.berlin) == instant(1_774_746_000, offset: 7200))
        // Either side of the gap is ordinary.
        #expect(try parse("2026-03-29T01:59", zone: Self.berlin) == instant(1_774_745_940, offset: 3600))
        #expect(try parse("2026-03-29T03:00", zone: Self.berlin) == instant(1_774_746_000, offset: 7200))
    }

    @Test func berlinFallBackOverlapTakesEarlier() throws {
        // 2026-10-25: 03:00 CEST goes back to 02:00 CET (01:00Z). 02:30 happens twice; the
        // first time is 00:30Z (+02:00).
        #expect(try parse("2026-10-25T02:30", zone: Self.berlin) == instant(1_792_888_200, offset: 7200))
        #expect(try parse("2026-10-25T03:00", zone: Self.berlin) == instant(1_792_893_600, offset: 3600))
        #expect(try parse("2026-10-25T01:59", zone: Self.berlin) == instant(1_792_886_340, offset: 7200))
    }

    @Test func newYorkTransitions() throws {
        // 2026-03-08: 02:00 EST jumps to 03:00 EDT. 02:30 → 03:30 EDT = 07:30Z.
        #expect(try parse("2026-03-08T02:30", zone: Self.newYork) == instant(1_772_955_000, offset: -4 * 3600))
        // 2026-11-01: 02:00 EDT goes back to 01:00 EST. 01:30 first happens at 05:30Z (EDT).
        #expect(try parse("2026-11-01T01:30", zone: Self.newYork) == instant(1_793_511_000, offset: -4 * 3600))
        #expect(try parse("2026-11-01T02:30", zone: Self.newYork) == instant(1_793_511_000 + 2 * 3600, offset: -5 * 3600))
        // Summer: EDT, UTC-4.
        #expect(try parse("2026-07-04 12:00", zone: Self.newYork) == instant(1_783_180_800, offset: -4 * 3600))
    }

    /// Every quarter hour of each 2026 transition day agrees with Foundation's Calendar, which
    /// makes the same choices (gap: forward by the gap; overlap: the earlier moment). Lord Howe
    /// has a 30-minute DST shift, Kolkata none.
    @Test(arguments: [
        ("Europe/Berlin", [(3, 29), (10, 25)]),
        ("America/New_York", [(3, 8), (11, 1)]),
        ("Australia/Sydney", [(4, 5), (10, 4)]),
        ("Australia/Lord_Howe", [(4, 5), (10, 4)]),
        ("Asia/Kolkata", [(3, 29)]),
    ])
    func agreesWithCalendarAroundTransitions(zoneID: String, days: [(Int, Int)]) throws {
        let zone = try #require(TimeZone(identifier: zoneID))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        for (month, dayOfMonth) in days {
            for quarter in 0..<96 {
                let (hour, minute) = (quarter / 4, quarter % 4 * 15)
                let text = String(format: "2026-%02d-%02dT%02d:%02d", month, dayOfMonth, hour, minute)
                let components = DateComponents(year: 2026, month: month, day: dayOfMonth, hour: hour, minute: minute)
                let expected = try #require(calendar.date(from: components))
                let result = try parse(text, zone: zone)
                #expect(result == .instant(Instant(expected, zone: zone)), "\(zoneID) \(text)")
            }
        }
    }

    @Test func relativeDayWithTimeInDSTGap() throws {
        // now = 2026-03-29T12:00Z, Berlin summer time.
        let now = Instant(millis: 1_774_785_600_000, utcOffsetSeconds: 7200)
        #expect(try parse("today 2:30", now: now, zone: Self.berlin) == instant(1_774_747_800, offset: 7200))
        #expect(try parse("today 2:30am", now: now, zone: Self.berlin) == instant(1_774_747_800, offset: 7200))
    }

    // MARK: Form 3: today, yesterday, tomorrow

    @Test func relativeDays() throws {
        #expect(try parse("today") == day(2026, 1, 5))
        #expect(try parse("TODAY") == day(2026, 1, 5))
        #expect(try parse("Yesterday") == day(2026, 1, 4))
        #expect(try parse(" tomorrow ") == day(2026, 1, 6))
    }

    @Test func todayFollowsTheLocalDayOfNow() throws {
        // 23:30Z on Jan 5 is already Jan 6 at UTC+1, and still Jan 5 at UTC-5.
        let late = Self.jan5UTC + 23 * 3600 + 1800
        #expect(try parse("today", now: Instant(millis: late * 1000, utcOffsetSeconds: 3600)) == day(2026, 1, 6))
        #expect(try parse("today", now: Instant(millis: late * 1000, utcOffsetSeconds: -5 * 3600)) == day(2026, 1, 5))
    }

    @Test func monthAndYearBoundaries() throws {
        func noon(_ y: Int, _ m: Int, _ d: Int) -> Instant {
            Instant.startOf(CivilDay(year: y, month: m, day: d)!, utcOffsetSeconds: 0).adding(hours: 12)
        }
        #expect(try parse("yesterday", now: noon(2026, 3, 1)) == day(2026, 2, 28))
        #expect(try parse("yesterday", now: noon(2024, 3, 1)) == day(2024, 2, 29))
        #expect(try parse("yesterday", now: noon(2026, 1, 1)) == day(2025, 12, 31))
        #expect(try parse("tomorrow", now: noon(2025, 12, 31)) == day(2026, 1, 1))
        #expect(try parse("tomorrow", now: noon(2024, 2, 28)) == day(2024, 2, 29))
        #expect(try parse("1 day ago", now: noon(2024, 3, 1)) == day(2024, 2, 29))
        #expect(try parse("30 days ago", now: noon(2026, 3, 1)) == day(2026, 1, 30))
        #expect(try parse("365 days ago", now: noon(2026, 1, 5)) == day(2025, 1, 5))
        #expect(try parse("366 days ago", now: noon(2025, 1, 5)) == day(2024, 1, 5))
        #expect(try parse("2 weeks ago", now: noon(2026, 1, 5)) == day(2025, 12, 22))
    }

    // MARK: Form 4: N days/weeks ago

    @Test func daysAgo() throws {
        #expect(try parse("0 days ago") == day(2026, 1, 5))
        #expect(try parse("1 day ago") == day(2026, 1, 4))
        #expect(try parse("1 days ago") == day(2026, 1, 4))
        #expect(try parse("3 days ago") == day(2026, 1, 2))
        #expect(try parse("  3    Days   AGO ") == day(2026, 1, 2))
        #expect(try parse("007 days ago") == day(2025, 12, 29))
        #expect(try parse("1 week ago") == day(2025, 12, 29))
        #expect(try parse("2 weeks ago") == day(2025, 12, 22))
        // 100000 days before 2026-01-05 (day 20458) is day -79542: 1752-03-22 (proleptic Gregorian).
        #expect(try parse("100000 days ago") == day(1752, 3, 22))
        #expect(try parse("100000 weeks ago") == day(109, 6, 24))
    }

    @Test func badDaysAgo() {
        for text in ["-3 days ago", "+3 days ago", "100001 days ago", "1000000 days ago",
                     "99999999999999999999999999 days ago", "3 days", "3 ago", "days ago", "3 months ago",
                     "3 days ago ago", "3days ago", "3 days later", "1.5 days ago", "three days ago", "3 days  ago foo",
                     "0x10 days ago", "3 day sago"] {
            expectError(text)
        }
    }

    // MARK: Form 5: weekdays

    @Test func weekdaysWhenTodayIsThatDay() throws {
        // mondayNoon is Monday 2026-01-05.
        #expect(try parse("monday") == day(2026, 1, 5))
        #expect(try parse("Mon") == day(2026, 1, 5))
        #expect(try parse("last monday") == day(2025, 12, 29))
        #expect(try parse("last   mon") == day(2025, 12, 29))
    }

    @Test func weekdaysWhenTodayIsAnotherDay() throws {
        #expect(try parse("sunday") == day(2026, 1, 4))
        #expect(try parse("sun") == day(2026, 1, 4))
        #expect(try parse("last sunday") == day(2026, 1, 4))
        #expect(try parse("saturday") == day(2026, 1, 3))
        #expect(try parse("friday") == day(2026, 1, 2))
        #expect(try parse("thu") == day(2026, 1, 1))
        #expect(try parse("WEDNESDAY") == day(2025, 12, 31))
        #expect(try parse("tue") == day(2025, 12, 30))
        #expect(try parse("tuesday") == day(2025, 12, 30))

        // From Thursday 2026-01-08.
        let thursday = Instant(millis: (Self.jan5UTC + 3 * 86_400 + 3600) * 1000, utcOffsetSeconds: 0)
        #expect(try parse("thursday", now: thursday) == day(2026, 1, 8))
        #expect(try parse("last thursday", now: thursday) == day(2026, 1, 1))
        #expect(try parse("fri", now: thursday) == day(2026, 1, 2))
        #expect(try parse("wed", now: thursday) == day(2026, 1, 7))
        // jrnl's "last wednesday": Wednesday of last week, not yesterday.
        #expect(try parse("last wed", now: thursday) == day(2025, 12, 31))
        #expect(try parse("mon", now: thursday) == day(2026, 1, 5))
        // jrnl's "next friday": the first one after today.
        #expect(try parse("next fri", now: thursday) == day(2026, 1, 9))
        #expect(try parse("next thursday", now: thursday) == day(2026, 1, 15))
    }

    @Test func badWeekdays() {
        for text in ["last", "last today", "last 3 days ago", "next", "next week day", "in 2", "in two days", "mond", "mondays", "monday monday",
                     "last last monday", "tues", "thurs", "lastmonday"] {
            expectError(text)
        }
    }

    // MARK: Form 6: date followed by a time

    @Test func relativeDaysWithTimes() throws {
        let jan4 = Self.jan5UTC - 86_400
        #expect(try parse("yesterday 21:30") == instant(jan4 + 21 * 3600 + 1800, offset: 0))
        #expect(try parse("yesterday at 21:30") == instant(jan4 + 21 * 3600 + 1800, offset: 0))
        #expect(try parse("Yesterday   AT   21:30") == instant(jan4 + 21 * 3600 + 1800, offset: 0))
        #expect(try parse("today 9:05") == instant(Self.jan5UTC + 9 * 3600 + 300, offset: 0))
        #expect(try parse("today 09:05:07") == instant(Self.jan5UTC + 9 * 3600 + 300 + 7, offset: 0))
        #expect(try parse("tomorrow 00:00") == instant(Self.jan5UTC + 86_400, offset: 0))
        #expect(try parse("3 days ago 23:59") == instant(Self.jan5UTC - 3 * 86_400 + 86_340, offset: 0))
        #expect(try parse("1 week ago at 8:00") == instant(Self.jan5UTC - 7 * 86_400 + 8 * 3600, offset: 0))
        #expect(try parse("sunday 18:00") == instant(jan4 + 18 * 3600, offset: 0))
        #expect(try parse("last monday at 7:15") == instant(Self.jan5UTC - 7 * 86_400 + 7 * 3600 + 900, offset: 0))
        #expect(try parse("2026-01-05 at 21:30") == instant(Self.jan5UTC + 21 * 3600 + 1800, offset: 0))
    }

    @Test func twelveHourClock() throws {
        let jan5 = Self.jan5UTC
        #expect(try parse("today 9pm") == instant(jan5 + 21 * 3600, offset: 0))
        #expect(try parse("today 9 pm") == instant(jan5 + 21 * 3600, offset: 0))
        #expect(try parse("today 9PM") == instant(jan5 + 21 * 3600, offset: 0))
        #expect(try parse("today 9:30 pm") == instant(jan5 + 21 * 3600 + 1800, offset: 0))
        #expect(try parse("today at 9:30pm") == instant(jan5 + 21 * 3600 + 1800, offset: 0))
        #expect(try parse("today 9am") == instant(jan5 + 9 * 3600, offset: 0))
        #expect(try parse("today 09:30:10 am") == instant(jan5 + 9 * 3600 + 1810, offset: 0))
        #expect(try parse("today 12am") == instant(jan5, offset: 0))
        #expect(try parse("today 12:30am") == instant(jan5 + 1800, offset: 0))
        #expect(try parse("today 12pm") == instant(jan5 + 12 * 3600, offset: 0))
        #expect(try parse("today 12:59 pm") == instant(jan5 + 12 * 3600 + 59 * 60, offset: 0))
        #expect(try parse("today 11:59pm") == instant(jan5 + 23 * 3600 + 59 * 60, offset: 0))
        #expect(try parse("2026-01-05 9pm") == instant(jan5 + 21 * 3600, offset: 0))
    }

    @Test func timesUseTheZone() throws {
        // Monday 2026-01-05 21:30 in Berlin (UTC+1) and New York (UTC-5).
        #expect(try parse("today 21:30", zone: Self.berlin) == instant(Self.jan5UTC + 20 * 3600 + 1800, offset: 3600))
        #expect(try parse("monday 9:30pm", zone: Self.newYork)
            == instant(Self.jan5UTC + 26 * 3600 + 1800, offset: -5 * 3600))
    }

    @Test func badTimes() {
        for text in ["today 24:00", "today 23:60", "today 12:00:60", "today 13pm", "today 0am", "today 00:30am",
                     "today 21:30 pm", "today 21", "today 9", "today at", "today at at 9pm", "at 21:30",
                     "today 9 p.m.", "today 9 pm pm", "today 9pmpm", "today 9:5", "today 123:00",
                     "today 21:30Z", "yesterday 21:30+01:00", "today 9pm Z", "today foo", "today today",
                     "today 21:30 foo", "today at foo", "today 9 am pm", "today am", "today :30", "today 9:30:"] {
            expectError(text)
        }
    }

    // MARK: Form 7: now, and a time alone

    @Test func nowIsTheMomentItself() throws {
        #expect(try parse("now") == .instant(Self.mondayNoon))
        #expect(try parse(" NOW ") == .instant(Self.mondayNoon))
    }

    @Test func aTimeAloneIsTodayAtThatTime() throws {
        let jan5 = Self.jan5UTC
        #expect(try parse("9pm") == instant(jan5 + 21 * 3600, offset: 0))
        #expect(try parse("9 pm") == instant(jan5 + 21 * 3600, offset: 0))
        #expect(try parse("9:30pm") == instant(jan5 + 21 * 3600 + 1800, offset: 0))
        #expect(try parse("21:00") == instant(jan5 + 21 * 3600, offset: 0))
        #expect(try parse("07:15:30") == instant(jan5 + 7 * 3600 + 930, offset: 0))
        #expect(try parse("noon") == instant(jan5 + 12 * 3600, offset: 0))
        #expect(try parse("Midnight") == instant(jan5, offset: 0))
        // In the zone, on the zone's day: 21:30 Berlin is 20:30Z.
        #expect(try parse("21:30", zone: Self.berlin) == instant(jan5 + 20 * 3600 + 1800, offset: 3600))
    }

    @Test func noonAndMidnightFollowAnyDay() throws {
        let jan4 = Self.jan5UTC - 86_400
        #expect(try parse("yesterday noon") == instant(jan4 + 12 * 3600, offset: 0))
        #expect(try parse("yesterday at midnight") == instant(jan4, offset: 0))
        #expect(try parse("friday midnight") == instant(Self.jan5UTC - 3 * 86_400, offset: 0))
        #expect(try parse("2026-01-05 noon") == instant(Self.jan5UTC + 12 * 3600, offset: 0))
        // The time first, as jrnl also reads it.
        #expect(try parse("noon yesterday") == instant(jan4 + 12 * 3600, offset: 0))
        #expect(try parse("9pm today") == instant(Self.jan5UTC + 21 * 3600, offset: 0))
    }

    @Test func badTimesAlone() {
        // An offset belongs to ISO 8601 date-times; a bare number is not a time.
        for text in ["21:30Z", "9pm+01:00", "21:30 +01:00", "21", "9", "now 9pm", "9pm now", "noon 9pm", "noon pm",
                     "12 noon", "midnight:00", "9pm 10pm", "noon nov"] {
            expectError(text)
        }
    }

    // MARK: Form 8: a month and a day

    @Test func monthAndDayWithoutYearIsTheMostRecentOneNotAfterToday() throws {
        // mondayNoon is 2026-01-05: this year's November 5 is still to come.
        #expect(try parse("nov 5") == day(2025, 11, 5))
        #expect(try parse("Nov 05") == day(2025, 11, 5))
        #expect(try parse("november 5") == day(2025, 11, 5))
        #expect(try parse("5 november") == day(2025, 11, 5))
        #expect(try parse("5th nov") == day(2025, 11, 5))
        #expect(try parse("november 5th") == day(2025, 11, 5))
        #expect(try parse("dec 31") == day(2025, 12, 31))
        #expect(try parse("sept 1") == day(2025, 9, 1))
        #expect(try parse("sep 1") == day(2025, 9, 1))
        // Today counts; tomorrow is a year ago.
        #expect(try parse("jan 5") == day(2026, 1, 5))
        #expect(try parse("january 6") == day(2025, 1, 6))
        #expect(try parse("1st jan") == day(2026, 1, 1))
    }

    @Test func february29WithoutYearIsTheLastLeapDay() throws {
        func noon(_ y: Int, _ m: Int, _ d: Int) -> Instant {
            Instant.startOf(CivilDay(year: y, month: m, day: d)!, utcOffsetSeconds: 0).adding(hours: 12)
        }
        #expect(try parse("feb 29") == day(2024, 2, 29))
        #expect(try parse("feb 29", now: noon(2024, 2, 29)) == day(2024, 2, 29))
        #expect(try parse("feb 29", now: noon(2024, 2, 28)) == day(2020, 2, 29))
        // 1900 was not a leap year: eight years back from 1903.
        #expect(try parse("feb 29", now: noon(1903, 6, 1)) == day(1896, 2, 29))
    }

    @Test func monthAndDayWithAYear() throws {
        #expect(try parse("november 5 2025") == day(2025, 11, 5))
        #expect(try parse("November 5, 2025") == day(2025, 11, 5))
        #expect(try parse("5 november 2025") == day(2025, 11, 5))
        #expect(try parse("5th Nov 2025") == day(2025, 11, 5))
        // A year given may be in the future.
        #expect(try parse("nov 5 2027") == day(2027, 11, 5))
        #expect(try parse("feb 29 2024") == day(2024, 2, 29))
    }

    @Test func monthAndDayWithATime() throws {
        // 2025-11-05T21:00Z is 1762376400.
        let nov5At9pm: Int64 = 1_762_376_400
        #expect(try parse("nov 5 9pm") == instant(nov5At9pm, offset: 0))
        #expect(try parse("nov 5 at 9:30 pm") == instant(nov5At9pm + 1800, offset: 0))
        #expect(try parse("november 5 2025 21:00") == instant(nov5At9pm, offset: 0))
        #expect(try parse("5 nov 2025 21:00") == instant(nov5At9pm, offset: 0))
        #expect(try parse("nov 5, 2025 at noon") == instant(nov5At9pm - 9 * 3600, offset: 0))
        // Berlin is UTC+1 in November.
        #expect(try parse("nov 5 21:00", zone: Self.berlin) == instant(nov5At9pm - 3600, offset: 3600))
    }

    @Test func badMonthsAndDays() {
        for text in ["nov", "november", "nov 31", "31 nov", "feb 30", "feb 29 2026", "nov 0", "nov 32", "nov 5 2025 2026",
                     "nov 5,", "nov 5,2025", "5, nov 2025", "5 nov, 2025", "nov nov", "5 5", "nov 5 21:00Z",
                     "nov 5 9pm+01:00", "nov 5 foo", "nov 5 25", "nov 5 02025", "novem 5", "nov 5nd5", "nov -5",
                     "nov 123", "nov 5 2025 at"] {
            expectError(text)
        }
    }

    // MARK: Form 9: runs of days

    func days(_ first: (Int, Int, Int), _ last: (Int, Int, Int)) -> DateExpression {
        .days(CivilDay(year: first.0, month: first.1, day: first.2)!...CivilDay(year: last.0, month: last.1, day: last.2)!)
    }

    @Test func wholeMonthsAndYears() throws {
        #expect(try parse("2026-11") == days((2026, 11, 1), (2026, 11, 30)))
        #expect(try parse("2024-02") == days((2024, 2, 1), (2024, 2, 29)))
        #expect(try parse("2026-12") == days((2026, 12, 1), (2026, 12, 31)))
        #expect(try parse("nov 2026") == days((2026, 11, 1), (2026, 11, 30)))
        #expect(try parse("February 2025") == days((2025, 2, 1), (2025, 2, 28)))
        #expect(try parse("2026") == days((2026, 1, 1), (2026, 12, 31)))
    }

    @Test func thisAndLastWeekMonthAndYear() throws {
        // Monday 2026-01-05: the last week and the last month are in 2025.
        #expect(try parse("this week") == days((2026, 1, 5), (2026, 1, 11)))
        #expect(try parse("last week") == days((2025, 12, 29), (2026, 1, 4)))
        #expect(try parse("this month") == days((2026, 1, 1), (2026, 1, 31)))
        #expect(try parse("Last  Month") == days((2025, 12, 1), (2025, 12, 31)))
        #expect(try parse("this year") == days((2026, 1, 1), (2026, 12, 31)))
        #expect(try parse("last year") == days((2025, 1, 1), (2025, 12, 31)))

        // From Sunday 2026-03-29, still the week of Monday the 23rd.
        let sunday = Instant(millis: 1_774_785_600_000, utcOffsetSeconds: 0)
        #expect(try parse("this week", now: sunday) == days((2026, 3, 23), (2026, 3, 29)))
        #expect(try parse("last week", now: sunday) == days((2026, 3, 16), (2026, 3, 22)))
        #expect(try parse("last month", now: sunday) == days((2026, 2, 1), (2026, 2, 28)))
    }

    @Test func coveredDays() throws {
        #expect(try parse("2026-11").coveredDays == CivilDay(year: 2026, month: 11, day: 1)!...CivilDay(year: 2026, month: 11, day: 30)!)
        #expect(try parse("yesterday").coveredDays == CivilDay(year: 2026, month: 1, day: 4)!...CivilDay(year: 2026, month: 1, day: 4)!)
        // A moment's day is its writer's: 23:30 at +09:00 on Jan 5 is 14:30Z.
        let tokyo = try parse("2026-01-05T23:30+09:00").coveredDays
        #expect(tokyo == CivilDay(year: 2026, month: 1, day: 5)!...CivilDay(year: 2026, month: 1, day: 5)!)
        // As a moment, a run of days is its first day at the given time.
        let lastMonth = try parse("last month").instant(atSecondsOfDay: 9 * 3600, zone: Self.utc)
        #expect(lastMonth == Instant(millis: (Self.jan5UTC - 35 * 86_400 + 9 * 3600) * 1000, utcOffsetSeconds: 0))
    }

    @Test func badRunsOfDays() {
        for text in ["2026-13", "2026-00", "0000-01", "2026-1", "202611", "0000", "10000", "2026-11 21:00", "2026 9pm",
                     "nov 2026 9pm", "last month 9pm", "this", "last week monday", "next week", "this monday",
                     "last weeks", "this months", "last decade", "nov 20266"] {
            expectError(text)
        }
    }

    // MARK: jrnl's leading date

    func leading(_ text: String, now: Instant = mondayNoon, zone: TimeZone = utc) -> (DateExpression, String)? {
        DateExpression.leadingDate(of: text, now: now, zone: zone).map { ($0.date, String($0.rest)) }
    }

    @Test func leadingDateIsTakenFromTheText() throws {
        let walk = try #require(leading("yesterday: Went for a walk"))
        #expect(walk == (day(2026, 1, 4), "Went for a walk"))
        // 2026-11-05T21:00Z is 1793912400; the colons of the time are not the separator.
        let dinner = try #require(leading("2026-11-05 21:00: Dinner with Anna"))
        #expect(dinner == (instant(1_793_912_400, offset: 0), "Dinner with Anna"))
        // Only the first ": " separates.
        let pasta = try #require(leading("nov 5 9pm: Dinner: pasta"))
        #expect(pasta == (instant(1_762_376_400, offset: 0), "Dinner: pasta"))
        let reading = try #require(leading("now: Reading"))
        #expect(reading == (.instant(Self.mondayNoon), "Reading"))
        let sick = try #require(leading("Yesterday: Called in sick. Used the time\nto write."))
        #expect(sick == (day(2026, 1, 4), "Called in sick. Used the time\nto write."))
    }

    @Test func textWithoutALeadingDateIsLeftWhole() {
        for text in ["Note to self: buy milk", "Dinner at 9pm: pasta", "Last week: a summary", "2026-11: plans",
                     "yesterday:no space", ": yesterday", "Went out. Yesterday: fun", "yesterday\n9pm: two lines",
                     "No colon at all", "Re: yesterday", "someday: maybe",
                     String(repeating: "x", count: 101) + ": long", String(repeating: "long text ", count: 100_000)] {
            #expect(leading(text) == nil, "\(text.prefix(40))")
        }
    }

    // MARK: Form 10: everything else

    @Test func garbage() {
        for text in ["", " ", "\t\n", "foo", "now now", "T21:30", "-2026-01-05", "+2026",
                     "today\u{00A0}", "tod\u{0130}y", "ｔｏｄａｙ", "today\0", "today,", "yesterday.", "🙂"] {
            expectError(text)
        }
    }

    @Test func lengthLimit() throws {
        // 100 characters of padding around a valid form is still accepted; 101 is not.
        let padded = "today" + String(repeating: " ", count: 95)
        #expect(try parse(padded) == day(2026, 1, 5))
        expectError(padded + " ")
        expectError(String(repeating: "a", count: 10_000))
    }

    @Test func errorMessage() {
        let error = DateExpressionError(input: "foo")
        #expect(error.description == "Unrecognised date 'foo': try YYYY-MM-DD, 'yesterday 9pm', '3 days ago', 'nov 5' or 'last month'.")
        // One short sentence, however many forms there are.
        #expect(error.description.count < 160)
        #expect(error.description.filter { $0 == "." }.count == 1 && error.description.hasSuffix("."))
        // The original text, not the trimmed or lowercased one.
        #expect(throws: DateExpressionError(input: "  Today Foo ")) {
            try DateExpression.parse("  Today Foo ", now: Self.mondayNoon, zone: Self.utc)
        }
        // A huge input is cut short in the message but kept whole in `input`.
        let huge = String(repeating: "x", count: 5000)
        #expect(DateExpressionError(input: huge).description.count < 400)
        #expect(DateExpressionError(input: huge).input == huge)
    }

    // MARK: Fuzz

    @Test func fuzzedInputsOnlyReturnOrThrowDateExpressionError() {
        var random = SeededGenerator(seed: 0x6A76_2D64_6174_6573)
        let seeds = ["2026-01-05", "2026-01-05T21:30:15.123+09:00", "2026-01-05 21:30Z", "today", "yesterday at 9:30 pm",
                     "tomorrow 12am", "3 days ago", "100000 weeks ago 23:59:59", "last monday", "sun 7pm",
                     "2026-10-25T02:30", "2026-03-29 02:30:00.5-0530", "0 day ago at 00:00", "now", "9pm", "21:00",
                     "noon", "nov 5", "5th november 2025 at 9:30 pm", "feb 29", "nov 5, 2025", "2026-11", "nov 2026",
                     "last month", "this week", "2026"]
        let alphabet = Array("0123456789:-+.,TtZzapmAPM ydsgowekhnvr\t\n\u{0}\u{00A0}é🙂İ9999999999")
        let zones = [Self.utc, Self.berlin, Self.newYork, TimeZone(identifier: "Pacific/Kiritimati")!,
                     TimeZone(identifier: "Australia/Lord_Howe")!]
        let nows = [Self.mondayNoon, Instant(millis: 0, utcOffsetSeconds: -12 * 3600),
                    Instant(millis: 253_402_300_799_000, utcOffsetSeconds: 14 * 3600),  // 9999-12-31T23:59:59Z
                    Instant(millis: -62_135_596_800_000, utcOffsetSeconds: 0)]  // 0001-01-01T00:00Z

        var accepted = 0
        for iteration in 0..<5000 {
            var text: [Character]
            if iteration % 5 == 0 {
                // Pure noise of random length.
                text = (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            } else {
                // A valid form with a few insertions, deletions, replacements or duplications.
                text = Array(seeds.randomElement(using: &random)!)
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let position = Int.random(in: 0...text.count, using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: text.insert(alphabet.randomElement(using: &random)!, at: position)
                    case 1 where position < text.count: text.remove(at: position)
                    case 2 where position < text.count: text[position] = alphabet.randomElement(using: &random)!
                    default: text.insert(contentsOf: text[position...].prefix(6), at: position)
                    }
                }
            }
            let input = String(text)
            let now = nows.randomElement(using: &random)!
            let zone = zones.randomElement(using: &random)!
            do throws(DateExpressionError) {
                let result = try DateExpression.parse(input, now: now, zone: zone)
                accepted += 1
                if case .instant(let moment) = result {
                    #expect(abs(moment.utcOffsetSeconds) <= 18 * 3600, "\(input)")
                }
            } catch {
                // Typed throws guarantee the type; the error must carry the original text.
                #expect(error.input == input)
            }
        }
        // The mutations must leave enough valid inputs to exercise the success paths too.
        #expect(accepted > 500)
    }
}

private extension Instant {
    func adding(hours: Int64) -> Instant {
        Instant(millis: millis + hours * 3_600_000, utcOffsetSeconds: utcOffsetSeconds)
    }
}
