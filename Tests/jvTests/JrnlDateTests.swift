// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Dates as jrnl users type them: a leading date in the text of `jv add`, and the
/// date expressions `--at`, `--from`, `--to`, `--on` and `calendar` take. The sandbox's zone is UTC.
@Suite(.tags(.e2e)) struct JrnlDateTests {
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `YYYY-MM-DD` of `date` in UTC.
    private static func dayText(_ date: Date) -> String {
        let parts = utc.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// `YYYY-MM-DD` of the day `days` after today (UTC, as the sandbox).
    private static func day(adding days: Int) -> String {
        dayText(utc.date(byAdding: .day, value: days, to: Date())!)
    }

    @Test("add: a leading date sets the time and leaves the text; a date alone means 09:00")
    func leadingDate() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let walk = try sandbox.addJSON("yesterday: Went for a walk")
        #expect(walk["content"] as? String == "Went for a walk")
        #expect(walk["local_day"] as? String == Self.day(adding: -1))
        #expect((walk["created_at"] as? String)?.contains("T09:00:00") == true, "\(walk)")

        let dinner = try sandbox.addJSON("2026-11-05 21:00: Dinner with Anna")
        #expect(dinner["content"] as? String == "Dinner with Anna")
        #expect(dinner["created_at"] as? String == "2026-11-05T21:00:00.000+00:00", "\(dinner)")
        #expect(dinner["title"] as? String == "Dinner with Anna")
    }

    @Test("add: the leading date also applies to text read from standard input")
    func leadingDateOnStandardInput() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add", "--json"], input: "nov 5 2025 9pm: Fireworks. #night\nSecond line.\n")
        #expect(result.status == 0, "\(result)")
        let entry = try result.object()
        #expect(entry["created_at"] as? String == "2025-11-05T21:00:00.000+00:00", "\(entry)")
        #expect(entry["content"] as? String == "Fireworks. #night\nSecond line.")
        #expect(entry["tags"] as? [String] == ["night"])
    }

    @Test("add: text whose start is not a date stays whole, dated now")
    func noteToSelfStaysWhole() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for text in ["Note to self: buy milk", "Last week: a summary", "Went out. Yesterday: fun"] {
            let entry = try sandbox.addJSON(text)
            #expect(entry["content"] as? String == text)
            #expect(entry["local_day"] as? String == Self.day(adding: 0), "\(entry)")
        }
    }

    @Test("add --at wins: the text is never read for a date")
    func atWins() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let entry = try sandbox.addJSON("yesterday: Went for a walk", ["--at", "2026-01-02"])
        #expect(entry["content"] as? String == "yesterday: Went for a walk")
        #expect(entry["created_at"] as? String == "2026-01-02T09:00:00.000+00:00", "\(entry)")
        let piped = try sandbox.run(["add", "--json", "--at", "nov 5 2025 noon"], input: "2026-11-05 21:00: Dinner")
        #expect(try piped.object()["content"] as? String == "2026-11-05 21:00: Dinner", "\(piped)")
        #expect(try piped.object()["created_at"] as? String == "2025-11-05T12:00:00.000+00:00", "\(piped)")
    }

    @Test("--on YYYY-MM lists the whole month; as --from it is the first day, as --to the last, inclusive")
    func wholeMonth() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let before = try sandbox.add("Halloween", ["--at", "2026-10-31 23:59"])
        let first = try sandbox.add("First of November", ["--at", "2026-11-01 00:00"])
        let last = try sandbox.add("Last of November", ["--at", "2026-11-30 23:59"])
        let after = try sandbox.add("December", ["--at", "2026-12-01 00:00"])
        #expect(try sandbox.list(["--on", "2026-11"]).ids == [first, last])
        #expect(try sandbox.list(["--on", "nov 2026"]).ids == [first, last])
        #expect(try sandbox.list(["--from", "2026-11"]).ids == [first, last, after])
        #expect(try sandbox.list(["--to", "2026-11"]).ids == [before, first, last])
        #expect(try sandbox.list(["--from", "2026-11", "--to", "2026-11"]).ids == [first, last])
        #expect(try sandbox.list(["--on", "2026"]).ids == [before, first, last, after])
        // A month and a day are a day: "nov 1 2026" is not the month.
        #expect(try sandbox.list(["--on", "nov 1 2026"]).ids == [first])
    }

    @Test("--from \"last month\" starts on the first day of the previous month; --on \"last month\" is that month")
    func lastMonth() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let thisMonth = Self.utc.dateInterval(of: .month, for: Date())!.start
        let firstOfLastMonth = Self.utc.date(byAdding: .month, value: -1, to: thisMonth)!
        let dayBefore = Self.utc.date(byAdding: .day, value: -1, to: firstOfLastMonth)!
        let earlier = try sandbox.add("The month before", ["--at", Self.dayText(dayBefore) + " 23:00"])
        let inLastMonth = try sandbox.add("Last month's first day", ["--at", Self.dayText(firstOfLastMonth) + " 08:00"])
        let now = try sandbox.add("Today")
        #expect(try sandbox.list(["--from", "last month"]).ids == [inLastMonth, now])
        #expect(try sandbox.list(["--on", "last month"]).ids == [inLastMonth])
        #expect(try sandbox.list(["--to", "last month"]).ids == [earlier, inLastMonth])
        #expect(try sandbox.list(["--on", "this month"]).ids == [now])
    }

    @Test("an unrecognised date is one short sentence and exit 64; nothing is added")
    func unrecognisedDate() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for arguments in [["list", "--from", "someday"], ["list", "--on", "nov 31"], ["add", "--at", "someday", "Text"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 64, "\(result)")
            let value = arguments[2]
            #expect(result.errorLines == ["jv: Unrecognised date '\(value)': try YYYY-MM-DD, 'yesterday 9pm', '3 days ago', "
                                          + "'nov 5' or 'last month' ('jv list --help' lists every form)."],
                    "\(result)")
        }
        #expect(try sandbox.list().isEmpty)
    }

    @Test("a run of days where one day or moment is meant is refused with exit 64")
    func runOfDaysWhereOneDayIsMeant() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let at = try sandbox.run(["add", "--at", "last month", "Text"])
        #expect(at.status == 64, "\(at)")
        #expect(at.errorLines == ["jv: 'last month' names several days; give one day or a moment here."], "\(at)")
        let onThisDay = try sandbox.run(["list", "--on-this-day", "2026-11"])
        #expect(onThisDay.status == 64, "\(onThisDay)")
        #expect(try sandbox.list().isEmpty)
    }

    @Test("calendar takes a year or a month in any spelling, and refuses a week")
    func calendarPeriods() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("In November", ["--at", "2026-11-05"])
        let numeric = try sandbox.run(["calendar", "--json", "2026-11"])
        let spelled = try sandbox.run(["calendar", "--json", "November 2026"])
        #expect(numeric.status == 0 && spelled.status == 0, "\(numeric) \(spelled)")
        #expect(numeric.out == spelled.out)
        #expect(try numeric.object()["days"] as? [String: Int] == ["2026-11-05": 1], "\(numeric)")
        let week = try sandbox.run(["calendar", "last week"])
        #expect(week.status == 64, "\(week)")
        #expect(week.errorLines == ["jv: 'last week' is not a period: give a year or a month (2026, 2026-11, 'last month')."])
    }

    @Test("add: a leading date jv does not read is said on standard error; the text stays whole, dated now")
    func unreadLeadingDateIsSaid() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for text in ["yesterday evening: Ran", "5/11: Dinner", "friday afternoon: Tea"] {
            let result = try sandbox.run(["add", "--json", "--", text])
            #expect(result.status == 0 && result.err.contains("looks like a date jv does not read"), "\(text): \(result)")
            #expect(try result.object()["content"] as? String == text)
        }
        for text in ["Note to self: buy milk", "Last week: a summary", "Went out. Yesterday: fun", "yesterday: Walk"] {
            let result = try sandbox.run(["add", "--", text])
            #expect(result.status == 0 && result.err.isEmpty, "\(text): \(result)")
        }
    }

    @Test("--at and a leading date read 'next friday', 'last wednesday' (of last week), 'in 2 days', 'this morning', 'last night', 'noon yesterday', 'an hour ago'")
    func moreOfJrnlsDates() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let inTwoDays = try sandbox.addJSON("in 2 days: Dentist")
        #expect(inTwoDays["content"] as? String == "Dentist" && inTwoDays["local_day"] as? String == Self.day(adding: 2), "\(inTwoDays)")
        let weekday = Self.utc.component(.weekday, from: Date())  // 1 = Sunday … 6 = Friday
        let friday = try sandbox.addJSON("Party", ["--at", "next friday"])
        #expect(friday["local_day"] as? String == Self.day(adding: (6 - weekday + 7) % 7 == 0 ? 7 : (6 - weekday + 7) % 7), "\(friday)")
        // "last wednesday" is Wednesday of last week (jrnl), even when today is Thursday.
        let isoWeekday = (weekday + 5) % 7 + 1  // 1 = Monday … 7 = Sunday
        let lastWednesday = try sandbox.addJSON("Text", ["--at", "last wednesday"])
        #expect(lastWednesday["local_day"] as? String == Self.day(adding: 1 - isoWeekday - 7 + 2), "\(lastWednesday)")
        for (text, day, time) in [("this morning", 0, "06:00"), ("tonight", 0, "21:00"), ("last night", -1, "21:00"),
                                  ("noon yesterday", -1, "12:00"), ("9pm yesterday", -1, "21:00")] {
            let entry = try sandbox.addJSON("Text", ["--at", text])
            #expect(entry["created_at"] as? String == Self.day(adding: day) + "T" + time + ":00.000+00:00", "\(text): \(entry)")
        }
        for (text, seconds) in [("an hour ago", 3600.0), ("20 minutes ago", 1200.0)] {
            let entry = try sandbox.addJSON("Text", ["--at", text])
            let created = try #require(ISO8601DateFormatter.withFraction.date(from: entry["created_at"] as? String ?? ""), "\(entry)")
            #expect(abs(Date().timeIntervalSince(created) - seconds) < 60, "\(text): \(entry)")
        }
    }

    @Test("a day in numbers (5/11/2026) is read in the locale's order (LC_ALL, LC_TIME, LANG) or date_order's; one the order cannot read is refused, not read the other way", .tags(.slow), .notInQuickRun)
    func numericDates() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let noConfig = sandbox.folder.file("no-config")
        func config(_ order: String) throws -> String {
            try sandbox.folder.write("config-\(order)/jv/config.toml", "date_order = \"\(order)\"\n")
            return sandbox.folder.file("config-\(order)")
        }
        let mdy = try config("mdy"), dmy = try config("dmy"), myd = try config("myd")
        // The sandbox's LANG is C.UTF-8: month first, as C's own format and as jrnl read it.
        let cases: [([String: String?], String, String)] = [
            ([:], noConfig, "2026-05-11"),
            (["LANG": "en_US.UTF-8"], noConfig, "2026-05-11"),
            (["LANG": "de_DE.UTF-8"], noConfig, "2026-11-05"),
            (["LANG": "en_US.UTF-8", "LC_TIME": "en_GB.UTF-8"], noConfig, "2026-11-05"),
            (["LC_ALL": "en_US.UTF-8", "LC_TIME": "en_GB.UTF-8"], noConfig, "2026-05-11"),
            (["LANG": "de_DE.UTF-8"], mdy, "2026-05-11"),
            (["LANG": "en_US.UTF-8"], dmy, "2026-11-05"),
        ]
        for (locale, configFolder, day) in cases {
            let env = locale.merging(["XDG_CONFIG_HOME": configFolder]) { $1 }
            let added = try sandbox.run(["add", "--json", "--at", "5/11/2026", "Dinner"], env: env)
            #expect(added.status == 0 && (try? added.object()["local_day"] as? String) == day, "\(locale) \(configFolder): \(added)")
            let listed = try sandbox.run(["list", "--json", "--on", "5.11.2026"], env: env)
            #expect(Set(try listed.array().map { $0["local_day"] as? String }) == [day], "\(locale): \(listed)")
            let leading = try sandbox.run(["add", "--json", "5/11/2026: Lunch"], env: env)
            #expect((try? leading.object()["local_day"] as? String) == day, "\(locale): \(leading)")
            #expect((try? leading.object()["content"] as? String) == "Lunch", "\(locale): \(leading)")
            let yearFirst = try sandbox.run(["add", "--json", "--at", "2026/11/05", "Tea"], env: env)
            #expect((try? yearFirst.object()["local_day"] as? String) == "2026-11-05", "year first in every order: \(yearFirst)")
        }
        let before = try sandbox.list().count
        // A reading the order makes impossible is refused, saying why and where the order came from.
        let refusals: [([String: String?], String, [String])] = [
            (["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": noConfig], "13/05/2026", ["month first (mdy)", "2026-05-13", "en_US.UTF-8", "date_order"]),
            (["LANG": "de_DE.UTF-8", "XDG_CONFIG_HOME": noConfig], "5/13/2026", ["day first (dmy)", "2026-05-13", "de_DE.UTF-8"]),
            (["LANG": "ja_JP.UTF-8", "XDG_CONFIG_HOME": noConfig], "5/11/2026", ["year first (ymd)", "YYYY-MM-DD", "ja_JP.UTF-8"]),
            (["LANG": "de_DE.UTF-8", "XDG_CONFIG_HOME": mdy], "13/05/2026", ["month first (mdy)", "config-mdy/jv/config.toml"]),
        ]
        for (env, date, says) in refusals {
            for arguments in [["add", "--at", date, "Dinner"], ["list", "--on", date], ["list", "--from", date]] {
                let refused = try sandbox.run(arguments, env: env)
                #expect(refused.status == 64 && says.allSatisfy { refused.err.contains($0) }, "\(arguments) \(env): \(refused)")
            }
        }
        #expect(try sandbox.list().count == before, "nothing was added")
        let wrongKey = try sandbox.run(["list"], env: ["XDG_CONFIG_HOME": myd])
        #expect(wrongKey.status == 64 && wrongKey.err.contains("'date_order' must be \"dmy\", \"mdy\" or \"ymd\""), "\(wrongKey)")
    }
}

private extension ISO8601DateFormatter {
    static var withFraction: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
