// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// `jv digest` end to end (README "Digests"): a period's digest as text and JSON, the periods
// people name, a reflection asked of a local chat command and stored sealed (replaced by the
// next of the same model, nothing stored when the command fails), shown under the digest,
// deleted, and kept through tampering checks, a rekey and sync.

/// A command that keeps its standard input in `file` and prints `answer`.
fileprivate func digestRecording(_ file: String, answer: String) -> String {
    "cat > \(Examples.quoted(file)); printf '%s\\n' \(Examples.quoted(answer))"
}

@Suite(.tags(.e2e)) struct DigestCommandTests {
    /// Entries on both sides of ISO week 2026-W48 (2026-11-23 to 2026-11-29), and one analysis.
    private static func journal() throws -> Sandbox {
        let jv = try Sandbox(from: .empty())
        try jv.ok(["add", "--at", "2026-11-22 21:00", "The week before."])
        let swim = try jv.ok(["add", "--at", "2026-11-23 10:00", "Swam with @anna.\nThe sea was calm."]).printedID()
        try jv.ok(["add", "--at", "2026-11-29 22:00", "Rain and #work all week."])
        try jv.ok(["add", "--at", "2026-11-30 08:00", "The week after."])
        try jv.ok(["analysis", "add", swim, "--model", "m", "--sentiment", "positive", "--theme", "sea"])
        return jv
    }

    @Test func theDigestTextHasTheHeaderCountsAnalysesAndEveryEntryOfTheWeek() throws {
        let jv = try Self.journal()
        let text = try jv.ok(["digest", "--week", "2026-W48"]).out
        #expect(text == """
            Digest of week 2026-W48, 2026-11-23 to 2026-11-29
            2 entries, 12 words, 2 days written
            Tags: anna (1), work (1)
            Sentiment: positive (1); mean +1.00 over 1 entry
            Themes: sea (1)

            ## 2026-11-23 Swam with @anna.  [anna]
            The sea was calm.

            ## 2026-11-29 Rain and #work all week.  [work]

            """, "\(text)")
        // A day of the week names it too, in any form --from takes; `show` is the default.
        #expect(try jv.ok(["digest", "show", "--week", "2026-11-26"]).out == text)
        #expect(try jv.ok(["digest", "--brief", "--week", "2026-11-23"]).out.contains("## 2026-11-23 Swam with @anna.  [anna]\n\n## 2026-11-29"))
    }

    /// The period's measures (`jv add --field`) are a section of the digest, field by field.
    @Test func theMeasuresOfThePeriodAreASection() throws {
        let jv = try Self.journal()
        try jv.ok(["add", "--at", "2026-11-24 09:00", "--field", "mood=8", "--field", "slept=yes", "Rested."])
        try jv.ok(["add", "--at", "2026-11-25 09:00", "--field", "mood=5", "--field", "slept=no", "Tired."])
        try jv.ok(["add", "--at", "2026-11-30 09:00", "--field", "mood=1", "The week after, not counted."])
        let text = try jv.ok(["digest", "--week", "2026-W48"]).out
        #expect(text.contains("\n\nMeasures:\n  mood: 2 entries; mean 6.50, from 5 to 8\n  slept: 2 entries; yes 1, no 1\n\n## "), "\(text)")
        let sections = try #require(try jv.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["sections"]?.arrayValue)
        #expect(sections.map { $0["title"] } == [.string("Measures")])
        #expect(sections.first?["data"]?.arrayValue?.first?["numbers"]?["mean"] == .number(6.5))
        #expect(!(try jv.ok(["digest", "--week", "2026-W47"]).out.contains("Measures")))
    }

    @Test func theJSONDigestHasItsPeriodCountsAndEntries() throws {
        let jv = try Self.journal()
        let json = try jv.ok(["digest", "--month", "2026-11", "--json"]).jsonValue()
        #expect(jsonKeys(json) == ["period", "brief", "counts", "tags", "sentiments", "mean_sentiment", "themes", "people", "sections",
                                   "entries", "reflections"])
        #expect(json["period"] == .object([("kind", .string("month")), ("name", .string("2026-11")), ("first_day", .string("2026-11-01")),
                                          ("last_day", .string("2026-11-30"))]))
        #expect(json["counts"]?["entries"] == .integer(4))
        #expect(json["entries"]?.arrayValue?.map { $0["local_day"] } == ["2026-11-22", "2026-11-23", "2026-11-29", "2026-11-30"].map(JSONValue.string))
        #expect(jsonKeys(json["entries"]?.arrayValue?.first) == ["id", "local_day", "title", "body", "tags"])
        #expect(json["sentiments"] == .array([.object([("name", .string("positive")), ("entries", .integer(1))])]))
        #expect(json["reflections"] == .array([]))
        let year = try jv.ok(["digest", "--year", "2026", "--json", "--brief"]).jsonValue()
        #expect(year["counts"]?["entries"] == .integer(4) && year["brief"] == .bool(true))
        #expect(jsonKeys(year["entries"]?.arrayValue?.first) == ["id", "local_day", "title", "tags"])
        #expect(try jv.ok(["digest", "--year", "2025", "--json"]).jsonValue()["counts"]?["entries"] == .integer(0))
    }

    /// Without a period name, the current one (in the user's time zone), or `--ago N` before it.
    @Test func theCurrentPeriodAndThoseBeforeIt() throws {
        let jv = try Sandbox(from: .empty())
        let today = civilDay()
        try jv.ok(["add", "Written today."])
        let month = try jv.ok(["digest", "--month", "--json"]).jsonValue()
        #expect(month["period"]?["name"] == .string(String(today.prefix(7))))
        #expect(month["counts"]?["entries"] == .integer(1))
        let week = try jv.ok(["digest", "--week", "--json"]).jsonValue()
        #expect(week["period"]?["name"]?.stringValue?.hasPrefix(String(today.prefix(2))) == true)
        #expect(week["counts"]?["entries"] == .integer(1))
        let lastYear = try jv.ok(["digest", "--year", "--ago", "1", "--json"]).jsonValue()
        #expect(lastYear["period"]?["name"] == .string(String((Int(today.prefix(4)) ?? 0) - 1)))
        #expect(lastYear["counts"]?["entries"] == .integer(0))
        #expect(try jv.ok(["digest", "--year", "--ago", "0", "--json"]).jsonValue()["period"]?["name"] == .string(String(today.prefix(4))))
    }

    @Test func aWrongPeriodExits64WithOneSentence() throws {
        let jv = try Self.journal()
        for arguments in [["digest"], ["digest", "--week", "--month"], ["digest", "--month", "2026-13"], ["digest", "--week", "2026-11"],
                          ["digest", "--week", "2025-W53"], ["digest", "--year", "2026", "--ago", "1"], ["digest", "--month", "--ago", "-1"],
                          ["digest", "--year", "--ago", "9000"]] {
            let result = try jv.fails(arguments, status: 64)
            #expect(result.errorLines.count == 1, "\(arguments): \(result)")
            #expect(result.out.isEmpty)
        }
    }

    @Test func aReflectionIsStoredShownReplacedAndDeleted() throws {
        let jv = try Self.journal()
        let received = jv.folder.file("request.json")
        let digest = try jv.ok(["digest", "--week", "2026-W48"]).out
        let printed = try jv.ok(["digest", "--week", "2026-W48", "--command", digestRecording(received, answer: "A calm week by the sea.")])
        #expect(printed.out == "A calm week by the sea.\n", "\(printed)")
        let request = try JSONParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: received))))
        #expect(jsonKeys(request) == ["model", "messages", "entries"])
        #expect(request["model"] == .null)
        let messages = try #require(request["messages"]?.arrayValue)
        #expect(messages.map { $0["role"] } == [.string("system"), .string("user")])
        #expect(messages.first?["content"]?.stringValue?.contains("week 2026-W48 (2026-11-23 to 2026-11-29)") == true)
        #expect(messages.last?["content"] == .string(String(digest.dropLast())), "the digest's text, as jv digest prints it")
        #expect(request["entries"] == .array([]))

        // Shown under the digest of its period only, with its id.
        let shown = try jv.ok(["digest", "--week", "2026-W48"]).out
        #expect(shown.contains("\n\nReflection by local, "), "\(shown)")
        #expect(shown.hasSuffix("\nA calm week by the sea.\n"), "\(shown)")
        #expect(!(try jv.ok(["digest", "--week", "2026-W47"]).out.contains("Reflection")))
        var reflections = try #require(try jv.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"]?.arrayValue)
        #expect(reflections.count == 1)
        #expect(jsonKeys(reflections.first) == ["id", "period", "model", "created_at", "text", "digest_of_input", "current"])
        #expect(reflections.first?["current"] == .bool(true))
        let first = try #require(reflections.first?["id"]?.stringValue)

        // The same model again replaces it; a JSON answer names its model, which is another one.
        try jv.ok(["digest", "--week", "2026-W48", "--command", "echo 'Calmer, on second thought.'"])
        let other = try jv.ok(["digest", "--week", "2026-W48", "--json", "--command", #"echo '{"content": "Wet.", "model": "m2"}'"#]).jsonValue()
        #expect(other["model"] == .string("m2") && other["text"] == .string("Wet."))
        reflections = try #require(try jv.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"]?.arrayValue)
        #expect(reflections.map { $0["text"] } == [.string("Calmer, on second thought."), .string("Wet.")])
        #expect(reflections.first?["id"] == .string(first), "the period and the model make the id")
        #expect(try jv.ok(["digest", "--week", "2026-W48", "--model", "m2", "--json"]).jsonValue()["reflections"]?.arrayValue?.count == 1)
        #expect(try jv.ok(["info", "--json"]).jsonValue()["counts"]?["reflections"] == .integer(2))

        // A changed week: the reflection was written on an earlier state of it.
        try jv.ok(["add", "--at", "2026-11-24 09:00", "Another day."])
        #expect(try jv.ok(["digest", "--week", "2026-W48"]).out.contains(", on an earlier state of the period's entries ("))
        #expect(try jv.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"]?.arrayValue?.first?["current"] == .bool(false))

        let deleted = try jv.ok(["digest", "delete", String(first.prefix(8)), "--yes", "--json"]).jsonValue()
        #expect(deleted["text"] == .string("Calmer, on second thought."))
        #expect(try jv.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"]?.arrayValue?.map { $0["model"] } == [.string("m2")])
        try jv.fails(["digest", "delete", first, "--yes"], status: 66)
        #expect(try jv.run(["check"]).status == 0)
    }

    @Test func aFailingCommandExits65AndStoresNothing() throws {
        let jv = try Self.journal()
        for command in ["echo 'Swam with anna' >&2; exit 3", "printf '   '", #"echo '{"reflection": "no content"}'"#] {
            let result = try jv.fails(["digest", "--week", "2026-W48", "--command", command], status: 65)
            #expect(result.err.contains("jv: The digest command "), "\(result)")
            #expect(result.err.contains("nothing was stored"), "\(result)")
            #expect(!result.err.contains("The sea was calm"), "no decrypted text in the error: \(result)")
            #expect(result.out.isEmpty)
        }
        let timedOut = try jv.fails(["digest", "--week", "2026-W48", "--timeout", "0.5", "--command", "sleep 5"], status: 65)
        #expect(timedOut.err.contains("gave no answer within 0.5 seconds"), "\(timedOut)")
        #expect(try jv.ok(["info", "--json"]).jsonValue()["counts"]?["reflections"] == .integer(0))
        try jv.fails(["digest", "--week", "2026-W48", "--timeout", "0", "--command", "echo hi"], status: 64)
    }

    /// The reflection's sealed text replaced by another's, or edited, is found by `jv check` and
    /// refused by `jv digest`.
    @Test(.tags(.externalTools), .enabled(if: JV.tool("sqlite3") != nil, "needs the sqlite3 command-line shell"))
    func aTamperedReflectionIsFound() throws {
        let jv = try Self.journal()
        try jv.ok(["digest", "--week", "2026-W48", "--command", "echo 'First.'"])
        try jv.ok(["digest", "--week", "2026-W48", "--command", "echo 'Second.'", "--model", "other"])
        let ids = try jv.sqlite("SELECT id FROM digest_reflection ORDER BY model").split(separator: "\n").map(String.init)
        try #require(ids.count == 2)
        let pristine = jv.folder.file("pristine.vault")
        try FileManager.default.copyItem(atPath: jv.vault, toPath: pristine)

        try jv.sqlite("UPDATE digest_reflection SET payload = (SELECT payload FROM digest_reflection WHERE id = '\(ids[1])') WHERE id = '\(ids[0])'")
        var check = try jv.run(["check"])
        #expect(check.status == 65 && check.out.contains(ids[0]), "\(check)")
        try jv.fails(["digest", "--week", "2026-W48"], status: 65)

        try FileManager.default.removeItem(atPath: jv.vault)
        try FileManager.default.copyItem(atPath: pristine, toPath: jv.vault)
        try jv.sqlite("UPDATE digest_reflection SET payload = CAST(zeroblob(length(payload)) AS BLOB) WHERE id = '\(ids[1])'")
        check = try jv.run(["check"])
        #expect(check.status == 65 && check.out.contains(ids[1]), "\(check)")

        // A reflection deleted behind jv's back (the shell has none of jv's triggers) is seen by the manifest.
        try FileManager.default.removeItem(atPath: jv.vault)
        try FileManager.default.copyItem(atPath: pristine, toPath: jv.vault)
        try jv.sqlite("DELETE FROM digest_reflection WHERE id = '\(ids[1])'")
        #expect(try jv.run(["check"]).status == 65)
    }

    @Test func jvsJSONExportCarriesReflectionsAndImportBringsThemBack() throws {
        let jv = try Self.journal()
        try jv.ok(["digest", "--week", "2026-W48", "--command", "echo 'A calm week.'"])
        try jv.ok(["digest", "--year", "2025", "--command", "echo 'A year without entries.'"])
        let export = try jv.ok(["export", "--format", "json"]).out
        let reflections = try #require(try JSONParser.parse(Array(export.utf8))["reflections"]?.arrayValue)
        #expect(reflections.map { $0["text"] } == [.string("A year without entries."), .string("A calm week.")])
        let november = try JSONParser.parse(Array(try jv.ok(["export", "--format", "json", "--from", "2026-11-01", "--to", "2026-11-30"]).out.utf8))
        #expect(november["reflections"]?.arrayValue?.map { $0["text"] } == [.string("A calm week.")], "only the periods the range overlaps")

        let other = try Sandbox(from: .empty())
        let file = other.folder.file("export.json")
        try Data(export.utf8).write(to: URL(fileURLWithPath: file))
        try other.ok(["import", "--format", "json", file])
        #expect(try other.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"]
                == jv.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"])
        let again = try other.ok(["import", "--format", "json", file, "--json"]).jsonValue()
        #expect(again["unchanged"]?["reflections"] == .integer(2), "\(again)")
        #expect(try other.run(["check"]).status == 0)
    }

    /// examples/ollama-chat.sh as it is, against the fake Ollama server (Fixtures/fake_ollama.py).
    @Test(.tags(.externalTools, .network)) func theOllamaChatExampleWritesAReflection() throws {
        let jv = try Self.journal()
        let server = try FakeOllama(in: jv, reply: "You swam, and it rained.")
        let command = "OLLAMA_HOST=\(Examples.quoted(server.host)) OLLAMA_MODEL=tiny-model \(Examples.quoted(Examples.path("examples/ollama-chat.sh")))"
        let printed = try jv.ok(["digest", "--week", "2026-W48", "--model", "llama-test", "--command", command])
        #expect(printed.out == "You swam, and it rained.\n", "\(printed)")
        let body = try #require(try server.requests().first?["body"])
        #expect(body["model"] == .string("llama-test"))
        let messages = try #require(body["messages"]?.arrayValue)
        #expect(messages.map { $0["role"] } == [.string("system"), .string("user")])
        #expect(messages.last?["content"]?.stringValue?.hasPrefix("Digest of week 2026-W48, 2026-11-23 to 2026-11-29\n") == true)
        let stored = try #require(try jv.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"]?.arrayValue?.first)
        #expect(stored["model"] == .string("llama-test") && stored["text"] == .string("You swam, and it rained."))

        // A server that refuses: 65, nothing stored.
        server.reply = nil
        try jv.fails(["digest", "--month", "2026-11", "--command", command], status: 65)
        #expect(try jv.ok(["digest", "--month", "2026-11", "--json"]).jsonValue()["reflections"] == .array([]))
    }

    @Test func aRekeyKeepsTheReflections() throws {
        let jv = try Self.journal()
        try jv.ok(["digest", "--month", "2026-11", "--command", "echo 'A November.'"])
        let before = try jv.ok(["digest", "--month", "2026-11", "--json"]).jsonValue()["reflections"]
        try jv.ok(["rekey"])
        #expect(try jv.ok(["digest", "--month", "2026-11", "--json"]).jsonValue()["reflections"] == before)
        #expect(try jv.run(["check"]).status == 0)
        // A backup verifies and counts them as every other record.
        let backup = jv.folder.file("journal.jvb")
        try jv.ok(["backup", backup])
        #expect(try jv.ok(["verify-backup", "--json", backup]).jsonValue()["counts"]?["reflections"] == .integer(1))
    }

    @Test("jv sync carries reflections, their replacement and their deletion", .tags(.slow))
    func syncCarriesReflections() throws {
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("Sync/journal") }, prepare: { sandbox in
            try FileManager.default.createDirectory(atPath: sandbox.folder.file("Sync"), withIntermediateDirectories: true)
            try sandbox.ok(["add", "--at", "2026-11-23 10:00", "Swam."])
        })
        let (first, second) = (machines.first, machines.second)
        try first.ok(["digest", "--week", "2026-W48", "--command", "echo 'From the first machine.'"])
        try machines.converge()
        func reflections(_ sandbox: Sandbox) throws -> [JSONValue] {
            try sandbox.ok(["digest", "--week", "2026-W48", "--json"]).jsonValue()["reflections"]?.arrayValue ?? []
        }
        #expect(try reflections(second).map { $0["text"] } == [.string("From the first machine.")])
        // Written again on the second machine for the same period and model: the same record.
        try second.ok(["digest", "--week", "2026-W48", "--command", "echo 'From the second machine.'"])
        try machines.converge()
        #expect(try reflections(first).map { $0["text"] } == [.string("From the second machine.")])
        let id = try #require(try reflections(first).first?["id"]?.stringValue)
        try first.ok(["digest", "delete", id, "--yes"])
        try machines.converge()
        #expect(try reflections(second) == [])
    }
}
