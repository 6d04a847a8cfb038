// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Habits jrnl users bring: on this day, short and reversed listings, stats.
@Suite(.tags(.e2e)) struct JrnlHabitTests {
    private static let fixture = Result {
        try Fixture { sandbox in
            [
                "2024": try sandbox.add("Snow on the fifth. #winter", ["--at", "2024-01-05 09:00"]),
                "2025": try sandbox.add("Fifth again, a year on.\nSecond line.", ["--at", "2025-01-05 20:00"]),
                "2026a": try sandbox.add("The sixth.", ["--at", "2026-01-06 08:00"]),
                "2026b": try sandbox.add("The seventh, two words more", ["--at", "2026-01-07 08:00"]),
                "2026c": try sandbox.add("The fifth, this year.", ["--at", "2026-01-05 08:00"]),
            ]
        }
    }

    @Test("--on-this-day DATE lists that month and day in earlier years; alone it means today")
    func onThisDay() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let earlier = try sandbox.list(["--on-this-day", "2026-01-05"])
        #expect(earlier.ids == [fixture["2024"], fixture["2025"]], "earlier years only, oldest first")
        let alone = try sandbox.run(["list", "--on-this-day", "--json"])
        #expect(alone.status == 0, "today's date, whatever it is: \(alone)")
        let withOthers = try sandbox.run(["list", "--on-this-day", "--starred", "--json"])
        #expect(withOthers.status == 0, "\(withOthers)")
        #expect(try withOthers.array().isEmpty, "\(withOthers)")
    }

    @Test("--short prints one line per entry; --reverse lists newest first")
    func shortAndReverse() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let short = try sandbox.run(["list", "--short", "--no-color"])
        #expect(short.lines.count == 5 && !short.out.contains("Second line."), "\(short)")
        #expect(short.lines.first?.hasPrefix("2024-01-05 09:00") == true, "\(short)")
        let reversed = try sandbox.list(["--reverse"])
        #expect(reversed.ids == [fixture["2026b"], fixture["2026a"], fixture["2026c"], fixture["2025"], fixture["2024"]])
        #expect(try sandbox.list(["-n", "2", "--reverse"]).ids == [fixture["2026b"], fixture["2026a"]])
    }

    @Test("jv stats counts entries, words, days and streaks, per month; --json has the documented shape")
    func stats() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let result = try sandbox.run(["stats", "--json"])
        #expect(result.status == 0, "\(result)")
        let stats = try result.object()
        #expect(stats["entries"] as? Int == 5)
        #expect(stats["words"] as? Int == 4 + 7 + 2 + 6 + 4)
        #expect(stats["days_written"] as? Int == 5)
        #expect(stats["first_day"] as? String == "2024-01-05" && stats["last_day"] as? String == "2026-01-07")
        #expect(stats["longest_streak"] as? Int == 3, "2026-01-05, 06 and 07")
        #expect(stats["current_streak"] as? Int == 0, "nothing written yesterday or today")
        #expect(stats["per_month"] as? [String: Int] == ["2024-01": 1, "2025-01": 1, "2026-01": 3])
        #expect(stats["words_per_month"] as? [String: Int] == ["2024-01": 5, "2025-01": 7, "2026-01": 11])
        let january = try sandbox.run(["stats", "--from", "2026-01-01", "--json"]).object()
        #expect(january["entries"] as? Int == 3)
        let text = try sandbox.run(["stats"])
        #expect(text.out.contains("longest streak  3 days") && text.out.contains("2026-01  3"), "\(text)")
    }

    @Test("add --template NAME starts from $XDG_CONFIG_HOME/jv/templates/NAME.md (else ~/.config); given text follows it")
    func templates() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.folder.write("home/.config/jv/templates/daily.md", "Grateful for:\n- \n")
        let id = try sandbox.run(["add", "--template", "daily"], stdin: Data("the sea.".utf8)).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try sandbox.show(id)["content"] as? String == "Grateful for:\n- \n\nthe sea.")
        let elsewhere = sandbox.folder.file("config")
        try sandbox.folder.write("config/jv/templates/work.md", "Standup")
        let fromXDG = try sandbox.run(["add", "--template", "work", "notes"], env: ["XDG_CONFIG_HOME": elsewhere])
        #expect(fromXDG.status == 0, "\(fromXDG)")
        #expect(try sandbox.show(fromXDG.out.trimmingCharacters(in: .whitespacesAndNewlines))["content"] as? String == "Standup\n\nnotes")
        let missing = try sandbox.run(["add", "--template", "nope", "text"])
        #expect(missing.status == 66 && missing.err.contains("No template 'nope'"), "\(missing)")
        #expect(try sandbox.run(["add", "--template", "../daily", "text"]).status == 64)
    }


    @Test("--any-tag keeps entries with one of the tags, --not-tag drops entries with any; a tag-index row removed from the file lets nothing through")
    func anyAndNotTags() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let walk = try sandbox.add("Walk. #outdoors", ["--at", "2026-01-01"])
        let work = try sandbox.add("Meeting. #work", ["--at", "2026-01-02"])
        let both = try sandbox.add("Site visit. #work #outdoors", ["--at", "2026-01-03"])
        let none = try sandbox.add("Quiet day.", ["--at", "2026-01-04"])
        #expect(try sandbox.list(["--any-tag", "work", "--any-tag", "#Outdoors"]).ids == [walk, work, both])
        #expect(try sandbox.list(["--not-tag", "work"]).ids == [walk, none])
        #expect(try sandbox.list(["--any-tag", "outdoors", "--not-tag", "work"]).ids == [walk])
        #expect(try sandbox.list(["--tag", "work", "--not-tag", "outdoors"]).ids == [work])
        // With every tag row deleted, nothing gets through: the vault is refused as it opens (its
        // manifest lists more tag rows), rather than listed without the index.
        try sandbox.sqlite("DELETE FROM entry_tag")
        let refused = try sandbox.run(["list", "--not-tag", "work"])
        #expect(refused.status == 65 && refused.out.isEmpty, "\(refused)")
    }


    @Test("edit ID --tag T / --untag T change explicit tags only; the text, and tags written in it, stay")
    func editTags() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Harbour walk with #anna.", ["--tag", "outdoors"])
        let tagged = try sandbox.run(["edit", id, "--tag", "Weekend", "--tag", "outdoors"])
        #expect(tagged.status == 0, "\(tagged)")
        #expect(try sandbox.list(["--tag", "weekend"]).ids == [id])
        let untagged = try sandbox.run(["edit", id, "--untag", "outdoors", "--untag", "anna"])
        #expect(untagged.status == 0, "\(untagged)")
        let entry = try sandbox.show(id)
        #expect(entry["content"] as? String == "Harbour walk with #anna.")
        #expect(Set(entry["tags"] as? [String] ?? []) == ["anna", "weekend"], "\(entry)")
        #expect(try sandbox.list(["--tag", "outdoors"]).ids.isEmpty)
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("jrnl's command line, when the first word is not a jv command, selects what jrnl 4.6 selects", .tags(.slow), .notInQuickRun)
    func jrnlCommandLine() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let a = try sandbox.add("Walk with @anna. #outdoors", ["--at", "2026-01-01 09:00", "--star"])
        let b = try sandbox.add("Meeting. #work", ["--at", "2026-01-02 09:00"])
        let c = try sandbox.add("Dinner with @anna #work", ["--at", "2026-01-03 09:00"])
        let d = try sandbox.add("Quiet day.", ["--at", "2026-01-04 09:00"])
        let table: [([String], [String])] = [
            (["@anna"], [a, c]), (["@anna", "#work"], [a, b, c]), (["@anna", "-and", "#work"], [c]),
            (["-n", "2"], [c, d]), (["-2"], [c, d]), (["-starred"], [a]), (["-not", "@anna"], [b, d]),
            (["-from", "2026-01-02", "-to", "2026-01-03"], [b, c]), (["-until", "2026-01-01"], [a]),
            (["-on", "2026-01-04"], [d]), (["-contains", "dinner"], [c]), (["-year", "2026"], [a, b, c, d]),
            (["@work", "-from", "2026-01-03"], [c]), (["--format", "json"], [a, b, c, d]),
        ]
        for (jrnl, expected) in table {
            let result = try sandbox.run(jrnl + ["--json"])
            #expect(result.status == 0, "\(jrnl): \(result)")
            #expect(try result.array().ids == expected, "\(jrnl): \(result)")
        }
        let short = try sandbox.run(["--short"])
        #expect(short.status == 0 && short.lines.count == 4, "\(short)")
        let tags = try sandbox.run(["--tags"])
        #expect(tags.status == 0 && tags.lines.contains { $0.hasPrefix("anna") && $0.hasSuffix("2") }, "\(tags)")
        // Words without a filter are a new entry, as in jrnl; a leading date dates it.
        let written = try sandbox.run(["yesterday:", "Went", "for", "a", "swim"])
        #expect(written.status == 0, "\(written)")
        let swim = try sandbox.show(written.out.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(swim["content"] as? String == "Went for a swim" && swim["local_day"] as? String == civilDay(offsetBy: -1), "\(swim)")
        #expect(try sandbox.run(["Sunshine"]).status == 0, "a word far from every command is an entry")
        // A mistyped command is not an entry; what jv cannot do says the jv way.
        for (words, says) in [(["lsit"], "did you mean"), (["lsit", "-n", "2"], "did you mean"),
                              (["sunshine", "-n", "2"], "@tag"), (["--delete"], "jv delete ID"), (["-tagged"], "jv tags"),
                              (["--change-time", "today"], "jv edit ID --at"), (["-x", "text"], "jv help jrnl")] {
            let refused = try sandbox.run(words)
            #expect(refused.status == 64 && refused.err.contains(says), "\(words): \(refused)")
        }
        #expect(try sandbox.list().count == 6, "only the swim and the sunshine were added")
        let help = try sandbox.run(["help", "jrnl"])
        #expect(help.status == 0 && help.out.contains("jrnl -n N") && help.out.contains("jv list --any-tag"), "\(help)")
    }

    @Test("a mistyped command before other words (jv serach harbour) is refused with the command and 'jv add', not written; sentences are written")
    func mistypedCommandBeforeWords() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for (words, command) in [(["serach", "harbour"], "search"), (["lsit", "the", "entries"], "list"),
                                 (["exprot", "everything"], "export"), (["delte", "that", "entry"], "delete")] {
            let refused = try sandbox.run(words)
            #expect(refused.status == 64 && refused.err.contains("did you mean '\(command)'") && refused.err.contains("'jv add TEXT'"),
                    "\(words): \(refused)")
        }
        #expect(try sandbox.list().isEmpty, "nothing was written")
        // Words two edits from a command ("was", "last", "into", "snow"), or capitalised, start sentences.
        let sentences = [["today", "was", "good"], ["was", "a", "long", "day"], ["last", "night", "was", "fun"],
                         ["into", "the", "woods"], ["Snow", "again"], ["Search", "party", "found", "the", "dog"]]
        for words in sentences {
            let written = try sandbox.run(words)
            #expect(written.status == 0, "\(words): \(written)")
        }
        #expect(try sandbox.list().count == sentences.count)
    }

    @Test("jrnl's star marks ('yesterday *: text', '*text', 'text*') star the entry and are not kept; stars in the text stay")
    func starMarks() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let dated = try sandbox.addJSON("yesterday *: Walk by the sea")
        #expect(dated["starred"] as? Bool == true && dated["content"] as? String == "Walk by the sea", "\(dated)")
        #expect(dated["local_day"] as? String == civilDay(offsetBy: -1), "\(dated)")
        for text in ["*Big day", "Big day *", "Big day*\nSecond line"] {
            let entry = try sandbox.addJSON(text)
            #expect(entry["starred"] as? Bool == true, "\(text): \(entry)")
            #expect((entry["content"] as? String)?.contains("*") == false, "\(text): \(entry)")
        }
        for text in ["*emphasis* here", "**bold** day", "2*3 is six", "Note *: not a date"] {
            let entry = try sandbox.addJSON(text)
            #expect(entry["starred"] as? Bool == false && entry["content"] as? String == text, "\(text): \(entry)")
        }
        let jrnlStyle = try sandbox.run(["yesterday", "*:", "Starred", "walk"])
        #expect(jrnlStyle.status == 0, "\(jrnlStyle)")
        #expect(try sandbox.show(jrnlStyle.out.trimmingCharacters(in: .whitespacesAndNewlines))["starred"] as? Bool == true)
    }

    @Test("a config limit trims a plain listing, not a range asked for with --from, --to or --on")
    func limitSparesRanges() throws {
        let sandbox = try Sandbox()
        try sandbox.folder.write("config/jv/config.toml", "limit = 2\n")
        sandbox.environment["XDG_CONFIG_HOME"] = sandbox.folder.file("config")
        try sandbox.installEmptyVault()
        let ids = try (1...4).map { try sandbox.add("Day \($0)", ["--at", "2026-01-0\($0)"]) }
        #expect(try sandbox.list().ids == Array(ids.suffix(2)))
        #expect(try sandbox.list(["--from", "2026-01-01", "--to", "2026-01-03"]).ids == Array(ids.prefix(3)))
        #expect(try sandbox.list(["--on", "2026-01"]).ids == ids)
        #expect(try sandbox.list(["--from", "2026-01-01", "-n", "1"]).ids == [ids[3]], "-n still limits a range")
    }

    @Test("edit ID --untag of a tag written in the text, or of no tag, says so and changes nothing")
    func untagWhatCannotBeRemoved() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Harbour walk. #work")
        let before = try sandbox.show(id)
        for (tag, says) in [("work", "'work' is written in the text"), ("nosuch", "The entry has no tag 'nosuch'")] {
            let result = try sandbox.run(["edit", id, "--untag", tag])
            #expect(result.status == 0 && result.err.contains(says), "\(result)")
            #expect(try sandbox.show(id)["modified_at"] as? String == before["modified_at"] as? String, "nothing was written")
        }
    }

}
