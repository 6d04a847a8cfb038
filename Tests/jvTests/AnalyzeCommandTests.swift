// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// `jv analyze` end to end (README "JSON" and README "Analyser protocol"): the built jv binary runs
// analysers given with --command; each failing analyser (non-zero exit, invalid JSON, not an
// object, no sentiment/themes/entities, bad relation, timeout) makes jv exit 65 naming the
// entry, with nothing stored for it.

/// A shell-quoted word.
fileprivate func analyzeCLIQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// An analyser command that drains its input and prints `answer`.
fileprivate func analyzeCLIPrinting(_ answer: String) -> String {
    "cat >/dev/null; printf '%s\\n' \(analyzeCLIQuoted(answer))"
}

/// Whether process `pid` no longer runs (gone, or a zombie nobody has reaped yet).
fileprivate func analyzeCLIProcessIsGone(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 { return errno == ESRCH }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
    return state == "Z" || state == "X"
}

fileprivate func analyzeCLIWaitUntilGone(_ pid: pid_t, seconds: Double = 5) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if analyzeCLIProcessIsGone(pid) { return true }
        usleep(50_000)
    }
    return analyzeCLIProcessIsGone(pid)
}

fileprivate func analyzeCLIReadPID(_ path: String) throws -> pid_t {
    let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    return try #require(pid_t(text), "no pid in \(path): '\(text)'")
}

extension Sandbox {
    /// Nothing of any analysis is stored: no analysis record, no node, no relation.
    fileprivate func expectNothingStored(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try ok(["analysis", "list", "--json"]).jsonValue() == .array([]), sourceLocation: sourceLocation)
        #expect(try ok(["graph", "list", "--json"]).jsonValue() == .array([]), sourceLocation: sourceLocation)
        let counts = try self.counts()
        #expect(counts["analyses"] == .integer(0), sourceLocation: sourceLocation)
        #expect(counts["nodes"] == .integer(0), sourceLocation: sourceLocation)
        #expect(counts["relations"] == .integer(0), sourceLocation: sourceLocation)
    }

    fileprivate func analyses() throws -> [JSONValue] {
        try #require(try ok(["analysis", "list", "--json"]).jsonValue().arrayValue)
    }
}

fileprivate let analyzeCLIGoodAnswer = """
    {"sentiment": "calm", "themes": ["sea"], "entities": {"people": ["Anna"]},
     "nodes": [{"type": "person", "name": "Anna"}, {"type": "place", "name": "Lisbon"}],
     "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "Anna"}, "type": "walked with", "strength": 0.8}]}
    """

@Suite(.tags(.e2e)) struct AnalyzeCommandTests {
    @Test func aSucceedingAnalyserStoresTheAnalysisAndTheGraph() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Walked with Anna in Lisbon."]).printedID()
        let result = try jv.ok(["analyze", String(entry.prefix(6)), "--command", analyzeCLIPrinting(analyzeCLIGoodAnswer)])
        // For a person, the count, not an id per entry (those come with --json).
        #expect(result.out.isEmpty, "\(result)")
        #expect(result.err == "Analysed 1 of 1 entry.\n", "\(result)")
        let analyses = try jv.analyses()
        #expect(analyses.count == 1)
        let analysis = try #require(analyses.first)
        #expect(analysis["entry_id"] == .string(entry))
        #expect(analysis["model"] == .string("local"))
        #expect(analysis["sentiment"] == .string("calm"))
        #expect(analysis["themes"] == .array([.string("sea")]))
        #expect(analysis["entities"] == .object([("people", .array([.string("Anna")]))]))
        let nodes = try #require(try jv.ok(["graph", "list", "--json"]).jsonValue().arrayValue)
        #expect(Set(nodes.compactMap { node in node["name"]?.stringValue.map { "\(node["type"]?.stringValue ?? "?"):\($0)" } })
                == ["person:Anna", "place:Lisbon", "person:me"])
        let anna = try jv.ok(["graph", "show", "anna", "--json"]).jsonValue()
        let relations = try #require(anna["relations"]?.arrayValue)
        #expect(relations.count == 1)
        #expect(relations.first?["strength"]?.doubleValue == 0.8)
        #expect(relations.first?["entry_id"] == .string(entry))
        let counts = try jv.counts()
        #expect(counts["analyses"] == .integer(1))
        #expect(counts["nodes"] == .integer(3))
        #expect(counts["relations"] == .integer(1))
    }

    @Test func withJSONTheStoredAnalysesArePrinted() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "JSON output."]).printedID()
        let printed = try #require(try jv.ok(["analyze", entry, "--json", "--command", analyzeCLIPrinting(#"{"sentiment": "ok"}"#)]).jsonValue().arrayValue)
        #expect(printed.count == 1)
        guard case .object(let members)? = printed.first else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["id", "entry_id", "model", "processed_at", "sentiment", "themes", "entities"])
        #expect(printed == (try jv.analyses()))
    }

    /// A model asked for JSON often answers in a Markdown code fence with a sentence around it.
    @Test func anAnswerInACodeFenceWithProseAroundItIsStored() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Fenced."]).printedID()
        let script = jv.folder.file("fenced-analyser.sh")
        try """
            #!/bin/sh
            cat >/dev/null
            echo 'Here is the analysis you asked for:'
            echo
            echo '```json'
            echo '{"sentiment": "calm", "themes": ["a } brace"]}'
            echo '```'
            echo 'I hope this helps.'
            """.write(toFile: script, atomically: true, encoding: .utf8)
        try jv.ok(["analyze", entry, "--command", "sh \(analyzeCLIQuoted(script))"])
        let analyses = try jv.analyses()
        #expect(analyses.map { $0["sentiment"] } == [.string("calm")])
        #expect(analyses.first?["themes"] == .array([.string("a } brace")]))
        let twice = try jv.fails(["analyze", entry, "--command", analyzeCLIPrinting(#"One: {"sentiment": "a"} two: {"sentiment": "b"}"#)],
                                 status: 65)
        #expect(twice.err.contains("did not print valid JSON"), "\(twice)")
        #expect(try jv.analyses().count == 1)
    }

    @Test func theModelIsTheOptionElseTheAnswersElseLocal() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Models."]).printedID()
        let withModel = analyzeCLIPrinting(#"{"sentiment": "x", "model": "answer-model"}"#)
        let withoutModel = analyzeCLIPrinting(#"{"sentiment": "x"}"#)
        try jv.ok(["analyze", entry, "--model", "option-model", "--command", withModel])
        try jv.ok(["analyze", entry, "--command", withModel])
        try jv.ok(["analyze", entry, "--command", withoutModel])
        try jv.ok(["analyze", entry, "--command", withoutModel, "--model", "option-model", "--keep"])
        #expect(try jv.analyses().map { $0["model"] } == [.string("option-model"), .string("answer-model"), .string("local"), .string("option-model")])
        #expect(try jv.ok(["analysis", "list", "--model", "local", "--json"]).jsonValue().arrayValue?.count == 1)
    }

    @Test func theAnalyserGetsTheEntryJSONOnStandardInput() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "--star", "--tag", "food", "Lunch with @anna at the Café.\nSecond line with \"quotes\"."]).printedID()
        let received = jv.folder.file("received.json")
        try jv.ok(["analyze", entry, "--command", "cat > \(analyzeCLIQuoted(received)); echo '{\"themes\": []}'"])
        let got = try JSONParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: received))))
        let shown = try jv.ok(["show", entry, "--json"]).jsonValue()
        #expect(got == shown)
        #expect(got["content"] == .string("Lunch with @anna at the Café.\nSecond line with \"quotes\"."))
    }

    @Test(.tags(.slow), .notInQuickRun, arguments: [
        ("exit 3", "status 3"),
        (#"cat >/dev/null; echo '{"sentiment": "calm"}'; exit 1"#, "status 1"),
        ("cat >/dev/null; kill -9 $$", "signal"),
        (analyzeCLIPrinting("this is not JSON"), "JSON"),
        (analyzeCLIPrinting(#"{"sentiment": "calm""#), "JSON"),
        (analyzeCLIPrinting(#"[{"sentiment": "calm"}]"#), "not an object"),
        (analyzeCLIPrinting(#"{"model": "m", "nodes": [{"type": "person", "name": "Ghost"}]}"#), "sentiment"),
        (analyzeCLIPrinting("{}"), "sentiment"),
        (analyzeCLIPrinting(#"{"sentiment": "x", "nodes": [{"type": "person", "name": "Ghost"}], "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "Ghost"}, "type": "haunts", "strength": 1.5}]}"#), "strength"),
        (analyzeCLIPrinting(#"{"sentiment": "x", "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "Ghost"}, "type": "haunts", "strength": -0.5}]}"#), "strength"),
        ("cat >/dev/null", "printed nothing"),
    ])
    func aFailingAnalyserExits65NamesTheEntryAndStoresNothing(command: String, reason: String) throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Anything at all."]).printedID()
        let result = try jv.fails(["analyze", entry, "--command", command], status: 65)
        #expect(result.err.contains(entry), "\(result)")
        #expect(result.err.contains(reason), "\(result)")
        #expect(result.out.isEmpty, "\(result)")
        try jv.expectNothingStored()
    }

    @Test func theAnalysersOwnComplaintsReachStandardError() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Complaints."]).printedID()
        let result = try jv.fails(["analyze", entry, "--command", "echo 'analyser says: model not loaded' >&2; exit 2"], status: 65)
        #expect(result.err.contains("analyser says: model not loaded"), "\(result)")
    }

    @Test func aHangingAnalyserIsKilledWithEverythingItStarted() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Slow analyser."]).printedID()
        let shellFile = jv.folder.file("shell.pid"), sleeperFile = jv.folder.file("sleeper.pid")
        let command = "echo $$ > \(analyzeCLIQuoted(shellFile)); sleep 30 & echo $! > \(analyzeCLIQuoted(sleeperFile)); wait"
        let started = Date()
        let result = try jv.fails(["analyze", entry, "--timeout", "1", "--command", command], status: 65)
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 15, "jv returned after \(elapsed) s")
        #expect(result.err.contains(entry), "\(result)")
        #expect(result.err.contains("within 1 second and"), "\(result)")
        #expect(analyzeCLIWaitUntilGone(try analyzeCLIReadPID(shellFile)), "the analyser's shell still runs")
        #expect(analyzeCLIWaitUntilGone(try analyzeCLIReadPID(sleeperFile)), "the analyser's child (sleep 30) still runs")
        try jv.expectNothingStored()
    }

    /// A process the analyser moves to a session of its own (setsid) leaves its process group,
    /// which the timeout kills; jv is the subreaper of everything the analyser starts, and ends
    /// it all, on a timeout and after an analyser that answered too.
    @Test(arguments: [("hangs", "sleep 30"), ("answers", #"echo '{"sentiment": "calm"}'"#)])
    func processesAnAnalyserDetachesWithSetsidAreEndedToo(name: String, then: String) throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Analyser with a daemon."]).printedID()
        let daemonFile = jv.folder.file("daemon.pid")
        let daemon = try jv.folder.write("daemon.sh", "echo $$ > \(analyzeCLIQuoted(daemonFile)); exec sleep 300\n")
        let command = "cat >/dev/null; setsid /bin/sh \(analyzeCLIQuoted(daemon)) >/dev/null 2>&1 & sleep 0.5; \(then)"
        let result = try jv.run(["analyze", entry, "--timeout", "3", "--command", command])
        #expect(result.status == (name == "hangs" ? 65 : 0), "\(result)")
        #expect(analyzeCLIWaitUntilGone(try analyzeCLIReadPID(daemonFile)), "the detached process still runs (\(name))")
    }

    /// The deadline covers the analyser's exit too, not only its output.
    @Test func anAnalyserThatClosesItsOutputAndLingersIsStoppedAtTheTimeout() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Lingering analyser."]).printedID()
        let pidFile = jv.folder.file("lingering.pid")
        let started = Date()
        let result = try jv.fails(["analyze", entry, "--timeout", "1", "--command",
                                   "cat >/dev/null; exec >&-; echo $$ > \(analyzeCLIQuoted(pidFile)); sleep 20"], status: 65)
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 15, "jv returned after \(elapsed) s: the 1-second timeout was not applied")
        #expect(result.err.contains(entry), "\(result)")
        #expect(analyzeCLIWaitUntilGone(try analyzeCLIReadPID(pidFile)), "the analyser was not killed")
        try jv.expectNothingStored()
    }

    @Test(.tags(.slow), .notInQuickRun, arguments: [
        #"echo '{"sentiment": "did not listen"}'"#,
        #"head -c 10 >/dev/null; echo '{"sentiment": "read a little"}'"#,
        #"exec 0<&-; sleep 0.3; echo '{"sentiment": "closed stdin"}'"#,
        #"head -c 3000000 /dev/zero | tr '\0' ' '; echo '{"sentiment": "verbose"}'"#,
    ])
    func analysersThatDoNotReadALargeEntryNeitherDeadlockNorKillJV(command: String) throws {
        let jv = try Sandbox(from: .empty())
        let content = String(repeating: "🌊", count: 49_990) + " calm sea."
        let entry = try jv.ok(["add"], input: content).printedID()
        let started = Date()
        let result = try jv.run(["analyze", entry, "--timeout", "60", "--command", command])
        #expect(result.status == 0, "\(result)")
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(try jv.analyses().count == 1)
    }

    @Test func aLargeEntryReachesTheAnalyserWhole() throws {
        let jv = try Sandbox(from: .empty())
        let content = String(repeating: "é", count: 49_995) + " end."
        let entry = try jv.ok(["add"], input: content).printedID()
        let received = jv.folder.file("large.json")
        try jv.ok(["analyze", entry, "--command", "cat > \(analyzeCLIQuoted(received)); echo '{\"sentiment\": \"big\"}'"])
        let data = try Data(contentsOf: URL(fileURLWithPath: received))
        #expect(data.count > 100_000)
        #expect(try JSONParser.parse([UInt8](data))["content"] == .string(content))
    }

    @Test func oneFailingEntryDoesNotStopTheOthers() throws {
        let jv = try Sandbox(from: .empty())
        let good = try jv.ok(["add", "A good day with Anna."]).printedID()
        let bad = try jv.ok(["add", "FAIL this one."]).printedID()
        let alsoGood = try jv.ok(["add", "Another good day."]).printedID()
        let command = #"if grep -q FAIL; then exit 2; fi; echo '{"sentiment": "fine"}'"#
        let result = try jv.run(["analyze", good, bad, alsoGood, "--command", command])
        #expect(result.status == 65, "\(result)")
        #expect(result.err.contains(bad), "\(result)")
        #expect(!result.err.contains(good), "\(result)")
        #expect(!result.err.contains(alsoGood), "\(result)")
        #expect(result.err.contains("2 of 3"), "\(result)")
        let analysed = try jv.analyses().compactMap { $0["entry_id"]?.stringValue }
        #expect(Set(analysed) == [good, alsoGood])
        #expect(analysed.count == 2)
    }

    @Test func fromAndToSelectEntriesByDay() throws {
        let jv = try Sandbox(from: .empty())
        let jan3 = try jv.ok(["add", "--at", "2026-01-03 10:00", "Third."]).printedID()
        let jan5 = try jv.ok(["add", "--at", "2026-01-05 23:30", "Fifth, late."]).printedID()
        let jan6 = try jv.ok(["add", "--at", "2026-01-06 08:00", "Sixth."]).printedID()
        let jan9 = try jv.ok(["add", "--at", "2026-01-09", "Ninth."]).printedID()
        let command = analyzeCLIPrinting(#"{"themes": ["day"]}"#)
        func analysedEntries() throws -> Set<String> { Set(try jv.analyses().compactMap { $0["entry_id"]?.stringValue }) }

        try jv.ok(["analyze", "--from", "2026-01-04", "--to", "2026-01-05", "--command", command])
        #expect(try analysedEntries() == [jan5], "--to includes its whole day")
        try jv.ok(["analyze", "--from", "2026-01-06", "--command", command])
        #expect(try analysedEntries() == [jan5, jan6, jan9])
        try jv.ok(["analyze", "--to", "2026-01-03", "--command", command])
        #expect(try analysedEntries() == [jan3, jan5, jan6, jan9])
        #expect(try jv.analyses().count == 4)
        // An empty range analyses nothing and succeeds.
        let none = try jv.ok(["analyze", "--from", "2025-01-01", "--to", "2025-01-31", "--command", command])
        #expect(none.out.isEmpty)
        #expect(try jv.analyses().count == 4)
    }

    @Test func analysingAgainUpdatesTheRelationInsteadOfDuplicatingIt() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Walked with Anna."]).printedID()
        func answer(_ name: String, _ strength: Double) -> String {
            analyzeCLIPrinting(#"{"sentiment": "ok", "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "\#(name)"}, "type": "walked with", "strength": \#(strength)}]}"#)
        }
        try jv.ok(["analyze", entry, "--command", answer("Anna", 0.3)])
        try jv.ok(["analyze", entry, "--command", answer(" ANNA ", 0.9)])
        let anna = try jv.ok(["graph", "show", "Anna", "--json"]).jsonValue()
        let relations = try #require(anna["relations"]?.arrayValue)
        #expect(relations.count == 1)
        #expect(relations.first?["strength"]?.doubleValue == 0.9)
        #expect(anna["name"] == .string("Anna"))
        let counts = try jv.counts()
        #expect(counts["relations"] == .integer(1))
        #expect(counts["nodes"] == .integer(2))
        #expect(counts["analyses"] == .integer(1), "the second run replaced the first")
    }

    @Test func analysingAgainWithTheSameModelReplacesTheEarlierAnalysisUnlessKept() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Twice analysed."]).printedID()
        let other = try jv.ok(["add", "Analysed once."]).printedID()
        func run(_ sentiment: String, model: String, _ extra: [String] = []) throws -> String {
            let printed = try jv.ok(["analyze", entry, "--json", "--model", model, "--command",
                                     analyzeCLIPrinting(#"{"sentiment": "\#(sentiment)"}"#)] + extra).jsonValue()
            return try #require(printed.arrayValue?.first?["id"]?.stringValue)
        }
        try jv.ok(["analyze", other, "--model", "m", "--command", analyzeCLIPrinting(#"{"sentiment": "other"}"#)])
        let first = try run("first", model: "m")
        let replaced = try run("second", model: "m")
        let elsewhere = try run("by n", model: "n")
        func sentiments() throws -> [String: Set<String>] {
            Dictionary(grouping: try jv.analyses(), by: { $0["entry_id"]?.stringValue ?? "" })
                .mapValues { Set($0.compactMap { $0["sentiment"]?.stringValue }) }
        }
        #expect(try sentiments() == [entry: ["second", "by n"], other: ["other"]], "no duplicate; other models and entries untouched")
        try jv.fails(["analysis", "show", first], status: 66)
        let kept = try run("third", model: "m", ["--keep"])
        #expect(try sentiments()[entry] == ["second", "by n", "third"])
        #expect(Set([replaced, elsewhere, kept]).count == 3)
        try run("fourth", model: "m", ["--replace"])
        #expect(try sentiments()[entry] == ["by n", "fourth"], "--replace replaces every earlier one by the model")
        try jv.fails(["analyze", entry, "--keep", "--replace", "--command", analyzeCLIPrinting(#"{"sentiment": "x"}"#)], status: 64)
    }

    @Test func badAnalyzeInvocationsAreRefused() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Target."]).printedID()
        let marker = jv.folder.file("ran")
        let command = "touch \(analyzeCLIQuoted(marker)); echo '{\"sentiment\": \"x\"}'"
        try jv.fails(["analyze", "--command", command], status: 64)
        try jv.fails(["analyze", entry], status: 64)
        try jv.fails(["analyze", entry, "--timeout", "0", "--command", command], status: 64)
        try jv.fails(["analyze", entry, "--timeout", "-1", "--command", command], status: 64)
        try jv.fails(["analyze", "--from", "never ever", "--command", command], status: 64)
        try jv.fails(["analyze", "ffffffff", "--command", command], status: 66)
        #expect(!FileManager.default.fileExists(atPath: marker), "no analyser may run for a refused command")
        try jv.expectNothingStored()
    }

    /// The analyser is another program (often a model runner): the passphrase jv was given in
    /// its environment must not be handed on to it.
    @Test
    func theAnalyserDoesNotInheritThePassphrase() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Secret-keeping."]).printedID()
        let seen = jv.folder.file("analyser-passphrase")
        // The analyser records only whether it can see the variable (never its whole environment).
        let command = #"cat >/dev/null; if [ -n "${JV_PASSPHRASE+set}" ]; then echo inherited; else echo absent; fi > "# + analyzeCLIQuoted(seen)
            + #"; echo '{"sentiment": "ok"}'"#
        let result = try jv.run(["analyze", entry, "--command", command],
                                env: ["JV_PASSPHRASE_FILE": nil, "JV_PASSPHRASE": Sandbox.passphrase])
        #expect(result.status == 0, "\(result)")
        let verdict = try String(contentsOfFile: seen, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(verdict == "absent", "the analyser inherited JV_PASSPHRASE")
    }
}
