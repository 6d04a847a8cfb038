// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

/// `jv report` as a person runs it: the page's file (0600, never replaced without --force), its
/// period options, its charts' numbers against `jv stats --json`, and standard output.
@Suite("jv report", .tags(.e2e))
struct ReportCommandTests {
    /// 2026: an entry on the 5th of each month from January to June with 10 × month words and
    /// #work, a second March entry (starred, 2 words, mood 8), an analysis of the April entry
    /// ("positive"); 2025-05-05: one entry outside the year.
    private static let fixture = Result {
        try Fixture { sandbox in
            var ids: [String: String] = [:]
            for month in 1...6 {
                let words = Array(repeating: "word", count: 10 * month - 1).joined(separator: " ") + " #work"
                ids["2026-0\(month)"] = try sandbox.add(words, ["--at", "2026-0\(month)-05 09:00"])
            }
            ids["starred"] = try sandbox.add("Starred one", ["--at", "2026-03-20 21:00", "--star", "--field", "mood=8"])
            ids["2025"] = try sandbox.add("Last year", ["--at", "2025-05-05 09:00"])
            try sandbox.ok(["analysis", "add", ids["2026-04"]!, "--model", "m", "--sentiment", "positive", "--processed-at", "2026-04-06 10:00"])
            return ids
        }
    }

    private static func mode(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1) & 0o777
    }

    /// `name="value"` pairs of the marks in `html` with `data-label` and `data-value`, under the
    /// section whose id is `section`.
    static func values(in html: String, section: String) throws -> [String: Double] {
        let start = try #require(html.range(of: "<section id=\"\(section)\">"), "no section \(section)")
        let end = try #require(html[start.upperBound...].range(of: "</section>"))
        var values: [String: Double] = [:]
        for match in html[start.upperBound..<end.lowerBound].matches(of: /data-label="([^"]+)" data-value="(-?[0-9.]+)"/) {
            values[String(match.output.1)] = Double(match.output.2)
        }
        return values
    }

    @Test("--year writes a 0600 page whose bars, weeks and sentiment are jv stats's numbers; never replaced without --force (73)")
    func pageMatchesStats() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let output = sandbox.folder.file("report.html")
        let written = try sandbox.run(["report", "--year", "2026", "--output", output], umask022: true)
        try #require(written.status == 0, "\(written)")
        #expect(try Self.mode(output) == 0o600)
        let html = try String(contentsOfFile: output, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("<title>Journal · 2026</title>"))
        let stats = try sandbox.ok(["stats", "--from", "2026-01-01", "--to", "2026-12-31", "--json"]).object()
        let words = try Self.values(in: html, section: "words")
        #expect(words.count == 12)
        let statsWords = try #require(stats["words_per_month"] as? [String: Int])
        #expect(statsWords.count == 6 && statsWords["2026-03"] == 32)
        for (month, value) in words { #expect(value == Double(statsWords[month] ?? 0), "\(month)") }
        let entries = try Self.values(in: html, section: "entries-per-month")
        let statsEntries = try #require(stats["per_month"] as? [String: Int])
        for (month, value) in entries { #expect(value == Double(statsEntries[month] ?? 0), "\(month)") }
        let weeks = try Self.values(in: html, section: "weeks")
        let statsWeeks = try #require(stats["entries_per_week"] as? [[String: Any]])
        #expect(weeks.count == 53, "every ISO week with a day in 2026")
        for week in statsWeeks { #expect(weeks[week["week"] as? String ?? ""] == Double(week["entries"] as? Int ?? -1), "\(week)") }
        let sentiment = try Self.values(in: html, section: "sentiment")
        let statsSentiment = try #require(stats["sentiment_per_month"] as? [String: [String: Any]])
        #expect(sentiment == statsSentiment.mapValues { $0["mean"] as? Double ?? .nan } && sentiment == ["2026-04": 1])
        // The heat map's days add up to the entries, one cell per day of the year.
        let cells = html.matches(of: /data-day="(2026-[0-9-]+)" data-value="(\d+)"/)
        #expect(cells.count == 365 && cells.compactMap { Int($0.output.2) }.reduce(0, +) == stats["entries"] as? Int)
        #expect(html.contains("<h3><time datetime=\"2026-03-20\">2026-03-20</time> ★</h3>") && html.contains(">Starred one</div>"))
        #expect(!html.contains("Last year"), "2025's entry is outside the period, and not on this day")
        // The measures, as jv stats gives them per month.
        #expect(try Self.values(in: html, section: "measures") == ["2026-03-01": 8] && html.contains("<h3>mood</h3>"))

        let before = try Data(contentsOf: URL(fileURLWithPath: output))
        let refused = try sandbox.fails(["report", "--year", "2025", "--output", output], status: 73)
        #expect(refused.err.contains("--force"), "\(refused)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
        try sandbox.ok(["report", "--year", "2025", "--output", output, "--force"])
        let replaced = try String(contentsOfFile: output, encoding: .utf8)
        #expect(try Self.values(in: replaced, section: "words")["2025-05"] == 2 && Self.mode(output) == 0o600)
        #expect(try sandbox.hiddenFiles(in: sandbox.folder.path).filter { $0.contains(".writing-") }.isEmpty)
    }

    @Test("a bad --year, --year with --from, --to alone, a reversed range, more than 100 years or no --output is a usage error (64) and writes nothing")
    func usageErrors() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let output = sandbox.folder.file("report.html")
        for year in ["abc", "0", "10000", "2026-11", "+2026", "-1", "", "２０２６", "20 26"] {
            try sandbox.fails(["report", "--year", year, "--output", output], status: 64)
        }
        try sandbox.fails(["report", "--year", "2026", "--from", "2026-01-01", "--output", output], status: 64)
        try sandbox.fails(["report", "--to", "2026-03-01", "--output", output], status: 64)
        try sandbox.fails(["report", "--from", "2026-03-01", "--to", "2026-02-01", "--output", output], status: 64)
        try sandbox.fails(["report", "--from", "not a date", "--output", output], status: 64)
        try sandbox.fails(["report", "--from", "1900-01-01", "--to", "2026-12-31", "--output", output], status: 64)
        try sandbox.fails(["report", "--year", "2026"], status: 64)
        try sandbox.fails(["report", "--year", "2026", "--json", "--output", output], status: 64)
        #expect(!FileManager.default.fileExists(atPath: output))
        try sandbox.fails(["report", "--year", "2026", "--output", sandbox.folder.file("missing/report.html")], status: 73)
    }

    @Test("an empty year is a page of zeros and notes; --from/--to bound the period; '--output -' writes to standard output")
    func emptyYearRangeAndStandardOutput() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let page = try sandbox.ok(["report", "--year", "1999", "--output", "-"])
        #expect(page.out.hasPrefix("<!DOCTYPE html>") && page.err.isEmpty, "\(page)")
        let words = try Self.values(in: page.out, section: "words")
        #expect(words.count == 12 && words.values.allSatisfy { $0 == 0 })
        for note in ["No entry of the period has a scored sentiment.", "No tags in this period.", "No people in this period.",
                     "No starred entry in this period.", "No photo in this period."] {
            #expect(page.out.contains(note), "\(note)")
        }
        let range = try sandbox.ok(["report", "--from", "2026-03-01", "--to", "2026-04-30", "--output", "-"]).out
        #expect(try Self.values(in: range, section: "words") == ["2026-03": 32, "2026-04": 40])
        #expect(range.contains("<title>Journal · 2026-03-01 – 2026-04-30</title>"))
    }

    @Test("--json gives the period, jv stats's numbers, the days and the tags per month")
    func json() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let report = try sandbox.ok(["report", "--year", "2026", "--json"])
        #expect(jsonKeys(try report.jsonValue()) == ["from", "to", "stats", "days", "tags_per_month", "people_per_month", "starred",
                                                      "on_this_day", "photos"], "\(report)")
        let object = try report.object()
        let stats = try sandbox.ok(["stats", "--from", "2026-01-01", "--to", "2026-12-31", "--json"]).object()
        #expect((object["stats"] as? NSDictionary) == (stats as NSDictionary))
        #expect((object["days"] as? [String: [String: Int]])?["2026-03-05"] == ["entries": 1, "words": 30])
        #expect((object["tags_per_month"] as? [String: [[String: Any]]])?["2026-02"]?.first?["name"] as? String == "work")
        #expect(object["starred"] as? Int == 1 && object["from"] as? String == "2026-01-01" && object["to"] as? String == "2026-12-31")
    }
}
