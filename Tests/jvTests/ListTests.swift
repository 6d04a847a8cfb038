// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@Suite("jv list", .tags(.e2e))
struct ListTests {
    /// A vault with entries written out of order, over several days (made once, copied per test).
    private static let fixture = Result {
        try Fixture { sandbox in
            [
                "mar3": try sandbox.add("Third of March #work", ["--at", "2026-03-03T10:00"]),
                "mar1": try sandbox.add("First of March", ["--at", "2026-03-01T08:00", "--star"]),
                "mar2late": try sandbox.add("Late on the second @Work", ["--at", "2026-03-02T23:59"]),
                "mar2": try sandbox.add("Café on the second", ["--at", "2026-03-02T00:00"]),
                "mar4": try sandbox.add("Fourth of March", ["--at", "2026-03-04T12:00", "--star"]),
            ]
        }
    }

    private func journal() throws -> (Sandbox, [String: String]) {
        let fixture = try Self.fixture.get()
        return (try Sandbox(from: fixture), fixture.values)
    }

    @Test("entries come in time order, whatever order they were added in")
    func timeOrder() throws {
        let (sandbox, ids) = try journal()
        let entries = try sandbox.list()
        #expect(entries.ids == [ids["mar1"], ids["mar2"], ids["mar2late"], ids["mar3"], ids["mar4"]].map { $0! })
        let text = try sandbox.run(["list"])
        #expect(text.status == 0)
        let order = ["First of March", "Café on the second", "Late on the second", "Third of March", "Fourth of March"]
            .map { text.out.range(of: $0)?.lowerBound }
        #expect(!order.contains(nil), "\(text)")
        #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(text)")
    }

    @Test("--from, --to (inclusive of its whole day) and --on")
    func dayBounds() throws {
        let (sandbox, ids) = try journal()
        #expect(try sandbox.list(["--from", "2026-03-02", "--to", "2026-03-03"]).ids
            == [ids["mar2"]!, ids["mar2late"]!, ids["mar3"]!])
        #expect(try sandbox.list(["--to", "2026-03-02"]).ids == [ids["mar1"]!, ids["mar2"]!, ids["mar2late"]!],
                "--to includes 23:59 of its day")
        #expect(try sandbox.list(["--from", "2026-03-04"]).ids == [ids["mar4"]!])
        #expect(try sandbox.list(["--on", "2026-03-02"]).ids == [ids["mar2"]!, ids["mar2late"]!])
        #expect(try sandbox.list(["--on", "2026-03-05"]).isEmpty)
        #expect(try sandbox.list(["--from", "2026-03-05"]).isEmpty)
    }

    @Test("entries with different UTC offsets near midnight are filtered by their writer's local day")
    func writersLocalDay() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        // 2026-03-10T23:30+09:00 is 14:30Z on the 10th; 2026-03-10T23:59-08:00 is 07:59Z on the
        // 11th; 2026-03-11T00:30+05:00 is 19:30Z on the 10th. Only the writer's day counts.
        let tokyo = try sandbox.add("tokyo night", ["--at", "2026-03-10T23:30+09:00"])
        let seattle = try sandbox.add("seattle night", ["--at", "2026-03-10T23:59-08:00"])
        let karachi = try sandbox.add("karachi morning", ["--at", "2026-03-11T00:30+05:00"])
        #expect(Set(try sandbox.list(["--on", "2026-03-10"]).ids) == [tokyo, seattle])
        #expect(try sandbox.list(["--on", "2026-03-11"]).ids == [karachi])
        #expect(Set(try sandbox.list(["--to", "2026-03-10"]).ids) == [tokyo, seattle])
        #expect(try sandbox.list(["--from", "2026-03-11"]).ids == [karachi])
        // The same holds whatever TZ the reader is in.
        let fromTokyo = try sandbox.run(["list", "--json", "--on", "2026-03-10"], env: ["TZ": "Asia/Tokyo"])
        #expect(Set(try fromTokyo.array().ids) == [tokyo, seattle])
        let local = try sandbox.list(["--on", "2026-03-10"]).map { $0["local_day"] as? String }
        #expect(local == ["2026-03-10", "2026-03-10"])
    }

    @Test("-n N gives the newest N in ascending order")
    func newestN() throws {
        let (sandbox, ids) = try journal()
        #expect(try sandbox.list(["-n", "2"]).ids == [ids["mar3"]!, ids["mar4"]!])
        #expect(try sandbox.list(["-n", "1"]).ids == [ids["mar4"]!])
        #expect(try sandbox.list(["-n", "0"]).isEmpty)
        #expect(try sandbox.list(["-n", "99"]).count == 5)
        #expect(try sandbox.list(["-n", "2", "--to", "2026-03-02"]).ids == [ids["mar2"]!, ids["mar2late"]!])
    }

    @Test("--starred")
    func starred() throws {
        let (sandbox, ids) = try journal()
        #expect(try sandbox.list(["--starred"]).ids == [ids["mar1"]!, ids["mar4"]!])
    }

    @Test("--tag matches inline and explicit tags in any spelling", arguments: ["@Work", "#work", "work", "WORK"])
    func tagSpellings(tag: String) throws {
        let (sandbox, ids) = try journal()
        #expect(try sandbox.list(["--tag", tag]).ids == [ids["mar2late"]!, ids["mar3"]!])
    }

    @Test("--tag with explicit tags, several --tag options, and a tag nobody used")
    func explicitTags() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let tagged = try sandbox.add("no inline tags", ["--tag", "Garden"])
        try sandbox.add("another one")
        #expect(try sandbox.list(["--tag", "#garden"]).ids == [tagged])
        #expect(try sandbox.list(["--tag", "gardening"]).isEmpty)
        let both = try sandbox.add("Pruned the #roses", ["--tag", "garden"])
        #expect(try sandbox.list(["--tag", "garden", "--tag", "@Roses"]).ids == [both], "several --tag: all must match")
        #expect(try sandbox.list(["--tag", "garden"]).ids == [tagged, both])
        #expect(try sandbox.list(["--tag", "roses", "--tag", "other"]).isEmpty)
    }

    @Test("--contains is case- and diacritic-insensitive", arguments: ["CAFE", "café", "Cafe ON", "SECOND"])
    func containsInsensitive(query: String) throws {
        let (sandbox, ids) = try journal()
        let found = try sandbox.list(["--contains", query]).ids
        if query == "SECOND" {
            #expect(found == [ids["mar2"]!, ids["mar2late"]!])
        } else {
            #expect(found == [ids["mar2"]!])
        }
        #expect(try sandbox.list(["--contains", "zzz-nothing"]).isEmpty)
    }

    @Test("--format json equals --json: one JSON array")
    func formatJSON() throws {
        let (sandbox, _) = try journal()
        let viaFormat = try sandbox.run(["list", "--format", "json"])
        #expect(viaFormat.status == 0)
        let viaFlag = try sandbox.run(["list", "--json"])
        #expect(try viaFormat.array().ids == viaFlag.array().ids)
        #expect(try viaFormat.array().count == 5)
        #expect(viaFlag.out.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("["))
        let empty = try sandbox.run(["list", "--json", "--on", "1999-01-01"])
        #expect(try empty.array().isEmpty, "an empty result is still one array: \(empty)")
    }

    @Test("--format markdown: a heading with day and time per entry, then its text")
    func formatMarkdown() throws {
        let (sandbox, _) = try journal()
        let result = try sandbox.run(["list", "--format", "markdown", "--on", "2026-03-01"])
        #expect(result.status == 0, "\(result)")
        let lines = result.lines
        #expect(lines.first?.hasPrefix("## 2026-03-01 08:00") == true, "\(result)")
        #expect(lines.contains("First of March"), "\(result)")
        let all = try sandbox.run(["list", "--format", "markdown"])
        #expect(all.lines.filter { $0.hasPrefix("## ") }.count == 5, "\(all)")
    }

    @Test("--format text: day, time, short id and the text")
    func formatText() throws {
        let (sandbox, ids) = try journal()
        let result = try sandbox.run(["list", "--format", "text", "--on", "2026-03-03"])
        #expect(result.status == 0, "\(result)")
        let header = try #require(result.lines.first)
        #expect(header.contains("2026-03-03 10:00"), "\(result)")
        #expect(header.contains(String(ids["mar3"]!.prefix(8))), "\(result)")
        #expect(result.out.contains("Third of March #work"), "\(result)")
        #expect(throws: (any Error).self) { try result.json() }
    }

    /// The whole layout, byte for byte: the header, every line of the body indented by four
    /// spaces (an empty line too), the explicit tags the text does not show, a blank line
    /// between entries.
    @Test("--format text lays out header, indented body lines and unseen tags exactly")
    func formatTextLayout() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let first = try sandbox.add("Title line\nsecond líne 東京\n\nfourth #seen", ["--at", "2026-03-03T10:00", "--tag", "extra", "--tag", "seen"])
        let second = try sandbox.add("Only a title. And a body.", ["--at", "2026-03-04T11:00", "--star"])
        let result = try sandbox.run(["list", "--no-color"])
        #expect(result.status == 0, "\(result)")
        #expect(result.out == """
            2026-03-03 10:00  \(first.prefix(8))  Title line
                second líne 東京
            \("    ")
                fourth #seen
                #extra

            2026-03-04 11:00  \(second.prefix(8)) ★  Only a title.
                And a body.

            """, "\(result)")
    }

    @Test("a bad --format, a negative -n or an unknown date exit 64",
          arguments: [["--format", "yaml"], ["-n", "-1"], ["-n", "many"], ["--from", "the dawn of time"], ["--on", "2026-02-30"]])
    func badOptions(arguments: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["list"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.out.isEmpty)
    }

    /// An empty answer is not silence: standard output stays empty (scripts see no lines), and
    /// standard error says why.
    @Test("list and search with nothing to show say so on standard error; --json prints []")
    func emptyAnswersAreSaid() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let empty = try sandbox.run(["list"])
        #expect(empty.status == 0 && empty.out.isEmpty && empty.err.contains("no entries yet"), "\(empty)")
        try sandbox.add("One entry.")
        let none = try sandbox.run(["list", "--on", "1999-01-01"])
        #expect(none.status == 0 && none.out.isEmpty && none.err.contains("No entries match"), "\(none)")
        let missed = try sandbox.run(["search", "zzzqqq"])
        #expect(missed.status == 0 && missed.out.isEmpty && missed.err.contains("Nothing matches"), "\(missed)")
        let json = try sandbox.run(["list", "--on", "1999-01-01", "--json"])
        #expect(json.out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]" && json.err.isEmpty, "\(json)")
    }

    @Test("list shows explicit tags the text does not, and each time's offset when entries come from several zones")
    func explicitTagsAndOffsetsAreShown() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Late in Tokyo.", ["--at", "2026-01-05T23:30+09:00"])
        try sandbox.add("Morning in Paris. #coffee", ["--at", "2026-01-06 10:00", "--tag", "work", "--tag", "coffee"])
        let both = try sandbox.run(["list", "--no-color"])
        #expect(both.status == 0, "\(both)")
        #expect(both.out.contains("2026-01-05 23:30 +09:00") && both.out.contains("2026-01-06 10:00 +00:00"), "\(both)")
        #expect(both.out.contains("#work") && !both.out.contains("#coffee #work"), "only tags the text does not show: \(both)")
        let one = try sandbox.run(["list", "--on", "2026-01-06", "--no-color"])
        #expect(one.out.contains("2026-01-06 10:00  ") && !one.out.contains("+00:00"), "one zone, no offsets: \(one)")
    }

    @Test("--format short is one line per entry (--short too); --format fancy boxes each entry within 79 columns")
    func shortAndFancy() throws {
        let (sandbox, _) = try journal()
        let short = try sandbox.run(["list", "--format", "short"])
        #expect(short.status == 0 && short.lines.count == 5 && short.lines[0].contains("First of March"), "\(short)")
        #expect(try sandbox.run(["list", "--short"]).out == short.out)
        #expect(try sandbox.run(["list", "--short", "--format", "fancy"]).status == 64)
        try sandbox.add("A title.\nAnd a body long enough to be wrapped inside the box: " + String(repeating: "words and ", count: 20),
                        ["--at", "2026-03-05T09:00", "--tag", "boxed"])
        let fancy = try sandbox.run(["list", "--format", "fancy", "--from", "2026-03-04"])
        #expect(fancy.status == 0, "\(fancy)")
        #expect(fancy.lines.filter { $0.hasPrefix("┎─ 2026-03-0") }.count == 2 && fancy.lines.filter { $0.hasPrefix("┖") }.count == 2, "\(fancy)")
        #expect(fancy.lines.contains { $0.hasPrefix("┃ A title.") } && fancy.lines.contains { $0.hasPrefix("┃ #boxed") }, "\(fancy)")
        #expect(fancy.lines.allSatisfy { $0.count == 79 }, "every line of a box is as wide: \(fancy)")
        #expect(fancy.lines.filter { $0.hasPrefix("┃ ") }.count > 4, "the body is wrapped: \(fancy)")
    }
}
