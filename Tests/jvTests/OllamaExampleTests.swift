// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// The Ollama recipes examples/ollama-analyser.sh and examples/ollama-chat.sh (README "A model
// served with Ollama's API") run by the built jv against a fake Ollama server the test starts on
// 127.0.0.1 (Fixtures/fake_ollama.py): what they send it, and what jv stores of its answer.

@Suite(.tags(.e2e, .externalTools, .network)) struct OllamaExampleTests {
    /// `SCRIPT` with `OLLAMA_HOST` and `OLLAMA_MODEL` set for it alone.
    private static func command(_ script: String, server: FakeOllama, model: String = "tiny-model") -> String {
        "OLLAMA_HOST=\(Examples.quoted(server.host)) OLLAMA_MODEL=\(model) \(Examples.quoted(Examples.path("examples/" + script)))"
    }

    @Test func theAnalyserSendsTheEntryAndStoresTheModelsFencedAnswer() throws {
        let jv = try Sandbox(from: .empty())
        let server = try FakeOllama(in: jv, reply: """
            Here is the analysis:
            ```json
            {"sentiment": "calm", "themes": ["sea"], "entities": {"people": ["Anna"]}, "nodes": [{"type": "person", "name": "Anna"}]}
            ```
            """)
        let entry = try jv.ok(["add", "Swam with Anna.\nThe \"sea\" was calm."]).printedID()
        try jv.ok(["analyze", entry, "--command", Self.command("ollama-analyser.sh", server: server)])
        let analyses = try #require(try jv.ok(["analysis", "list", "--json"]).jsonValue().arrayValue)
        #expect(analyses.map { $0["sentiment"] } == [.string("calm")])
        #expect(analyses.first?["themes"] == .array([.string("sea")]))
        #expect(analyses.first?["model"] == .string("local"), "a fenced answer is passed on as it is: jv takes the object out")
        #expect(try jv.ok(["graph", "show", "anna", "--json"]).jsonValue()["type"] == .string("person"))
        let requests = try server.requests()
        #expect(requests.map { $0["path"] } == [.string("/api/generate")])
        let body = try #require(requests.first?["body"])
        #expect(body["model"] == .string("tiny-model"))
        #expect(body["stream"] == .bool(false))
        #expect(body["format"] == .string("json"))
        #expect(body["prompt"]?.stringValue?.hasSuffix("\nSwam with Anna.\nThe \"sea\" was calm.") == true, "\(body)")

        // A bare JSON answer gets the model's name, which jv stores.
        server.reply = #"{"sentiment": "glad"}"#
        try jv.ok(["analyze", entry, "--command", Self.command("ollama-analyser.sh", server: server)])
        let second = try #require(try jv.ok(["analysis", "list", "--model", "tiny-model", "--json"]).jsonValue().arrayValue)
        #expect(second.map { $0["sentiment"] } == [.string("glad")])
    }

    @Test func theAnalyserFailsWhenTheServerRefuses() throws {
        let jv = try Sandbox(from: .empty())
        let server = try FakeOllama(in: jv, reply: nil)
        let entry = try jv.ok(["add", "Nobody answers."]).printedID()
        let result = try jv.fails(["analyze", entry, "--command", Self.command("ollama-analyser.sh", server: server)], status: 65)
        #expect(result.err.contains("model 'tiny-model' not found"), "\(result)")
        #expect(result.err.contains(entry), "\(result)")
        #expect(try jv.ok(["analysis", "list", "--json"]).jsonValue() == .array([]))
    }

    @Test func theChatCommandSendsTheThreadAndEntriesAndTheAnswerIsStoredWithTheModel() throws {
        let jv = try Sandbox(from: .empty())
        let server = try FakeOllama(in: jv, reply: "It was a calm week.")
        try jv.ok(["add", "--at", "2026-11-02 10:00", "Swam in the sea."])
        try jv.ok(["chat", "add", "--role", "system", "Answer briefly."])
        let printed = try jv.ok(["chat", "ask", "How was that week?", "--with-entries", "2026-11-01..2026-11-07", "--model", "llama-test",
                                 "--command", Self.command("ollama-chat.sh", server: server)])
        #expect(printed.out == "It was a calm week.\n", "\(printed)")
        let body = try #require(try server.requests().first?["body"])
        #expect(body["model"] == .string("llama-test"), "--model is the model asked for")
        #expect(body["stream"] == .bool(false))
        let messages = try #require(body["messages"]?.arrayValue)
        #expect(messages.map { $0["role"] } == [.string("system"), .string("system"), .string("user")])
        #expect(messages.first?["content"]?.stringValue?.contains("Entry of 2026-11-02:\nSwam in the sea.") == true, "\(messages)")
        #expect(messages.dropFirst().map { $0["content"] } == [.string("Answer briefly."), .string("How was that week?")])
        let thread = try #require(try jv.ok(["chat", "list", "--json"]).jsonValue().arrayValue?.first?["id"]?.stringValue)
        let stored = try #require(try jv.ok(["chat", "show", thread, "--json"]).jsonValue()["messages"]?.arrayValue?.last)
        #expect(stored["role"] == .string("assistant"))
        #expect(stored["content"] == .string("It was a calm week."))
        #expect(stored["model"] == .string("llama-test"))

        // Without --model: OLLAMA_MODEL is asked for, and the model the server names is stored.
        try jv.ok(["chat", "ask", "And after?", "--command", Self.command("ollama-chat.sh", server: server)])
        #expect(try server.requests().last?["body"]?["model"] == .string("tiny-model"))
        let last = try #require(try jv.ok(["chat", "show", thread, "--json"]).jsonValue()["messages"]?.arrayValue?.last)
        #expect(last["model"] == .string("tiny-model"))
    }
}
