// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv stats` over time: words and entries per month as bars, entries per week as a sparkline,
/// sentiment per month from the newest analysis of each entry; 80 columns, colour only on a terminal.
@Suite(.tags(.e2e)) struct StatsTests {
    /// One entry on the 10th of each month from 2024-01 to 2026-02 with i + 1 words (the last
    /// 1,200), a second 2026-01 entry of 3 words; analyses: 2025-12-10 neutral (run in January),
    /// 2026-01-10 negative then positive by another model, 2026-01-12 "0.5".
    private static let fixture = Result {
        try Fixture { sandbox in
            var ids: [String: String] = [:]
            for index in 0..<26 {
                let (year, month) = (2024 + index / 12, index % 12 + 1)
                let name = "\(year)-\(month < 10 ? "0" : "")\(month)"
                let words = index == 25 ? 1200 : index + 1
                ids[name] = try sandbox.add(Array(repeating: "word", count: words).joined(separator: " "), ["--at", name + "-10 09:00"])
            }
            ids["2026-01-12"] = try sandbox.add("three more words", ["--at", "2026-01-12 09:00"])
            for (entry, model, sentiment, processed) in [("2025-12", "llama3", "neutral", "2026-01-15 10:00"),
                                                         ("2026-01", "llama3", "negative", "2026-02-01 10:00"),
                                                         ("2026-01", "mistral", "positive", "2026-03-01 10:00"),
                                                         ("2026-01-12", "llama3", "0.5", "2026-02-01 10:00")] {
                try sandbox.ok(["analysis", "add", ids[entry]!, "--model", model, "--sentiment", sentiment, "--processed-at", processed])
            }
            return ids
        }
    }

    /// Display columns of a line: escape sequences left out, one column per character (the
    /// block characters, `…` and digits are all one column wide).
    private static func columns(_ line: String) -> Int {
        line.replacing(#/\u{1B}\[[0-9;]*m/#, with: "").count
    }

    @Test("--json keeps the first keys and adds words per month, entries per week and sentiment per month")
    func json() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let result = try sandbox.ok(["stats", "--from", "2025-12-01", "--to", "2026-01-31", "--json"])
        let keys = jsonKeys(try result.jsonValue())
        #expect(keys == ["entries", "words", "days_written", "first_day", "last_day", "longest_streak", "current_streak",
                         "per_month", "words_per_month", "entries_per_week", "sentiment_per_month", "measures_per_month"], "\(result)")
        let stats = try result.object()
        #expect(stats["entries"] as? Int == 3 && stats["words"] as? Int == 24 + 25 + 3)
        #expect(stats["per_month"] as? [String: Int] == ["2025-12": 1, "2026-01": 2])
        #expect(stats["words_per_month"] as? [String: Int] == ["2025-12": 24, "2026-01": 28])
        let weeks = try #require(stats["entries_per_week"] as? [[String: Any]])
        #expect(weeks.map { $0["week"] as? String } == ["2025-W50", "2025-W51", "2025-W52", "2026-W01", "2026-W02", "2026-W03"])
        #expect(weeks.map { $0["entries"] as? Int } == [1, 0, 0, 0, 1, 1])
        let sentiment = try #require(stats["sentiment_per_month"] as? [String: [String: Any]])
        #expect(Set(sentiment.keys) == ["2025-12", "2026-01"])
        #expect(sentiment["2025-12"]?["mean"] as? Double == 0 && sentiment["2025-12"]?["entries"] as? Int == 1,
                "by the entry's day, not the analysis's")
        #expect(sentiment["2026-01"]?["mean"] as? Double == 0.75 && sentiment["2026-01"]?["entries"] as? Int == 2,
                "the newest analysis (positive) replaces the older one (negative)")

        let whole = try sandbox.ok(["stats", "--json"]).object()
        #expect((whole["entries_per_week"] as? [[String: Any]])?.count == 52, "the last 52 weeks without a range")
        #expect((whole["words_per_month"] as? [String: Int])?["2026-02"] == 1200)
    }

    @Test("the text fits 80 columns, bars scale to the largest month, no escape bytes into a pipe")
    func textInAPipe() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let result = try sandbox.ok(["stats"])
        #expect(!result.out.contains("\u{1B}"), "\(result)")
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.allSatisfy { Self.columns($0) <= 80 }, "\(lines.filter { Self.columns($0) > 80 })")
        for section in ["entries per month", "words per month", "entries per week", "sentiment per month"] {
            #expect(lines.contains { $0.hasPrefix(section) }, "\(section): \(result)")
        }
        // 26 months of words, 1,200 the most: that month's bar fills the line to column 80.
        let words = try #require(lines.firstIndex(of: "words per month"))
        #expect(lines[words + 26] == "  2026-02  1200  " + String(repeating: "█", count: 63), "\(result)")
        #expect(lines[words + 1] == "  2024-01     1  ▏", "one word against 1,200 still shows")
        #expect(lines.contains("  2026-01  +0.75  2 entries") && lines.contains("  2025-12  +0.00  1 entry"), "\(result)")
        let weeks = try #require(lines.firstIndex { $0.hasPrefix("entries per week") })
        #expect(Self.columns(lines[weeks + 1]) == 2 + 8 + 2 + 52, "52 weeks on one line: \(lines[weeks + 1])")
        // A range of 3 years wraps the weekly sparkline, still within 80 columns.
        let long = try sandbox.ok(["stats", "--from", "2024-01-01"]).out.split(separator: "\n").map(String.init)
        let sparkLines = long.filter { $0.range(of: #"^  \d{4}-W\d\d  [▁▂▃▄▅▆▇█]+$"#, options: .regularExpression) != nil }
        #expect(sparkLines.count == 3 && long.allSatisfy { Self.columns($0) <= 80 }, "\(long)")
    }

    @Test("without analyses the sentiment section is left out and its key is empty")
    func withoutAnalyses() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Four words right here.", ["--at", "2026-01-05 09:00"])
        let text = try sandbox.ok(["stats"]).out
        #expect(!text.contains("sentiment") && text.contains("  2026-01  4  "), "\(text)")
        let stats = try sandbox.ok(["stats", "--json"]).object()
        #expect((stats["sentiment_per_month"] as? [String: Any])?.isEmpty == true)
        #expect(stats["words_per_month"] as? [String: Int] == ["2026-01": 4])
    }

    @Test("on a terminal the bars are coloured, within 80 columns; NO_COLOR turns that off",
          .enabled(if: JV.tool("script") != nil, "needs script(1) to give jv a terminal"))
    func onATerminal() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let colored = try sandbox.onTerminal(["stats"], env: ["TERM": "xterm-256color"])
        #expect(colored.status == 0 && colored.out.contains("\u{1B}[32m█"), "\(colored)")
        let lines = colored.out.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { Self.columns($0) <= 80 }, "\(lines.filter { Self.columns($0) > 80 })")
        let plain = try sandbox.onTerminal(["stats"], env: ["TERM": "xterm-256color", "NO_COLOR": "1"])
        #expect(plain.status == 0 && plain.out.contains("words per month") && !plain.out.contains("\u{1B}"), "\(plain)")
    }

    @Test("in a session the agent answers jv stats with what the decrypting walk prints, for every period, and stays current with writes")
    func sessionAnswersAsTheWalk() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        for (day, fields) in [("2025-12-10", ["mood=7", "sleep=6.5"]), ("2026-01-10", ["mood=2.25"]), ("2026-01-11", ["mood=x"])] {
            _ = try sandbox.add("measured day", ["--at", day + " 21:00"] + fields.flatMap { ["--field", $0] })
        }
        try sandbox.ok(["unlock"])
        defer { _ = try? sandbox.run(["lock"]) }
        try sandbox.waitUntilIndexReady()
        func answered() throws -> Int { try #require(try sandbox.sessionIndex()?["stats_answered"] as? Int) }
        func compare(_ arguments: [String], _ moment: String) throws {
            for format in [["--json"], []] {
                let before = try answered()
                let kept = try sandbox.ok(["stats"] + format + arguments)
                #expect(try answered() == before + 1, "\(moment), \(arguments): not answered by the agent")
                let walked = try sandbox.ok(["stats", "--no-agent"] + format + arguments)
                #expect(kept.out == walked.out, "\(moment), \(arguments): the agent and the walk differ")
            }
        }
        let periods = [[], ["--from", "2025-12-01", "--to", "2026-01-31"], ["--from", "2026-01"], ["--to", "2025-06-10 12:00"],
                       ["--from", "2030-01-01"]]
        for period in periods { try compare(period, "as unlocked") }
        let added = try sandbox.add("one two", ["--at", "2026-01-20 08:00", "--field", "mood=9"])
        try sandbox.ok(["edit", added, "--field", "mood=1"])
        try sandbox.ok(["analysis", "add", added, "--model", "m", "--sentiment=-0.25"])
        try sandbox.ok(["delete", try Self.fixture.get()["2026-01-12"], "--yes"])
        for period in periods { try compare(period, "after writes") }
        let january = try sandbox.ok(["stats", "--json", "--from", "2026-01", "--to", "2026-01"]).object()
        #expect(january["entries"] as? Int == 4, "the fixture's, the two measured and the added one, less the deleted one: \(january)")
    }
}

