// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// `jv analysis add|list|show|delete`, with `search --kind` and the counts of `info` and `check`, end to
// end (README "JSON"): the built jv binary, a passphrase file, no terminal, standard input /dev/null.

fileprivate let analysisCLIShape = ["id", "entry_id", "model", "processed_at", "sentiment", "themes", "entities"]

@Suite(.tags(.e2e)) struct AnalysisCommandTests {
    @Test func analysisAddPrintsTheIDAndStoresEverything() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Lunch with Anna by the sea."]).printedID()
        let id = try jv.ok(["analysis", "add", String(entry.prefix(5)), "--model", "llama3", "--sentiment", "calm",
                            "--theme", "sea", "--theme", "friendship",
                            "--entities", #"{"people": ["Anna"], "count": 2, "nested": {"ok": true, "none": null}}"#,
                            "--processed-at", "2026-01-05T21:30+09:00"]).printedID()
        let shown = try jv.ok(["analysis", "show", id, "--json"]).jsonValue()
        #expect(jsonKeys(shown) == analysisCLIShape)
        #expect(shown["id"] == .string(id))
        #expect(shown["entry_id"] == .string(entry))
        #expect(shown["model"] == .string("llama3"))
        #expect(shown["processed_at"] == .string("2026-01-05T21:30:00.000+09:00"))
        #expect(shown["sentiment"] == .string("calm"))
        #expect(shown["themes"] == .array([.string("sea"), .string("friendship")]))
        #expect(shown["entities"] == .object([("people", .array([.string("Anna")])), ("count", .integer(2)),
                                              ("nested", .object([("ok", .bool(true)), ("none", .null)]))]))
        // By prefix, and as text.
        #expect(try jv.ok(["analysis", "show", String(id.prefix(8)), "--json"]).jsonValue() == shown)
        let text = try jv.ok(["analysis", "show", String(id.prefix(8))]).out
        #expect(text.contains("llama3"))
        #expect(text.contains("calm"))
        #expect(text.contains("Anna"))
    }

    @Test func analysisAddWithJSONPrintsTheRecord() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Quiet day."]).printedID()
        let record = try jv.ok(["analysis", "add", entry, "--model", "toy", "--theme", "rest", "--json"]).jsonValue()
        #expect(jsonKeys(record) == analysisCLIShape)
        #expect(record["sentiment"] == .null)
        #expect(record["entities"] == .null)
        #expect(record["themes"] == .array([.string("rest")]))
        let id = try #require(record["id"]?.stringValue)
        #expect(try jv.ok(["analysis", "show", id, "--json"]).jsonValue() == record)
    }

    @Test func entitiesComeFromAFileWithAnAtSign() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Entities from a file."]).printedID()
        let file = try jv.folder.write("entities.json", #"{"places": ["Lisbon", "Porto"], "mood": {"score": 0.5}}"# + "\n")
        let id = try jv.ok(["analysis", "add", entry, "--model", "m", "--entities", "@" + file]).printedID()
        let shown = try jv.ok(["analysis", "show", id, "--json"]).jsonValue()
        #expect(shown["entities"] == .object([("places", .array([.string("Lisbon"), .string("Porto")])),
                                              ("mood", .object([("score", .number(0.5))]))]))
    }

    @Test func invalidEntitiesAreAUsageErrorAndNothingIsStored() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Bad entities."]).printedID()
        for entities in [#"{"people": ["Anna"]"#, "not json", "{'single': 'quotes'}", "", "[1,]", #"{"a": 1} {"b": 2}"#] {
            let result = try jv.fails(["analysis", "add", entry, "--model", "m", "--sentiment", "x", "--entities", entities], status: 64)
            #expect(result.out.isEmpty, "\(result)")
        }
        let badFile = try jv.folder.write("bad.json", "{oops")
        try jv.fails(["analysis", "add", entry, "--model", "m", "--entities", "@" + badFile], status: 64)
        try jv.fails(["analysis", "add", entry, "--model", "m", "--entities", "@" + jv.folder.file("missing.json")], status: 66)
        #expect(try jv.ok(["analysis", "list", "--json"]).jsonValue() == .array([]))
        #expect(try jv.counts()["analyses"] == .integer(0))
    }

    @Test func otherBadAnalysisAddsFailAndStoreNothing() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Target."]).printedID()
        try jv.fails(["analysis", "add", "ffffffff", "--model", "m", "--sentiment", "x"], status: 66)
        try jv.fails(["analysis", "add", "ab", "--model", "m", "--sentiment", "x"], status: 64)
        try jv.fails(["analysis", "add", entry, "--sentiment", "no model"], status: 64)
        try jv.fails(["analysis", "add", entry, "--model", "m", "--processed-at", "the day after never"], status: 64)
        try jv.fails(["analysis", "show", "ffffffff"], status: 66)
        try jv.fails(["analysis", "list", "--entry", "ffffffff"], status: 66)
        try jv.fails(["analysis", "list", "--from", "someday"], status: 64)
        #expect(try jv.counts()["analyses"] == .integer(0))
    }

    @Test func analysisListFiltersByEntryModelAndRunDate() throws {
        let jv = try Sandbox(from: .empty())
        let first = try jv.ok(["add", "First."]).printedID()
        let second = try jv.ok(["add", "Second."]).printedID()
        let a = try jv.ok(["analysis", "add", first, "--model", "llama3", "--sentiment", "a", "--processed-at", "2026-01-03 10:00"]).printedID()
        let b = try jv.ok(["analysis", "add", second, "--model", "mistral", "--sentiment", "b", "--processed-at", "2026-01-05 23:30"]).printedID()
        let c = try jv.ok(["analysis", "add", first, "--model", "mistral", "--sentiment", "c", "--processed-at", "2026-01-06 00:30"]).printedID()
        let d = try jv.ok(["analysis", "add", second, "--model", "llama3", "--sentiment", "d", "--processed-at", "2026-01-09 12:00"]).printedID()

        func list(_ options: [String]) throws -> [String] {
            let records = try #require(try jv.ok(["analysis", "list", "--json"] + options).jsonValue().arrayValue)
            for record in records { #expect(jsonKeys(record) == analysisCLIShape) }
            return records.compactMap { $0["id"]?.stringValue }
        }
        #expect(try list([]) == [a, b, c, d])
        #expect(try list(["--entry", first]) == [a, c])
        #expect(try list(["--entry", String(second.prefix(6))]) == [b, d])
        #expect(try list(["--model", "mistral"]) == [b, c])
        #expect(try list(["--model", "llama3", "--entry", second]) == [d])
        #expect(try list(["--model", "gpt"]) == [])
        #expect(try list(["--ran-from", "2026-01-04", "--ran-to", "2026-01-05"]) == [b], "--ran-to includes its whole day")
        #expect(try list(["--ran-from", "2026-01-06"]) == [c, d])
        #expect(try list(["--ran-to", "2026-01-06"]) == [a, b, c])
        #expect(try list(["--ran-from", "2026-01-05 23:00", "--ran-to", "2026-01-06 01:00"]) == [b, c])
        #expect(try list(["--ran-from", "2026-01-04", "--model", "llama3"]) == [d])

        let text = try jv.ok(["analysis", "list", "--model", "mistral"]).out
        #expect(text.contains("sentiment: b"))
        #expect(text.contains("sentiment: c"))
        #expect(!text.contains("sentiment: a"))
    }

    /// `--from`/`--to` choose by the analysed entry's day — what a person looking back means —
    /// whenever the analysis ran; `--ran-from`/`--ran-to` by the run's day.
    @Test func analysisListFromAndToChooseByTheEntrysDay() throws {
        let jv = try Sandbox(from: .empty())
        let march = try jv.ok(["add", "--at", "2026-03-10 09:00", "March."]).printedID()
        let lateMay = try jv.ok(["add", "--at", "2026-05-31 23:30", "Late in May."]).printedID()
        let june = try jv.ok(["add", "--at", "2026-06-01 08:00", "June."]).printedID()
        // All analysed in November, in another order than the entries were written.
        let ofJune = try jv.ok(["analysis", "add", june, "--model", "m", "--processed-at", "2026-11-01 10:00"]).printedID()
        let ofMarch = try jv.ok(["analysis", "add", march, "--model", "m", "--processed-at", "2026-11-02 10:00"]).printedID()
        let ofLateMay = try jv.ok(["analysis", "add", lateMay, "--model", "m", "--processed-at", "2026-11-03 10:00"]).printedID()
        func list(_ options: [String]) throws -> [String] {
            try #require(try jv.ok(["analysis", "list", "--json"] + options).jsonValue().arrayValue).compactMap { $0["id"]?.stringValue }
        }
        #expect(try list(["--from", "2026-05-01", "--to", "2026-05-31"]) == [ofLateMay], "the entry's local day, --to whole")
        #expect(try list(["--from", "2026-05"]) == [ofJune, ofLateMay], "in the order they ran")
        #expect(try list(["--to", "2026-05"]) == [ofMarch, ofLateMay])
        #expect(try list(["--from", "2026-06-01", "--to", "2026-06-01"]) == [ofJune])
        #expect(try list(["--from", "2026-11-01"]) == [], "the run's day does not count")
        #expect(try list(["--from", "2026-03", "--to", "2026-06", "--ran-from", "2026-11-02"]) == [ofMarch, ofLateMay])
        #expect(try list(["--ran-from", "2026-11-01", "--ran-to", "2026-11-01"]) == [ofJune])
        let reversed = try jv.fails(["analysis", "list", "--ran-from", "2026-11-03", "--ran-to", "2026-11-01"], status: 64)
        #expect(reversed.err.contains("--ran-from 2026-11-03 is after --ran-to 2026-11-01"), "\(reversed)")
        #expect(reversed.out.isEmpty)
        try jv.fails(["analysis", "list", "--from", "2026-06", "--to", "2026-05"], status: 64)
        try jv.fails(["analysis", "list", "--from", "not a day"], status: 64)
    }

    @Test func analysisDeleteRemovesOneAnalysisAndKeepsTheGraph() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Met Erik."]).printedID()
        let answer = #"{"sentiment": "glad", "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "Erik"}, "type": "met"}]}"#
        let analysed = try jv.ok(["analyze", entry, "--json", "--model", "m", "--command", "cat >/dev/null; printf '%s' '\(answer)'"]).jsonValue()
        let first = try #require(analysed.arrayValue?.first)
        let id = try #require(first["id"]?.stringValue)
        let other = try jv.ok(["analysis", "add", entry, "--model", "n", "--sentiment", "calm"]).printedID()
        // Not asked without a terminal (as jv delete); --json prints what was deleted.
        let deleted = try jv.ok(["analysis", "delete", String(id.prefix(8)), "--json"])
        #expect(try deleted.jsonValue() == first)
        #expect(try jv.ok(["analysis", "list", "--json"]).jsonValue().arrayValue?.compactMap { $0["id"]?.stringValue } == [other])
        let counts = try jv.counts()
        #expect(counts["nodes"] == .integer(2))
        #expect(counts["relations"] == .integer(1))
        let plain = try jv.ok(["analysis", "delete", "--yes", other])
        #expect(plain.out.isEmpty && plain.err == "Deleted \(other).\n", "\(plain)")
        #expect(try jv.ok(["check"]).status == 0)
    }

    @Test func analysisDeleteOfAnUnknownOrTooShortIDChangesNothing() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Kept."]).printedID()
        let id = try jv.ok(["analysis", "add", entry, "--model", "m"]).printedID()
        try jv.fails(["analysis", "delete", "--yes", id.hasPrefix("ffff") ? "eeeeeeee" : "ffffffff"], status: 66)
        try jv.fails(["analysis", "delete", "--yes", String(id.prefix(2))], status: 64)
        try jv.fails(["analysis", "delete"], status: 64)
        try jv.fails(["analysis", "delete", "--yes", entry], status: 66)   // an entry's id is not an analysis's
        #expect(try jv.ok(["analysis", "list", "--json"]).jsonValue().arrayValue?.count == 1)
    }

    @Test func deletingAnEntryDeletesItsAnalyses() throws {
        let jv = try Sandbox(from: .empty())
        let doomed = try jv.ok(["add", "Doomed."]).printedID()
        let kept = try jv.ok(["add", "Kept."]).printedID()
        let doomedAnalysis = try jv.ok(["analysis", "add", doomed, "--model", "m", "--sentiment", "gone"]).printedID()
        let keptAnalysis = try jv.ok(["analysis", "add", kept, "--model", "m", "--sentiment", "here"]).printedID()
        try jv.ok(["delete", doomed, "--yes"])
        #expect(try jv.ok(["analysis", "list", "--json"]).jsonValue().arrayValue?.compactMap { $0["id"]?.stringValue } == [keptAnalysis])
        try jv.fails(["analysis", "show", doomedAnalysis], status: 66)
        #expect(try jv.counts()["analyses"] == .integer(1))
        #expect(try jv.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))
    }

    @Test func searchByKindAndAcrossAllKinds() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "A serene walk."]).printedID()
        let analysis = try jv.ok(["analysis", "add", entry, "--model", "m", "--sentiment", "Sérène", "--theme", "walking"]).printedID()
        try jv.ok(["chat", "add", "--role", "user", "Why so serene?"])

        let analyses = try #require(try jv.ok(["search", "SERENE", "--kind", "analysis", "--json"]).jsonValue().arrayValue)
        #expect(analyses.count == 1)
        #expect(jsonKeys(analyses.first) == analysisCLIShape, "with --kind, records carry no kind member")
        #expect(analyses.first?["id"] == .string(analysis))

        let entries = try #require(try jv.ok(["search", "serene", "--kind", "entry", "--json"]).jsonValue().arrayValue)
        #expect(entries.map { $0["id"] } == [.string(entry)])
        #expect(jsonKeys(entries.first) == ["id", "created_at", "modified_at", "local_day", "starred", "tags", "title", "content"])

        // All kinds (README "JSON", since 51c62e4): entries, then messages, then analyses, each in
        // its own shape.
        let all = try #require(try jv.ok(["search", "serene", "--json"]).jsonValue().arrayValue)
        #expect(all.count == 3)
        #expect(all.first?["id"] == .string(entry))
        #expect(jsonKeys(all.first) == ["id", "created_at", "modified_at", "local_day", "starred", "tags", "title", "content"])
        #expect(jsonKeys(all.dropFirst().first) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        #expect(all.dropFirst().first?["content"] == .string("Why so serene?"))
        #expect(jsonKeys(all.last) == analysisCLIShape)
        #expect(all.last?["id"] == .string(analysis))
        #expect(try jv.ok(["search", "walking", "--kind", "entry", "--json"]).jsonValue() == .array([]))
        #expect(try jv.ok(["search", "walking", "--kind", "analysis", "--json"]).jsonValue().arrayValue?.count == 1)
        try jv.fails(["search", "serene", "--kind", "node"], status: 64)
    }

    @Test func infoCountsAndCheckCoverTheNewTables() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Counted."]).printedID()
        try jv.ok(["add", "Counted too."])
        try jv.ok(["analysis", "add", entry, "--model", "m", "--sentiment", "x"])
        try jv.ok(["chat", "add", "--role", "user", "one"])
        try jv.ok(["chat", "add", "--role", "assistant", "two"])
        try jv.ok(["chat", "new", "--title", "empty"])
        let counts = try jv.counts()
        #expect(counts["entries"] == .integer(2))
        #expect(counts["analyses"] == .integer(1))
        #expect(counts["threads"] == .integer(2))
        #expect(counts["messages"] == .integer(2))
        #expect(counts["nodes"] == .integer(0))
        #expect(counts["relations"] == .integer(0))

        let check = try jv.ok(["check", "--json"]).jsonValue()
        #expect(check["ok"] == .bool(true))
        #expect(check["problems"] == .array([]))
        let checked = try #require(check["checked"])
        #expect(checked["entry"] == .integer(2))
        #expect(checked["analysis"] == .integer(1))
        #expect(checked["chat_thread"] == .integer(2))
        #expect(checked["chat_message"] == .integer(2))
        #expect(checked["knowledge_node"] == .integer(0))
    }

    @Test(.tags(.externalTools, .slow), .notInQuickRun, .enabled(if: JV.tool("sqlite3") != nil, "needs the sqlite3 shell to edit the vault behind jv's back"))
    func readersAndCheckReportEditedChatAndAnalysisRecords() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Anna moved to Lisbon."]).printedID()
        let analysis = try jv.ok(["analysis", "add", entry, "--model", "llama3", "--sentiment", "hopeful"]).printedID()
        let message = try jv.ok(["chat", "add", "--role", "user", "How is Anna?"]).printedID()
        try jv.ok(["chat", "add", "--role", "assistant", "Settling in."])
        let first = try #require(try jv.ok(["chat", "list", "--json"]).jsonValue().arrayValue?.first?["id"]?.stringValue)
        let second = try jv.ok(["chat", "new", "--title", "Second"]).printedID()
        try jv.ok(["analyze", entry, "--command", #"cat >/dev/null; echo '{"themes": [], "nodes": [{"type": "person", "name": "Anna"}]}'"#])
        let node = try #require(try jv.ok(["graph", "list", "--json"]).jsonValue().arrayValue?.first?["id"]?.stringValue)
        #expect(try jv.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))

        // A node retyped.
        try jv.sqlite("UPDATE knowledge_node SET type = 'place' WHERE id = '\(node)'")
        try jv.fails(["graph", "list"], status: 65)
        try jv.fails(["graph", "show", node], status: 65)

        // A message's timestamp moved: its thread no longer reads, check names the message.
        try jv.sqlite("UPDATE chat_message SET timestamp = timestamp + 1 WHERE id = '\(message)'")
        try jv.fails(["chat", "show", first], status: 65)
        try jv.fails(["search", "Anna", "--kind", "chat"], status: 65)
        var check = try jv.run(["check", "--json"])
        #expect(check.status == 65, "\(check)")
        #expect(check.out.contains(message), "\(check)")

        // An analysis relabelled with another model.
        try jv.sqlite("UPDATE analysis SET model = 'mistral' WHERE id = '\(analysis)'")
        try jv.fails(["analysis", "show", analysis], status: 65)
        try jv.fails(["analysis", "list"], status: 65)

        // Two thread titles swapped.
        try jv.sqlite("""
            CREATE TEMP TABLE titles AS SELECT id, title FROM chat_thread WHERE id IN ('\(first)', '\(second)');
            UPDATE chat_thread SET title = (SELECT title FROM titles WHERE titles.id <> chat_thread.id) WHERE id IN ('\(first)', '\(second)');
            """)
        try jv.fails(["chat", "list"], status: 65)
        try jv.fails(["chat", "show", second], status: 65)

        check = try jv.run(["check", "--json"])
        #expect(check.status == 65, "\(check)")
        let report = try check.jsonValue()
        #expect(report["ok"] == .bool(false))
        let problemValues = try #require(report["problems"]?.arrayValue)
        let problems = problemValues.compactMap { $0.stringValue }
        for id in [message, analysis, first, second, node] {
            #expect(problems.contains { $0.contains(id) }, "\(id) not reported: \(problems)")
        }
        #expect(!problems.contains { $0.contains(entry) }, "the untouched entry is not reported")
        // Text output lists them too.
        let text = try jv.run(["check"])
        #expect(text.status == 65)
        #expect(text.out.contains(analysis), "\(text)")
        // The untouched entry still reads.
        try jv.ok(["show", entry])
    }
}
