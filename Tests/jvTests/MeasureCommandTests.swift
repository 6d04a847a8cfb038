// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Measures as a person uses them: `jv add --field`, `jv edit --field/--unfield`, `jv show`,
/// `jv list --json` and `--where`, `jv fields`; bad input refused with nothing written; the
/// vault file holding no field in plaintext; export and import, rekey, check and sync.
@Suite("Measures on entries", .tags(.e2e)) struct MeasureCommandTests {
    /// Three entries: a good day (mood 8, sleep 7.5, rain, outside), a poor one (mood 4, sleep 5,
    /// sun, not outside), one without fields.
    private static let fixture = Result {
        try Fixture { sandbox in
            [
                "good": try sandbox.add("A good day.", ["--at", "2026-01-05 09:00", "--field", "Mood=8", "--field", "sleep=7.5",
                                                        "--field", "weather=rain", "--field", "outside=yes"]),
                "poor": try sandbox.add("A poor day.", ["--at", "2026-01-06 09:00", "--field", "mood=4", "--field", "sleep=5",
                                                        "--field", "weather=Sun", "--field", "outside=no"]),
                "plain": try sandbox.add("No fields today.", ["--at", "2026-01-07 09:00"]),
            ]
        }
    }

    private static func fields(_ entry: [String: Any]) -> NSDictionary? {
        (entry["fields"] as? [String: Any]).map { $0 as NSDictionary }
    }

    private static func ids(_ sandbox: Sandbox, _ options: [String]) throws -> [String] {
        try sandbox.list(options).compactMap { $0["id"] as? String }
    }

    @Test("add --field: show --json and list --json give the fields as an object, names case-folded; an entry without has no \"fields\"")
    func addShowList() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let expected: NSDictionary = ["mood": 8, "sleep": 7.5, "weather": "rain", "outside": true]
        #expect(Self.fields(try sandbox.show(fixture["good"])) == expected)
        #expect(try sandbox.show(fixture["plain"])["fields"] == nil)
        let listed = try sandbox.list()
        #expect(listed.map(Self.fields) == [expected, ["mood": 4, "sleep": 5, "weather": "Sun", "outside": false], nil])
        let shown = try sandbox.ok(["show", fixture["good"]]).out
        #expect(shown.contains("fields: mood 8 · outside yes · sleep 7.5 · weather rain"), "\(shown)")
        let added = try sandbox.addJSON("Printed back.", ["--field", "steps=12000"])
        #expect(Self.fields(added) == ["steps": 12000])
    }

    @Test("edit --field and --unfield change the fields alone (the entry's time of change stays); the last one removed takes the row")
    func editFields() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let id = fixture["good"]
        let before = try sandbox.show(id)
        let edited = try sandbox.ok(["edit", id, "--field", "mood=9", "--field", "note=long walk", "--unfield", "Weather", "--json"])
        #expect(Self.fields(try edited.object()) == ["mood": 9, "sleep": 7.5, "outside": true, "note": "long walk"])
        let after = try sandbox.show(id)
        #expect(Self.fields(after) == ["mood": 9, "sleep": 7.5, "outside": true, "note": "long walk"])
        #expect(after["modified_at"] as? String == before["modified_at"] as? String)
        #expect(after["content"] as? String == "A good day.")

        // The manifest counts every write transaction (FORMAT.md §11.2).
        let unchanged = try sandbox.sqlite("SELECT hex(data) FROM manifest")
        let missing = try sandbox.ok(["edit", id, "--unfield", "weather"])
        #expect(missing.err.contains("The entry has no field 'weather'."), "\(missing)")
        #expect(try sandbox.sqlite("SELECT hex(data) FROM manifest") == unchanged, "nothing to remove: nothing written")
        try sandbox.ok(["edit", id, "--unfield", "mood", "--unfield", "sleep", "--unfield", "outside", "--unfield", "note"])
        #expect(try sandbox.show(id)["fields"] == nil)
        #expect(try sandbox.sqlite("SELECT count(*) FROM measure WHERE entry_id = '\(id)'") == "0")

        // With the text: both change in one go.
        try sandbox.ok(["edit", id, "--field", "mood=6"], input: "A better text.")
        #expect(try sandbox.show(id)["content"] as? String == "A better text.")
        #expect(Self.fields(try sandbox.show(id)) == ["mood": 6])
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("list --where filters by fields: numbers, text without regard to case, yes/no, presence and absence, several together")
    func listWhere() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let (good, poor, plain) = (fixture["good"], fixture["poor"], fixture["plain"])
        let cases: [([String], [String])] = [
            (["--where", "mood>=7"], [good]), (["--where", "mood < 8"], [poor]), (["--where", "mood<=8"], [good, poor]),
            (["--where", "mood>4"], [good]), (["--where", "mood=4"], [poor]), (["--where", "mood!=4"], [good]),
            (["--where", "sleep==7.5"], [good]), (["--where", "weather=sun"], [poor]), (["--where", "weather!=sun"], [good]),
            (["--where", "outside=yes"], [good]), (["--where", "outside=false"], [poor]),
            (["--where", "mood"], [good, poor]), (["--where", "!mood"], [plain]), (["--where", "steps"], []),
            (["--where", "mood>=4", "--where", "weather=rain"], [good]), (["--where", "mood>=4", "--where", "outside=no", "--where", "sleep<6"], [poor]),
            (["--where", "mood>=4", "-n", "1"], [poor]), (["--where", "mood>=4", "--from", "2026-01-06"], [poor]),
        ]
        for (options, expected) in cases {
            #expect(try Self.ids(sandbox, options) == expected, "\(options)")
        }
        let text = try sandbox.ok(["list", "--where", "mood>=7"]).out
        #expect(text.contains("A good day.") && !text.contains("A poor day."))
    }

    @Test("bad names, values and conditions: one sentence, exit 64, nothing written")
    func badInput() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.vault))
        let refusals: [([String], String)] = [
            (["add", "x", "--field", "mood"], "'mood' is not name=value"),
            (["add", "x", "--field", "bad name=1"], "'bad name' is not a field name"),
            (["add", "x", "--field", "9lives=1"], "is not a field name"),
            (["add", "x", "--field", String(repeating: "a", count: 65) + "=1"], "is not a field name"),
            (["add", "x", "--field", "mood="], "The value of the field 'mood' is empty"),
            (["add", "x", "--field", "mood=1e999"], "is not a finite number"),
            (["add", "x", "--field", "note=" + String(repeating: "é", count: 101)], "is longer than 200 bytes"),
            (["add", "x", "--field", "note=a\u{7}b"], "holds a control character"),
            (["edit", fixture["good"], "--field", "mood=1", "--unfield", "mood"], "both name 'mood'"),
            (["edit", "--from", "2026-01-01", "--field", "mood=1"], "change one entry: give its id"),
            (["list", "--where", "mood>"], "has no value after >"),
            (["list", "--where", "mood=>7"], "has no comparison"),
            (["list", "--where", "weather<rain"], "orders a value that is not a number"),
            (["list", "--where", "=7"], "does not start with a field name"),
        ]
        for (arguments, sentence) in refusals {
            let result = try sandbox.fails(arguments, status: 64)
            #expect(result.err.contains(sentence), "\(arguments): \(result)")
            #expect(result.errorLines.count == 1, "\(arguments): \(result)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.vault)) == before, "nothing written")
        #expect(try sandbox.entryCount() == 3)
    }

    @Test("jv fields: names with counts, numbers' range and mean, texts, yes/no; --json; --from and --to")
    func fieldsCommand() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let fields = try sandbox.ok(["fields", "--json"]).array()
        #expect(fields.map { $0["name"] as? String } == ["mood", "outside", "sleep", "weather"])
        #expect(fields[0]["entries"] as? Int == 2)
        #expect(fields[0]["numbers"] as? NSDictionary == ["count": 2, "min": 4, "max": 8, "mean": 6])
        #expect(fields[1]["flags"] as? NSDictionary == ["yes": 1, "no": 1])
        #expect(fields[2]["numbers"] as? NSDictionary == ["count": 2, "min": 5, "max": 7.5, "mean": 6.25])
        #expect(fields[3]["texts"] as? NSDictionary == ["count": 2, "distinct": 2, "most_common": "Sun"])
        let later = try sandbox.ok(["fields", "--from", "2026-01-06", "--json"]).array()
        #expect(later.first?["numbers"] as? NSDictionary == ["count": 1, "min": 4, "max": 4, "mean": 4])
        #expect(try sandbox.ok(["fields", "--to", "2026-01-04", "--json"]).array().isEmpty)
        let text = try sandbox.ok(["fields"]).out
        #expect(text.contains("mood     2 entries; 4–8, mean 6"), "\(text)")
        #expect(text.contains("weather  2 entries; 2 distinct, most often 'Sun' (1)"), "\(text)")
        #expect(text.contains("outside  2 entries; yes 1, no 1"), "\(text)")
    }

    @Test("the vault file holds no field name or value in plaintext; deleting an entry deletes its measures; check opens them and sees them tampered")
    func storageAndCheck() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        try sandbox.ok(["edit", fixture["good"], "--field", "sleepquality=superb"])
        let file = try Data(contentsOf: URL(fileURLWithPath: sandbox.vault))
        for secret in ["sleepquality", "superb", "weather", "rain"] {
            #expect(!containsBytes(file, Data(secret.utf8)), "\(secret) in the vault file")
        }
        #expect(try sandbox.run(["check"]).status == 0)

        // One entry's measures sealed for the other: both are refused.
        try sandbox.sqlite("""
            UPDATE measure SET fields = (SELECT fields FROM measure WHERE entry_id = '\(fixture["poor"])') WHERE entry_id = '\(fixture["good"])';
            """)
        let check = try sandbox.run(["check"])
        #expect(check.status == 65, "\(check)")
        #expect(try sandbox.run(["show", fixture["good"]]).status == 65)
        #expect(try sandbox.run(["list", "--where", "mood"]).status == 65)

        let clean = try Sandbox(from: fixture)
        try clean.ok(["delete", fixture["good"], "--yes"])
        #expect(try clean.sqlite("SELECT count(*) FROM measure") == "1")
        #expect(try clean.run(["check"]).status == 0)
    }

    @Test("export --format json carries the fields and import restores them; markdown lists them; rekey keeps them")
    func exportImportRekey() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let exported = try sandbox.ok(["export", "--format", "json"])
        let entries = try #require(try exported.object()["entries"] as? [[String: Any]])
        #expect(entries.map(Self.fields) == [["mood": 8, "sleep": 7.5, "weather": "rain", "outside": true],
                                             ["mood": 4, "sleep": 5, "weather": "Sun", "outside": false], nil])
        let markdown = try sandbox.ok(["export", "--format", "markdown"]).out
        #expect(markdown.contains("*Fields: mood 8 · outside yes · sleep 7.5 · weather rain*"), "\(markdown)")
        #expect(!(try sandbox.ok(["export", "--format", "txt"]).out.contains("weather")), "jrnl's format has no fields")

        let target = try Sandbox()
        try target.initVault()
        let file = try target.folder.write("export.json", exported.out)
        try target.ok(["import", file, "--format", "json"])
        #expect(Self.fields(try target.show(fixture["good"])) == ["mood": 8, "sleep": 7.5, "weather": "rain", "outside": true])
        #expect(try target.show(fixture["plain"])["fields"] == nil)
        let again = try target.ok(["import", file, "--format", "json", "--json"]).object()
        #expect((again["unchanged"] as? [String: Int])?["measures"] == 2 && (again["added"] as? [String: Int])?["measures"] == nil,
                "the same file again changes nothing: \(again)")
        #expect(try target.run(["check"]).status == 0)

        let before = try sandbox.sqlite("SELECT hex(fields) FROM measure WHERE entry_id = '\(fixture["good"])'")
        try sandbox.ok(["rekey", "--json"])
        #expect(try sandbox.sqlite("SELECT hex(fields) FROM measure WHERE entry_id = '\(fixture["good"])'") != before)
        #expect(Self.fields(try sandbox.show(fixture["good"])) == ["mood": 8, "sleep": 7.5, "weather": "rain", "outside": true])
        #expect(try sandbox.run(["check"]).status == 0)
    }

    /// Mood 4 and 8 in January (two days), 9 on one day of February, a text mood on another;
    /// a text field beside them.
    private static func moods() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        for (day, mood) in [("2026-01-05", "4"), ("2026-01-05", "6"), ("2026-01-20", "8"), ("2026-02-03", "9"), ("2026-02-04", "fine")] {
            try sandbox.add("Mood \(mood).", ["--at", day + " 09:00", "--field", "mood=" + mood, "--field", "weather=rain"])
        }
        try sandbox.add("No mood.", ["--at", "2026-03-01 09:00"])
        return sandbox
    }

    @Test("stats: each numeric field's mean per month as a sparkline, and measures_per_month in --json")
    func stats() throws {
        let sandbox = try Self.moods()
        let json = try sandbox.ok(["stats", "--json"]).object()
        let perMonth = try #require(json["measures_per_month"] as? [String: [String: [String: Any]]], "\(json)")
        #expect(Set(perMonth.keys) == ["mood"], "text fields have no mean")
        #expect(perMonth["mood"]?["2026-01"]?["mean"] as? Double == 6 && perMonth["mood"]?["2026-01"]?["entries"] as? Int == 3)
        #expect(perMonth["mood"]?["2026-02"]?["mean"] as? Double == 9 && perMonth["mood"]?["2026-02"]?["entries"] as? Int == 1)
        let text = try sandbox.ok(["stats", "--to", "2026-03-31"]).out
        #expect(text.contains("mood per month  2026-01 … 2026-02, ▁ 6 … █ 9\n  ▁█"), "\(text)")
        let none = try Sandbox()
        try none.initVault()
        try none.add("Nothing measured.")
        #expect((try none.ok(["stats", "--json"]).object()["measures_per_month"] as? [String: Any])?.isEmpty == true)
    }

    @Test("calendar --by FIELD: the field's daily mean, as a heat map, a month grid and --json; a bad name is 64")
    func calendarBy() throws {
        let sandbox = try Self.moods()
        let json = try sandbox.ok(["calendar", "2026-01", "--by", "Mood", "--json"]).object()
        #expect(json["by"] as? String == "mood" && json["month"] as? Int == 1)
        #expect(json["days"] as? NSDictionary == ["2026-01-05": ["mean": 5, "entries": 2], "2026-01-20": ["mean": 8, "entries": 1]])
        let year = try sandbox.ok(["calendar", "2026", "--by", "mood"]).out.components(separatedBy: "\n")
        // Quarters of 5 (the lowest day) … 9 (the highest): 5 ░ on the 5th, 8 █ on the 20th and 9 █ on Feb 3.
        let january = try #require(year.first { $0.hasPrefix("Jan") })
        #expect(Array(january)[6 + 4] == "░" && Array(january)[6 + 19] == "█" && Array(january)[6 + 5] == "·", "\(january)")
        let february = try #require(year.first { $0.hasPrefix("Feb") })
        #expect(Array(february)[6 + 2] == "█" && Array(february)[6 + 3] == "·", "a text value is no mean: \(february)")
        #expect(year.contains { $0.hasPrefix("· none  ░ 5 … █ 9") && $0.hasSuffix("mood: a value on 3 days") }, "\(year)")
        let grid = try sandbox.ok(["calendar", "2026-01", "--by", "mood"]).out
        #expect(grid.contains(" 5░") && grid.contains("20█") && grid.contains("mood: a value on 2 days"), "\(grid)")
        try sandbox.fails(["calendar", "2026", "--by", "no way"], status: 64)
        #expect(try sandbox.run(["calendar", "2026", "--by", "mood"], env: ["JV_PASSPHRASE_FILE": nil]).status != 0, "it needs the passphrase")
    }

    @Test("sync carries fields both ways, their changes and their removal; the location holds none in plaintext", .tags(.slow))
    func sync() throws {
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("Sync/journal") }, prepare: { sandbox in
            try FileManager.default.createDirectory(atPath: sandbox.folder.file("Sync"), withIntermediateDirectories: true)
        })
        let (first, second) = (machines.first, machines.second)
        let id = try first.add("Synced with fields.", ["--field", "mood=7", "--field", "weather=drizzle"])
        try machines.converge()
        #expect(Self.fields(try second.show(id)) == ["mood": 7, "weather": "drizzle"])
        try second.ok(["edit", id, "--field", "mood=3", "--unfield", "weather"])
        try machines.converge()
        #expect(Self.fields(try first.show(id)) == ["mood": 3])
        try first.ok(["edit", id, "--unfield", "mood"])
        try machines.converge()
        #expect(try second.show(id)["fields"] == nil)
        // Set again on both before either syncs: one record, the later write wins on both.
        try first.ok(["edit", id, "--field", "mood=5"])
        try second.ok(["edit", id, "--field", "mood=6"])
        try machines.converge()
        let (a, b) = (Self.fields(try first.show(id)), Self.fields(try second.show(id)))
        #expect(a == b && a != nil, "\(String(describing: a)) \(String(describing: b))")
        #expect(try first.sqlite("SELECT count(*) FROM measure") == "1")
        for file in try SyncCommandTests.files(under: machines.location) {
            for secret in ["drizzle", "weather", "mood"] { #expect(!containsBytes(file, Data(secret.utf8)), "\(secret) at the location") }
        }
    }
}
