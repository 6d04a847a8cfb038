// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// `jv chat ask` end to end (README "Asking a local model"): the question is stored, the thread
// (and --with-entries' entries) reach the command on standard input as one JSON object, its
// answer is stored as the assistant's message with the model; a command that fails leaves the
// question in the thread, exits 65 and says how to ask again.

extension Sandbox {
    /// The messages of the one thread there is.
    fileprivate func onlyThreadsMessages(sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
        let threads = try #require(try ok(["chat", "list", "--json"]).jsonValue().arrayValue, sourceLocation: sourceLocation)
        try #require(threads.count == 1, "\(threads)", sourceLocation: sourceLocation)
        let id = try #require(threads.first?["id"]?.stringValue, sourceLocation: sourceLocation)
        return try #require(try ok(["chat", "show", id, "--json"]).jsonValue()["messages"]?.arrayValue, sourceLocation: sourceLocation)
    }

    /// What a command run by ``chatAskRecording(_:answer:)`` got on standard input.
    fileprivate func request(_ file: String) throws -> JSONValue {
        try JSONParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
    }
}

/// A command that keeps its standard input in `file` and prints `answer`.
fileprivate func chatAskRecording(_ file: String, answer: String) -> String {
    "cat > \(Examples.quoted(file)); printf '%s\\n' \(Examples.quoted(answer))"
}

/// The role, content and model of each message.
fileprivate func chatAskSummary(_ messages: [JSONValue]) -> [String] {
    messages.map { "\($0["role"]?.stringValue ?? "?"): \($0["content"]?.stringValue ?? "?") (\($0["model"]?.stringValue ?? "-"))" }
}

@Suite(.tags(.e2e)) struct ChatAskTests {
    @Test func theQuestionAndThePlainAnswerAreStoredAndTheAnswerPrinted() throws {
        let jv = try Sandbox(from: .empty())
        try jv.ok(["chat", "add", "--role", "system", "Answer in one sentence."])
        let received = jv.folder.file("request.json")
        let result = try jv.ok(["chat", "ask", "How did March go?", "--command", chatAskRecording(received, answer: "Calmer than February.")])
        #expect(result.out == "Calmer than February.\n", "\(result)")
        #expect(try chatAskSummary(jv.onlyThreadsMessages()) == [
            "system: Answer in one sentence. (-)", "user: How did March go? (-)", "assistant: Calmer than February. (local)",
        ])
        let request = try jv.request(received)
        #expect(jsonKeys(request) == ["model", "messages", "entries"])
        #expect(request["model"] == .null)
        #expect(request["messages"] == .array([
            .object([("role", .string("system")), ("content", .string("Answer in one sentence."))]),
            .object([("role", .string("user")), ("content", .string("How did March go?"))]),
        ]))
        #expect(request["entries"] == .array([]))

        // The next question goes to the same (active) thread, with the whole conversation.
        try jv.ok(["chat", "ask", "And April?", "--command", chatAskRecording(received, answer: "Warmer.")])
        #expect(try jv.request(received)["messages"]?.arrayValue?.map { $0["role"] }
                == [.string("system"), .string("user"), .string("assistant"), .string("user")])
        #expect(try jv.onlyThreadsMessages().count == 5)
    }

    @Test func aJSONAnswerGivesTheContentModelAndUsageAndJSONPrintsTheMessage() throws {
        let jv = try Sandbox(from: .empty())
        let received = jv.folder.file("request.json")
        let answer = #"{"content": "  Forty-two.\n", "model": "answer-model", "usage": {"tokens": 7}}"#
        let printed = try jv.ok(["chat", "ask", "--json", "What is it?", "--command", chatAskRecording(received, answer: answer)]).jsonValue()
        #expect(jsonKeys(printed) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        #expect(printed["role"] == .string("assistant"))
        #expect(printed["content"] == .string("Forty-two."))
        #expect(printed["model"] == .string("answer-model"))
        #expect(try jv.onlyThreadsMessages().last == printed)
        // --model is sent, and stored over the answer's.
        try jv.ok(["chat", "ask", "Again?", "--model", "option-model", "--command", chatAskRecording(received, answer: answer)])
        #expect(try jv.request(received)["model"] == .string("option-model"))
        #expect(try jv.onlyThreadsMessages().last?["model"] == .string("option-model"))
    }

    @Test func withEntriesSendsExactlyThoseEntries() throws {
        let jv = try Sandbox(from: .empty())
        let before = try jv.ok(["add", "--at", "2026-10-31 20:00", "October's last."]).printedID()
        let first = try jv.ok(["add", "--at", "2026-11-01 09:00", "November's first."]).printedID()
        let second = try jv.ok(["add", "--at", "2026-11-15 09:00", "--tag", "sea", "Mid-November."]).printedID()
        let after = try jv.ok(["add", "--at", "2026-12-01 09:00", "December."]).printedID()
        let received = jv.folder.file("request.json")
        func sent(_ range: String) throws -> [String] {
            try jv.ok(["chat", "ask", "What happened?", "--with-entries", range, "--command", chatAskRecording(received, answer: "Things.")])
            return try #require(try jv.request(received)["entries"]?.arrayValue).compactMap { $0["id"]?.stringValue }
        }
        #expect(try sent("2026-11-01..2026-11-30") == [first, second])
        #expect(try sent("2026-11") == [first, second], "one date: all its days")
        #expect(try sent("2026-11-02..") == [second, after])
        #expect(try sent("..2026-11-01") == [before, first])
        // Each in the shape `jv show --json` prints.
        let entries = try #require(try jv.request(received)["entries"]?.arrayValue)
        #expect(entries.last == (try jv.ok(["show", first, "--json"]).jsonValue()))
        // The entries go to the command only: the thread holds the questions and answers.
        #expect(try jv.onlyThreadsMessages().count == 8)
    }

    @Test func badInvocationsAreRefusedBeforeAnythingIsStoredOrRun() throws {
        let jv = try Sandbox(from: .empty())
        let marker = jv.folder.file("ran")
        let command = "touch \(Examples.quoted(marker)); echo answer"
        try jv.fails(["chat", "ask", "Q?", "--with-entries", "2026-12-01..2026-11-01", "--command", command], status: 64)
        try jv.fails(["chat", "ask", "Q?", "--with-entries", "never ever", "--command", command], status: 64)
        try jv.fails(["chat", "ask", "Q?", "--with-entries", "..", "--command", command], status: 64)
        try jv.fails(["chat", "ask", "Q?", "--timeout", "0", "--command", command], status: 64)
        try jv.fails(["chat", "ask", "Q?"], status: 64)
        try jv.fails(["chat", "ask", "Q?", "--thread", "0123abcd", "--command", command], status: 66)
        let nothingToRetry = try jv.fails(["chat", "ask", "--command", command], status: 64)
        #expect(nothingToRetry.err.contains("give a question"), "\(nothingToRetry)")
        #expect(!FileManager.default.fileExists(atPath: marker), "no command may run for a refused invocation")
        #expect(try jv.counts()["messages"] == .integer(0))
    }

    @Test func aFailingCommandKeepsTheQuestionAndAskingAgainAnswersIt() throws {
        let jv = try Sandbox(from: .empty())
        let failed = try jv.fails(["chat", "ask", "What about the secret garden?", "--command", "cat >/dev/null; exit 3"], status: 65)
        let thread = try #require(try jv.ok(["chat", "list", "--json"]).jsonValue().arrayValue?.first?["id"]?.stringValue)
        let short = String(thread.prefix(8))
        #expect(failed.errorLines == [
            "jv: The chat command exited with status 3; your question is kept in thread \(short): to ask again, run jv chat ask --thread \(short) --command CMD without a question.",
        ], "\(failed)")
        #expect(!failed.err.contains("secret garden"), "no content in the error")
        #expect(failed.out.isEmpty)
        #expect(try chatAskSummary(jv.onlyThreadsMessages()) == ["user: What about the secret garden? (-)"])

        // Asked again, the thread goes as it is; an answered thread is not asked again.
        let received = jv.folder.file("request.json")
        try jv.ok(["chat", "ask", "--thread", short, "--command", chatAskRecording(received, answer: "It grows.")])
        #expect(try jv.request(received)["messages"]?.arrayValue?.count == 1)
        #expect(try chatAskSummary(jv.onlyThreadsMessages()) == ["user: What about the secret garden? (-)", "assistant: It grows. (local)"])
        let answered = try jv.fails(["chat", "ask", "--command", "echo again"], status: 64)
        #expect(answered.err.contains("not a question"), "\(answered)")
        // A failure when asking again stores nothing.
        try jv.ok(["chat", "add", "--role", "user", "One more?"])
        let again = try jv.fails(["chat", "ask", "--command", "cat >/dev/null; exit 4"], status: 65)
        #expect(again.errorLines == ["jv: The chat command exited with status 4; nothing was stored."], "\(again)")
        #expect(try jv.onlyThreadsMessages().count == 3)
    }

    @Test func aHangingCommandIsStoppedAtTheTimeoutAndTheQuestionKept() throws {
        let jv = try Sandbox(from: .empty())
        let pidFile = jv.folder.file("sleeper.pid")
        let started = Date()
        let result = try jv.fails(["chat", "ask", "Still there?", "--timeout", "1", "--command",
                                   "sleep 30 & echo $! > \(Examples.quoted(pidFile)); wait"], status: 65)
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(result.err.contains("gave no answer within 1 second and was stopped; your question is kept"), "\(result)")
        let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        var gone = false
        for _ in 0..<100 where !gone {
            gone = kill(pid, 0) != 0
            if !gone { usleep(50_000) }
        }
        #expect(gone, "the command's child (sleep 30) still runs")
        #expect(try chatAskSummary(jv.onlyThreadsMessages()) == ["user: Still there? (-)"])
    }

    @Test(arguments: [
        ("cat >/dev/null", "printed no answer"),
        ("cat >/dev/null; printf '  \\n\\n'", "printed no answer"),
        (#"cat >/dev/null; echo '{"answer": "wrong member"}'"#, #"without a "content" string"#),
        (#"cat >/dev/null; printf '\377\376'"#, "not UTF-8"),
        ("cat >/dev/null; kill -9 $$", "killed by signal 9"),
    ])
    func anAnswerThatCannotBeStoredIsRefused(command: String, reason: String) throws {
        let jv = try Sandbox(from: .empty())
        let result = try jv.fails(["chat", "ask", "Anything?", "--command", command], status: 65)
        #expect(result.err.contains(reason), "\(result)")
        #expect(result.err.contains("your question is kept"), "\(result)")
        #expect(try jv.onlyThreadsMessages().count == 1)
    }

    @Test func theCommandDoesNotInheritThePassphrase() throws {
        let jv = try Sandbox(from: .empty())
        let command = #"cat >/dev/null; if [ -n "${JV_PASSPHRASE_FILE+set}${JV_PASSPHRASE+set}" ]; then echo inherited; else echo absent; fi"#
        let result = try jv.run(["chat", "ask", "Can you see it?", "--command", command], env: ["JV_PASSPHRASE": Sandbox.passphrase])
        #expect(result.status == 0, "\(result)")
        #expect(result.out == "absent\n", "the command inherited a passphrase variable")
    }
}
