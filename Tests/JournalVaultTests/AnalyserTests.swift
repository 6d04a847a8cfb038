// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

#if canImport(Glibc)
import Glibc
#endif

// The local-analyser protocol at library level (README "Analyser protocol"): what
// counts as an answer, what is stored from it, and how failing, hanging, deaf or verbose
// analysers are handled — nothing stored for a failed entry, no deadlock, no SIGPIPE, and a
// timeout that kills the analyser with everything it started.

fileprivate extension TemporaryVault {
    /// Nothing of any analysis is in the vault.
    func expectNothingStored(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try count("analysis") == 0, sourceLocation: sourceLocation)
        #expect(try count("knowledge_node") == 0, sourceLocation: sourceLocation)
        #expect(try count("knowledge_relation") == 0, sourceLocation: sourceLocation)
    }
}

/// A shell-quoted word.
fileprivate func analyserQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// A command that drains its input and prints `answer`.
fileprivate func analyserPrinting(_ answer: String) -> String {
    "cat >/dev/null; printf '%s\\n' \(analyserQuoted(answer))"
}

fileprivate let analyserFullAnswer = """
    {"sentiment": "calm", "themes": ["sea", "friendship"], "entities": {"people": ["Anna"]}, "model": "answer-model",
     "nodes": [{"type": "person", "name": "Anna"}, {"type": "place", "name": "the sea"}],
     "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "anna"}, "type": "walked with", "strength": 0.8}],
     "confidence": 0.9}
    """

/// Whether process `pid` no longer runs (gone, or a zombie nobody has reaped yet).
fileprivate func analyserProcessIsGone(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 { return errno == ESRCH }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
    return state == "Z" || state == "X"
}

/// Waits up to `seconds` for `pid` to be gone.
fileprivate func analyserWaitUntilGone(_ pid: pid_t, seconds: Double = 5) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if analyserProcessIsGone(pid) { return true }
        usleep(50_000)
    }
    return analyserProcessIsGone(pid)
}

/// A value handed from the analyser thread to the test.
fileprivate final class AnalyserOutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?

    func set(_ newValue: String?) { lock.lock(); value = newValue; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return value }
}

fileprivate func analyserReadPID(_ path: String) throws -> pid_t {
    let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    return try #require(pid_t(text), "no pid in \(path): '\(text)'")
}

/// Expects the answer `text` to be refused; returns the reason.
@discardableResult
fileprivate func analyserExpectRefused(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    do {
        let answer = try AnalyserAnswer(parsing: Array(text.utf8))
        Issue.record("accepted \(text) as \(answer)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error.reason
    }
}

@Suite struct AnalyserTests {
    // MARK: Answers

    @Test func aFullAnswerIsParsed() throws {
        let answer = try AnalyserAnswer(parsing: Array(analyserFullAnswer.utf8))
        #expect(answer.sentiment == "calm")
        #expect(answer.themes == ["sea", "friendship"])
        #expect(answer.entities == .object([("people", .array([.string("Anna")]))]))
        #expect(answer.model == "answer-model")
        #expect(answer.nodes == [NodeReference(type: "person", name: "Anna"), NodeReference(type: "place", name: "the sea")])
        #expect(answer.relations == [RelationDraft(from: NodeReference(type: "person", name: "me"), to: NodeReference(type: "person", name: "anna"),
                                                   type: "walked with", strength: 0.8)])
        #expect(answer.extra == .object([("confidence", .number(0.9))]), "unknown members are kept")
    }

    @Test(arguments: [#"{"sentiment": "ok"}"#, #"{"themes": []}"#, #"{"entities": null}"#, #"{"entities": [1, 2]}"#,
                      "  \n{\"themes\": [\"a\"]}\n\n", #"{"sentiment": null, "themes": ["x"]}"#])
    func anyOneOfSentimentThemesOrEntitiesIsEnough(text: String) throws {
        _ = try AnalyserAnswer(parsing: Array(text.utf8))
    }

    @Test func aRelationWithoutStrengthHasStrengthOne() throws {
        let answer = try AnalyserAnswer(parsing: Array(#"""
            {"themes": [], "relations": [{"from": {"type": "person", "name": "a"}, "to": {"type": "person", "name": "b"}, "type": "knows"}]}
            """#.utf8))
        #expect(answer.relations.map(\.strength) == [1])
    }

    @Test(arguments: [
        "",                                              // nothing
        "   \n",                                         // white space only
        "not json",
        #"{"sentiment": "calm""#,                        // truncated
        #"{"sentiment": "a"} {"sentiment": "b"}"#,       // two documents
        #"[{"sentiment": "calm"}]"#,                      // an array
        #""calm""#, "42", "null", "true",                 // scalars
        "{}",                                            // no sentiment, themes or entities
        #"{"model": "m", "nodes": [], "relations": []}"#,
        #"{"sentiment": 3}"#, #"{"sentiment": ["calm"]}"#,
        #"{"themes": "sea"}"#, #"{"themes": ["sea", 1]}"#,
        #"{"sentiment": "x", "relations": [{"from": {"type": "person", "name": "a"}, "to": {"type": "person", "name": "b"}, "type": "k", "strength": 1.5}]}"#,
        #"{"sentiment": "x", "relations": [{"from": {"type": "person", "name": "a"}, "to": {"type": "person", "name": "b"}, "type": "k", "strength": -0.01}]}"#,
        #"{"sentiment": "x", "relations": [{"from": {"type": "person", "name": "a"}, "to": {"type": "person", "name": "b"}, "type": "k", "strength": "high"}]}"#,
        #"{"sentiment": "x", "relations": [{"from": {"type": "person", "name": "a"}, "to": {"type": "person", "name": "b"}, "strength": 0.5}]}"#,
        #"{"sentiment": "x", "relations": [{"to": {"type": "person", "name": "b"}, "type": "k"}]}"#,
        #"{"sentiment": "x", "nodes": [{"type": "person"}]}"#,
        #"{"sentiment": "x", "nodes": [{"type": "person", "name": "  "}]}"#,
        #"{"sentiment": "x", "nodes": [{"type": "close friend", "name": "Anna"}]}"#,
        #"{"sentiment": "x", "nodes": [{"name": "Anna"}]}"#,
    ])
    func anythingButAValidObjectIsRefused(text: String) {
        let reason = analyserExpectRefused(text)
        #expect(reason.map { !$0.isEmpty } ?? true)
    }

    @Test func refusalsSayWhatIsWrong() {
        #expect(analyserExpectRefused("")?.contains("nothing") == true)
        #expect(analyserExpectRefused("{oops")?.contains("JSON") == true)
        #expect(analyserExpectRefused("[1]")?.contains("not an object") == true)
        #expect(analyserExpectRefused(#"{"model": "m"}"#)?.contains("sentiment") == true)
    }

    // MARK: Answers in a code fence or with prose around them

    @Test(arguments: [
        "```json\n{\"sentiment\": \"calm\"}\n```\n",
        "```\n{\"sentiment\": \"calm\"}\n```",
        "Here is the analysis:\n\n```JSON\n{\"sentiment\": \"calm\"}\n```\n\nLet me know if you need more.",
        "  ```json  \r\n{\"sentiment\": \"calm\"}\r\n  ```  \r\n",
        "Sure! {\"sentiment\": \"calm\"} Hope that helps.",
        "The answer:\n{\"sentiment\": \"calm\"}",
        "```json\n{\"sentiment\": \"calm\"}",                 // a fence never closed: the braces still hold one object
        "Some {braces} in the prose, then\n```json\n{\"sentiment\": \"calm\"}\n```\nand {more}.",
    ])
    func anObjectInAFenceOrAmongProseIsTaken(text: String) throws {
        #expect(try AnalyserAnswer(parsing: Array(text.utf8)).sentiment == "calm")
    }

    @Test func bracesAndFencesInsideStringsAreTheObjectsOwn() throws {
        let answer = try AnalyserAnswer(parsing: Array(#"""
            Okay. {"sentiment": "a } { b", "themes": ["{x}", "```"], "entities": {"note": "}{"}} Done.
            """#.utf8))
        #expect(answer.sentiment == "a } { b")
        #expect(answer.themes == ["{x}", "```"])
        #expect(answer.entities == .object([("note", .string("}{"))]))
        let fenced = try AnalyserAnswer(parsing: Array("```json\n{\"sentiment\": \"}\", \"themes\": [\"{\"]}\n```\n".utf8))
        #expect(fenced.sentiment == "}" && fenced.themes == ["{"])
    }

    @Test(arguments: [
        "Two: {\"sentiment\": \"a\"} and {\"sentiment\": \"b\"}",
        "```json\n{\"sentiment\": \"a\"}\n```\nor\n```json\n{\"sentiment\": \"b\"}\n```\n",
        "```json\n{\"sentiment\": \"a\"}\n{\"sentiment\": \"b\"}\n```\n",
        "```json\n[{\"sentiment\": \"a\"}]\n```\n",             // a fenced array is not an object
        "```json\nnot yet\n```\n{\"sentiment\": \"a\"}",            // the block is the answer, not what follows it
        "```json\n{\"sentiment\": \"a\"}\n```json\n{\"sentiment\": \"b\"}\n```\n",
        "No JSON here at all.",
        "```\n```",
        "} backwards {",
        "Almost: {\"sentiment\": \"calm\"",
    ])
    func twoObjectsOrNoneAreRefusedAsBefore(text: String) throws {
        let whole: JSONParser.Error
        do {
            _ = try JSONParser.parse(Array(text.utf8))
            Issue.record("\(text) is JSON as a whole")
            return
        } catch {
            whole = error
        }
        #expect(analyserExpectRefused(text) == "did not print valid JSON (\(whole.description))")
    }

    @Test(.timeLimit(.minutes(1))) func hugeHostileAnswersCostOnePass() throws {
        let size = 8 << 20
        #expect(analyserExpectRefused(String(repeating: "{", count: size)) != nil)
        #expect(analyserExpectRefused(String(repeating: "{\"", count: size / 2)) != nil)
        #expect(analyserExpectRefused("{" + String(repeating: "{\"a\": ", count: size / 6) + "}") != nil)
        #expect(analyserExpectRefused(String(repeating: "```\n", count: size / 4)) != nil)
        #expect(analyserExpectRefused(String(repeating: "```json\n{}\n```\n", count: size / 16)) != nil)
        let prose = String(repeating: "words and {braces} ", count: size / 20)
        #expect(try AnalyserAnswer(parsing: Array("```\n{\"themes\": [\"long\"]}\n```\n\(prose)".utf8)).themes == ["long"])
        #expect(try AnswerText.outermostBraces(in: Array("x{\"a\": 1}y".utf8)).map { String(decoding: $0, as: UTF8.self) } == #"{"a": 1}"#)
    }

    // MARK: Running analysers

    /// The analyser's input socket must be closed once: closing it a second time closes whatever
    /// file another thread opened in between under the same descriptor number (here: one of ours).
    @Test func runningAnAnalyserClosesNoOtherFileDescriptor() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Descriptor hygiene.")
        let finished = DispatchSemaphore(value: 0)
        let outcome = AnalyserOutcomeBox()
        let journal = vault.journal
        Thread.detachNewThread {
            do {
                _ = try journal.analyse(entryID: entry.id, with: Analyser(command: "cat >/dev/null; sleep 1; echo '{\"sentiment\": \"ok\"}'"))
                outcome.set(nil)
            } catch {
                outcome.set("\(error)")
            }
            finished.signal()
        }
        // By now the entry has been written and its socket closed; the analyser still sleeps.
        usleep(400_000)
        // Take the lowest free descriptor numbers, as any other thread opening a file would.
        let placeholders = (0..<64).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(outcome.get() == nil)
        let closedBehindOurBack = placeholders.filter { $0 >= 0 && fcntl($0, F_GETFD) == -1 }
        #expect(closedBehindOurBack.isEmpty, "descriptors \(closedBehindOurBack) were closed by the analyser runner")
        for descriptor in placeholders where descriptor >= 0 && !closedBehindOurBack.contains(descriptor) { close(descriptor) }
    }

    @Test func aSucceedingAnalyserStoresItsAnalysisNodesAndRelations() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Walked by the sea with Anna.")
        let analysis = try vault.journal.analyse(entryID: entry.id, with: Analyser(command: analyserPrinting(analyserFullAnswer)))
        let stored = try vault.journal.analysis(id: analysis.id)
        #expect(stored == analysis)
        #expect(stored.entryID == entry.id)
        #expect(stored.sentiment == "calm")
        #expect(stored.themes == ["sea", "friendship"])
        #expect(stored.entities == .object([("people", .array([.string("Anna")]))]))
        #expect(stored.extra == .object([("confidence", .number(0.9))]))
        #expect(Set(try vault.journal.nodes().map { "\($0.type):\($0.name)" }) == ["person:Anna", "place:the sea", "person:me"])
        let relations = try vault.journal.allRelations()
        #expect(relations.count == 1)
        #expect(relations.first?.strength == 0.8)
        #expect(relations.first?.entryID == entry.id)
        #expect(relations.first?.to == (try vault.journal.resolveNode("anna")).id)
    }

    @Test func theModelIsTheGivenOneElseTheAnswersElseLocal() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Models.")
        let withModel = analyserPrinting(#"{"sentiment": "x", "model": "answer-model"}"#)
        let withoutModel = analyserPrinting(#"{"sentiment": "x"}"#)
        #expect(try vault.journal.analyse(entryID: entry.id, with: Analyser(command: withModel, model: "given-model")).model == "given-model")
        #expect(try vault.journal.analyse(entryID: entry.id, with: Analyser(command: withModel)).model == "answer-model")
        #expect(try vault.journal.analyse(entryID: entry.id, with: Analyser(command: withoutModel)).model == "local")
        #expect(try vault.journal.analyse(entryID: entry.id, with: Analyser(command: withoutModel, model: "given-model"), replacingEarlier: false).model == "given-model")
        #expect(try vault.journal.analyses().map(\.model) == ["given-model", "answer-model", "local", "given-model"])
    }

    @Test func theAnalyserGetsTheEntrysJSONOnStandardInput() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Lunch with @anna at the Café.\nSecond line with \"quotes\" and \\ backslash.", starred: true, tags: ["food"])
        let received = vault.folder.file("received.json")
        try vault.journal.analyse(entryID: entry.id, with: Analyser(command: "cat > \(analyserQuoted(received)); echo '{\"themes\": []}'"))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: received)))
        let json = try JSONParser.parse(bytes)
        #expect(json == entry.json)
        #expect(json["content"]?.stringValue == entry.content)
        #expect(json["id"]?.stringValue == entry.id.uuidString.lowercased())
    }

    @Test func aLargeEntryReachesTheAnalyserWhole() throws {
        let vault = try TemporaryVault()
        // 50,000 characters of four UTF-8 bytes each: far more than a pipe or socket buffer holds.
        let content = String(repeating: "😀", count: 49_990) + " end."
        let entry = try vault.journal.addEntry(content)
        let received = vault.folder.file("large.json")
        try vault.journal.analyse(entryID: entry.id, with: Analyser(command: "cat > \(analyserQuoted(received)); echo '{\"sentiment\": \"big\"}'"))
        let data = try Data(contentsOf: URL(fileURLWithPath: received))
        #expect(data.count > 200_000)
        #expect(try JSONParser.parse([UInt8](data))["content"]?.stringValue == content)
    }

    @Test(arguments: [
        #"echo '{"sentiment": "did not listen"}'"#,                              // never reads, exits at once
        #"head -c 10 >/dev/null; echo '{"sentiment": "read a little"}'"#,         // reads a few bytes only
        #"exec 0<&-; sleep 0.3; echo '{"sentiment": "closed stdin"}'"#,          // closes its input, answers later
        #"head -c 3000000 /dev/zero | tr '\0' ' '; echo '{"sentiment": "verbose"}'"#,  // a big answer, input unread
    ])
    func analysersThatDoNotReadALargeEntryNeitherDeadlockNorKillUs(command: String) throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry(String(repeating: "🌊", count: 50_000))
        let started = Date()
        let analysis = try vault.journal.analyse(entryID: entry.id, with: Analyser(command: command, timeout: .seconds(30)))
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(analysis.sentiment != nil)
        #expect(try vault.count("analysis") == 1)
    }

    @Test func anAnalyserThatReadsNothingAndPrintsNothingFailsCleanly() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry(String(repeating: "x", count: 50_000))
        let error = #expect(throws: AnalyserError.self) { try vault.journal.analyse(entryID: entry.id, with: Analyser(command: "exit 0")) }
        #expect(error?.reason.contains("nothing") == true)
        try vault.expectNothingStored()
    }

    @Test(arguments: [
        ("exit 3", "status 3"),
        (#"cat >/dev/null; echo '{"sentiment": "calm"}'; exit 1"#, "status 1"),   // a good answer, then failure
        ("cat >/dev/null; kill -9 $$", "signal 9"),
        (analyserPrinting("this is not JSON"), "JSON"),
        (analyserPrinting(#"[{"sentiment": "calm"}]"#), "not an object"),
        (analyserPrinting(#"{"model": "m", "nodes": [{"type": "person", "name": "Ghost"}]}"#), "sentiment"),
        (analyserPrinting(#"{"sentiment": "x", "nodes": [{"type": "person", "name": "Ghost"}], "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "Ghost"}, "type": "haunts", "strength": 1.5}]}"#), "strength"),
        ("/nonexistent/analyser-binary", "127"),
    ])
    func aFailingAnalyserStoresNothingAndSaysWhy(command: String, reason: String) throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Anything at all.")
        let error = #expect(throws: AnalyserError.self) { try vault.journal.analyse(entryID: entry.id, with: Analyser(command: command)) }
        #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "no error")")
        try vault.expectNothingStored()
    }

    @Test func anAnswerOverSixteenMebibytesIsRefused() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Chatty analyser.")
        let command = #"cat >/dev/null; head -c 17000000 /dev/zero | tr '\0' ' '; echo '{"sentiment": "too much"}'"#
        let error = #expect(throws: AnalyserError.self) { try vault.journal.analyse(entryID: entry.id, with: Analyser(command: command)) }
        #expect(error?.reason.contains("MiB") == true)
        try vault.expectNothingStored()
    }

    @Test func aHangingAnalyserIsKilledWithEverythingItStartedAtTheTimeout() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Slow analyser.")
        let shellPID = vault.folder.file("shell.pid")
        let sleeperPID = vault.folder.file("sleeper.pid")
        let command = "echo $$ > \(analyserQuoted(shellPID)); sleep 30 & echo $! > \(analyserQuoted(sleeperPID)); wait"
        let started = Date()
        let error = #expect(throws: AnalyserError.self) {
            try vault.journal.analyse(entryID: entry.id, with: Analyser(command: command, timeout: .seconds(1)))
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 15, "returned after \(elapsed) s")
        #expect(error?.reason.contains("1 second") == true, "\(error?.reason ?? "")")
        let shell = try analyserReadPID(shellPID)
        let sleeper = try analyserReadPID(sleeperPID)
        #expect(analyserWaitUntilGone(shell), "the analyser's shell still runs")
        #expect(analyserWaitUntilGone(sleeper), "the analyser's child (sleep 30) still runs")
        try vault.expectNothingStored()
    }

    /// The deadline covers the analyser's exit too, not only its output.
    @Test func anAnalyserThatClosesItsOutputButKeepsRunningIsStoppedAtTheTimeout() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Lingering analyser.")
        let pidFile = vault.folder.file("lingering.pid")
        // It closes its output without answering, then lingers: no answer within the timeout.
        let command = "cat >/dev/null; exec >&-; echo $$ > \(analyserQuoted(pidFile)); sleep 20"
        let started = Date()
        #expect(throws: AnalyserError.self) {
            try vault.journal.analyse(entryID: entry.id, with: Analyser(command: command, timeout: .seconds(1)))
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 15, "returned after \(elapsed) s: the 1-second timeout was not applied")
        #expect(analyserWaitUntilGone(try analyserReadPID(pidFile)), "the analyser was not killed")
        try vault.expectNothingStored()
    }

    @Test func anAnalysisOfAnUnknownEntryRunsNothing() throws {
        let vault = try TemporaryVault()
        let marker = vault.folder.file("ran")
        #expect(throws: VaultError.self) {
            try vault.journal.analyse(entryID: UUID(), with: Analyser(command: "touch \(analyserQuoted(marker)); echo '{\"sentiment\": \"x\"}'"))
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
        try vault.expectNothingStored()
    }

    @Test func eachEntrysAnalysisIsIndependent() throws {
        let vault = try TemporaryVault()
        let good = try vault.journal.addEntry("A good day with Anna.")
        let bad = try vault.journal.addEntry("FAIL this one.")
        // Fails for the entry whose text contains FAIL, answers for the other.
        let command = #"if grep -q FAIL; then exit 2; fi; echo '{"sentiment": "fine", "nodes": [{"type": "person", "name": "Anna"}]}'"#
        let analyser = Analyser(command: command)
        #expect(throws: AnalyserError.self) { try vault.journal.analyse(entryID: bad.id, with: analyser) }
        let stored = try vault.journal.analyse(entryID: good.id, with: analyser)
        #expect(try vault.journal.analyses().map(\.id) == [stored.id])
        #expect(try vault.journal.analyses().map(\.entryID) == [good.id])
        #expect(try vault.journal.nodes().map(\.name) == ["Anna"])
    }
}
