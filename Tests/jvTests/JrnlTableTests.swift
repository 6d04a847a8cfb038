// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The jrnl-habits table: one jrnl journal, written as jrnl's text and imported into jv, and
/// the everyday jrnl invocations run with the same words through jrnl 4.6 and through jv. Each
/// row compares what the two select — the entries' dates and times, in order (or the tag
/// counts) — not how they print it. Where jv differs on purpose, the row says why and asserts
/// jv's documented behaviour, and that jrnl's really is another.
///
/// Both run with TZ=UTC. Rows with relative dates ("yesterday", "3 days ago") read entries the
/// journal holds at days counted back from the day the row runs: the journal is written for
/// that day, and a row that crosses midnight runs again for the new one.
@Suite("jrnl 4.6 and jv select the same entries from one journal", .tags(.e2e, .externalTools))
struct JrnlTableTests {
    /// The journal of one day: fixed entries, and entries at days counted back from that day.
    struct Journal: Sendable {
        /// The moment the journal is written for; its UTC day is "today".
        let now: Date
        /// Days before today that hold an entry: a few fixed ones, and Monday of last week.
        let daysBack: [Int]
        /// How many days ago Monday of last week was: 7 on a Monday, 13 on a Sunday.
        let mondayOfLastWeek: Int
        /// The entries: (day, hour, minute, text as jrnl holds it after its date).
        let entries: [(day: String, hour: Int, minute: Int, text: String)]
        /// The journal in jrnl's text format, with the world's timeformat `%F %r`.
        let text: String
        /// The same journal imported into a jv vault.
        let fixture: Fixture

        private static let fixed: [(day: String, hour: Int, minute: Int, text: String)] = [
            ("2025-11-28", 8, 15, "Frost on the harbour wall. @anna came by with coffee."),
            ("2025-12-03", 19, 40, "Dinner with @anna and @ben at the old place. *\nLong talk about the move. #family"),
            ("2025-12-24", 22, 10, "Christmas eve, quiet. #family\nThe tree is up."),
            ("2026-01-05", 7, 30, "Standup ran long. #work @ben\nPlanning for the spring release."),
            ("2026-01-05", 21, 0, "Swim in the cold sea. *"),
            ("2026-01-14", 12, 0, "Lunch at the harbour with @carla. #work"),
            ("2026-01-20", 9, 0, "Read all evening. Finished the novel about the lighthouse."),
            ("2026-02-02", 18, 30, "Snow again. #weather\nWalked to the Harbour anyway."),
            ("2026-02-11", 10, 0, "Review with @ben went well. #work *"),
            ("2026-02-14", 20, 0, "Dinner for two. @anna #family"),
            ("2026-03-01", 8, 0, "First day of spring, by the calendar. #weather"),
            ("2026-03-09", 17, 45, "Harbour café closed for good. @carla is sad."),
            ("2026-03-10", 6, 30, "Early run along the coast."),
            ("2026-03-22", 14, 0, "Moving boxes everywhere. #family #work *\nHalf the books are packed."),
            ("2026-04-02", 11, 0, "Quarterly plan done. #work @carla"),
        ]

        private init(now: Date) throws {
            self.now = now
            mondayOfLastWeek = (Calendar.utc.component(.weekday, from: now) + 5) % 7 + 7  // weekday 1 = Sunday
            daysBack = Set([1, 2, 3, 6, 9, 20, 40, mondayOfLastWeek]).sorted(by: >)
            entries = Self.fixed + daysBack.map { (day: Self.day(back: $0, from: now), hour: 8, minute: 0, text: "Written \($0) days back. #recent") }
            text = entries.map { entry in
                let twelve = (entry.hour + 11) % 12 + 1
                return "[\(entry.day) " + String(format: "%02d:%02d:00 ", twelve, entry.minute) + (entry.hour < 12 ? "AM] " : "PM] ") + entry.text + "\n"
            }.joined(separator: "\n")
            let file = text
            fixture = try Fixture { sandbox in
                try Sandbox.requireSuccess(try sandbox.run(["import", try sandbox.folder.write("journal.txt", file), "--format", "jrnl-txt"]))
                return [:]
            }
        }

        /// `YYYY-MM-DD` of `days` before the journal's today.
        func day(back days: Int) -> String { Self.day(back: days, from: now) }

        /// Whether the UTC day is still the journal's today.
        var isToday: Bool { day(back: 0) == Self.day(back: 0, from: Date()) }

        private static func day(back days: Int, from now: Date) -> String {
            let date = Calendar.utc.date(byAdding: .day, value: -days, to: now)!
            let parts = Calendar.utc.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }

        /// Today's journal, written once per day of the test run.
        static func forToday() throws -> Journal {
            let now = Date()
            let today = day(back: 0, from: now)
            lock.lock()
            defer { lock.unlock() }
            if let journal = written[today] { return journal }
            let journal = try Journal(now: now)
            written[today] = journal
            return journal
        }

        private static let lock = NSLock()
        nonisolated(unsafe) private static var written: [String: Journal] = [:]
    }

    struct Row: Sendable, CustomTestStringConvertible {
        enum Outcome: Sendable {
            /// Both select the same entries, this many (so a row cannot pass on two empty answers).
            case same(Int)
            /// jv selects these (dates and times), on purpose not what jrnl does (on some days
            /// the two may agree: `jrnlDiffers` false).
            case differs(why: String, jv: [String], jrnlDiffers: Bool = true)
            /// jv refuses (64), saying this.
            case refused(says: String)
        }
        enum Reading: Sendable { case json, short, tags }

        let words: [String]
        /// The outcome on the day of a journal (most rows' is the same every day).
        let outcome: @Sendable (Journal) -> Outcome
        let reading: Reading

        init(words: [String], outcome: Outcome, reading: Reading = .json) {
            self.init(words: words, reading: reading) { _ in outcome }
        }

        init(words: [String], reading: Reading = .json, outcomeOn outcome: @escaping @Sendable (Journal) -> Outcome) {
            (self.words, self.outcome, self.reading) = (words, outcome, reading)
        }

        var testDescription: String { words.joined(separator: " ") }
    }

    static let rows: [Row] = [
        Row(words: ["-n", "3"], outcome: .same(3)),
        Row(words: ["-3"], outcome: .same(3)),
        Row(words: ["@anna"], outcome: .same(3)),
        Row(words: ["@anna", "@ben"], outcome: .same(5)),
        Row(words: ["-and", "@anna", "@ben"], outcome: .same(1)),
        Row(words: ["@anna", "-and", "#family"], outcome: .same(2)),
        Row(words: ["#WORK"], outcome: .same(5)),
        Row(words: ["#work", "-not", "@carla"], outcome: .same(3)),
        Row(words: ["-not", "#work"]) { .same($0.entries.count - 5) },
        Row(words: ["-not", "#work", "-not", "#recent"], outcome: .same(10)),
        Row(words: ["-starred"], outcome: .same(4)),
        Row(words: ["-starred", "#work"], outcome: .same(2)),
        Row(words: ["-n", "2", "#work"], outcome: .same(2)),
        Row(words: ["-from", "2026-01-01", "-to", "2026-01-31"], outcome: .same(4)),
        Row(words: ["-from", "2026-02-11", "-to", "2026-02-11"], outcome: .same(1)),
        Row(words: ["-from", "jan 10 2026", "-to", "feb 12 2026"], outcome: .same(4)),
        Row(words: ["-until", "2025-12-31"], outcome: .same(3)),
        Row(words: ["-on", "2026-01-05"], outcome: .same(2)),
        Row(words: ["-on", "2026-03"], outcome: .same(4)),
        Row(words: ["-from", "2026-03", "-to", "2026-04-30"], outcome: .same(5)),
        Row(words: ["-to", "2026-02"], outcome: .same(10)),
        Row(words: ["-on", "march 2026"], outcome: .same(4)),
        Row(words: ["-year", "2025"], outcome: .same(3)),
        Row(words: ["-contains", "harbour"], outcome: .same(4)),
        Row(words: ["-contains", "the harbour"], outcome: .same(3)),
        Row(words: ["-contains", "novel", "-on", "2026-01-20"], outcome: .same(1)),
        Row(words: ["-on", "yesterday"], outcome: .same(1)),
        Row(words: ["-on", "3 days ago"], outcome: .same(1)),
        Row(words: ["-from", "3 days ago"], outcome: .same(3)),
        Row(words: ["-from", "10 days ago", "-to", "yesterday", "#recent"]) { .same($0.daysBack.filter { $0 <= 10 }.count) },
        Row(words: ["-from", "2 weeks ago", "-n", "2"], outcome: .same(2)),
        Row(words: ["-on", "last monday"], outcome: .same(1)),
        Row(words: ["-n", "4", "--short"], outcome: .same(4), reading: .short),
        Row(words: ["-starred", "-s"], outcome: .same(4), reading: .short),
        Row(words: ["--tags"], outcome: .same(7), reading: .tags),
        Row(words: ["-from", "2026-01-01", "-to", "2026-02-28", "--tags"], outcome: .same(6), reading: .tags),
        // A day in numbers: month first in jrnl always (dateutil), in jv by the locale (the
        // sandbox's C.UTF-8 reads month first; date_order sets it).
        Row(words: ["-on", "2/11/2026"], outcome: .same(1)),
        Row(words: ["-from", "2026/03/01", "-to", "3/9/2026"], outcome: .same(2)),
        // Month first, 14/02/2026 has no month 14: jrnl (dateutil) reads it day first instead,
        // jv never reads a date in an order it was not told.
        Row(words: ["-on", "14/02/2026"], outcome: .refused(says: "month first (mdy)")),
        // jrnl's tags keep their sign (#work and @work are two tags); jv's are one tag, which
        // `#` or `@` both write (README "Tags").
        Row(words: ["@work"], outcome: .differs(why: "jv's tags have no sign", jv: [
            "2026-01-05 07:30", "2026-01-14 12:00", "2026-02-11 10:00", "2026-03-22 14:00", "2026-04-02 11:00"])),
        // jv's weeks run Monday to Sunday (README "Dates"); jrnl's "last week" is seven days ago.
        Row(words: ["-from", "last week"]) { journal in .differs(
            why: "jv's last week starts on Monday",
            jv: journal.daysBack.filter { $0 <= journal.mondayOfLastWeek }.map { "\(journal.day(back: $0)) 08:00" },
            jrnlDiffers: journal.mondayOfLastWeek > 7) },
        // -month and -day (that month or day in every year) are jrnl's only; jv says its way.
        Row(words: ["-month", "3"], outcome: .refused(says: "jv list --on 2026-11")),
        Row(words: ["-not", "-starred"], outcome: .refused(says: "jv has no -not -starred")),
    ]

    @Test("each row selects what jrnl selects", .tags(.slow), .notInQuickRun, arguments: rows)
    func row(_ row: Row) throws {
        // A row run across midnight compared two different days' "yesterday": it runs again.
        for _ in 0..<2 {
            let journal = try Journal.forToday()
            let checks = try compare(row, on: journal)
            if journal.isToday { return checks() }
        }
        Issue.record("the UTC day changed during each of two runs of the row")
    }

    /// Runs the row's words through jrnl and jv on the journal; the checks of what they printed.
    private func compare(_ row: Row, on journal: Journal) throws -> () -> Void {
        let world = try JrnlWorld(journal: journal.text)
        let jv = try Sandbox(from: journal.fixture)
        let format = row.reading == .json ? ["--format", "json"] : []
        let ours = try jv.run(row.words + format)
        let outcome = row.outcome(journal)
        if case .refused(let says) = outcome {
            return { #expect(ours.status == 64 && ours.err.contains(says), "\(ours)") }
        }
        let theirs = try world.jrnl(row.words + format)
        let jrnlSelects: [String], jvSelects: [String]
        switch row.reading {
        case .json: (jrnlSelects, jvSelects) = (try Self.jrnlJSON(theirs), try Self.jvJSON(ours))
        case .short: (jrnlSelects, jvSelects) = (Self.jrnlShort(theirs), Self.jvShort(ours))
        case .tags: (jrnlSelects, jvSelects) = (Self.jrnlTags(theirs), Self.jvTags(ours))
        }
        return {
            #expect(theirs.status == 0, "jrnl: \(theirs)")
            #expect(ours.status == 0, "jv: \(ours)")
            switch outcome {
            case .same(let count):
                #expect(jvSelects == jrnlSelects, "jrnl:\n\(theirs.out)\njv:\n\(ours.out)")
                #expect(jrnlSelects.count == count, "jrnl selects \(jrnlSelects)")
            case .differs(let why, let expected, let jrnlDiffers):
                #expect(jvSelects == expected, "\(why): jv:\n\(ours.out)")
                #expect(!jrnlDiffers || jrnlSelects != expected, "jrnl does not differ any more (\(why)): \(theirs.out)")
            case .refused:
                break
            }
        }
    }

    /// Words that write an entry, and whether the entry is dated by them (else it is dated now,
    /// and only its day is compared).
    static let writes: [(words: [String], dated: Bool)] = [
        (["yesterday:", "Went", "for", "a", "swim."], true),
        (["yesterday", "*:", "Starred", "swim."], true),
        (["3", "days", "ago:", "Three", "days."], true),
        (["last", "monday:", "Review."], true),
        (["noon", "yesterday:", "Lunch."], true),
        (["this", "morning:", "Coffee."], true),
        (["last", "night:", "Late."], true),
        (["in", "2", "days:", "Dentist."], true),
        (["2/11/2026:", "Dinner."], true),
        (["Big", "day", "*"], false),
        (["*Big", "day"], false),
        (["Note", "to", "self:", "buy", "milk."], false),
        (["today", "was", "good.", "Really."], false),
    ]

    @Test("jrnl's way of writing an entry dates, stars and titles it as jrnl does", .tags(.slow), .notInQuickRun, arguments: writes)
    func write(_ words: [String], dated: Bool) throws {
        let world = try JrnlWorld()
        let jv = try Sandbox(from: try Fixture.empty())
        let theirs = try world.jrnl(words), ours = try jv.run(words)
        #expect(theirs.status == 0, "jrnl: \(theirs)")
        #expect(ours.status == 0 && ours.errorLines.isEmpty, "jv: \(ours)")
        let jrnlEntries = try world.jrnl(["--format", "json"]).object()["entries"] as? [[String: Any]] ?? []
        let jvEntries = try jv.run(["list", "--format", "json"]).array()
        try #require(jrnlEntries.count == 1 && jvEntries.count == 1, "jrnl: \(jrnlEntries)\njv: \(jvEntries)")
        let jrnlEntry = jrnlEntries[0], jvEntry = jvEntries[0]
        let jrnlAt = "\(jrnlEntry["date"] as? String ?? "?") \(jrnlEntry["time"] as? String ?? "?")"
        let jvAt = try Self.jvJSON(jv.run(["list", "--format", "json"]))[0]
        #expect(dated ? jvAt == jrnlAt : jvAt.prefix(10) == jrnlAt.prefix(10), "jrnl \(jrnlAt), jv \(jvAt)")
        #expect(jvEntry["starred"] as? Bool == jrnlEntry["starred"] as? Bool, "jrnl: \(jrnlEntry)\njv: \(jvEntry)")
        #expect(jvEntry["title"] as? String == jrnlEntry["title"] as? String, "jrnl: \(jrnlEntry)\njv: \(jvEntry)")
    }

    /// `"YYYY-MM-DD hh:mm"` of each entry of jrnl's `--format json`.
    private static func jrnlJSON(_ result: JVResult) throws -> [String] {
        // jrnl prints nothing at all when nothing matches.
        if result.out.isEmpty { return [] }
        let entries = try result.object()["entries"] as? [[String: Any]] ?? []
        return entries.map { "\($0["date"] as? String ?? "?") \($0["time"] as? String ?? "?")" }
    }

    /// The same of jv's `--format json` (jv's times are UTC here, as jrnl's).
    private static func jvJSON(_ result: JVResult) throws -> [String] {
        try result.array().map { entry in
            let created = (entry["created_at"] as? String ?? "?").replacingOccurrences(of: "T", with: " ")
            return "\(entry["local_day"] as? String ?? "?") \(created.dropFirst(11).prefix(5))"
        }
    }

    /// The date and time that start each line of jrnl's `--short` (`2026-01-05 09:00:00 PM`, its
    /// timeformat `%F %r`), on a 24-hour clock.
    private static func jrnlShort(_ result: JVResult) -> [String] {
        result.lines.map { line in
            let words = line.split(separator: " ")
            guard words.count >= 3, let hour = Int(words[1].prefix(2)) else { return line }
            let hour24 = hour % 12 + (words[2] == "PM" ? 12 : 0)
            return "\(words[0]) " + String(format: "%02d:", hour24) + words[1].dropFirst(3).prefix(2)
        }
    }

    /// The date and time that start each line of jv's `--short`.
    private static func jvShort(_ result: JVResult) -> [String] {
        result.lines.map { String($0.prefix(16)) }
    }

    /// jrnl's `--tags` lines (`#work                : 5`), as "work 5", sorted.
    private static func jrnlTags(_ result: JVResult) -> [String] {
        result.lines.compactMap { line in
            let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { return nil }
            return "\(parts[0].dropFirst()) \(parts[1])"
        }.sorted()
    }

    /// jv's `tags` lines (`work  5`), as "work 5", sorted.
    private static func jvTags(_ result: JVResult) -> [String] {
        result.lines.map { $0.split(separator: " ").joined(separator: " ") }.sorted()
    }
}

private extension Calendar {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
