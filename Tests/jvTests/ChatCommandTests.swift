// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// `jv chat new|add|list|show|delete` end to end (README "JSON", README "Chats"), driving the built
// jv binary with a passphrase file, no terminal and standard input from /dev/null unless given.

extension Sandbox {
    fileprivate func threads() throws -> [JSONValue] {
        try #require(try ok(["chat", "list", "--json"]).jsonValue().arrayValue)
    }

    /// `jv chat show THREAD --json` (named apart from ``Sandbox/show(_:)``, which shows an entry).
    fileprivate func thread(_ id: String) throws -> JSONValue {
        try ok(["chat", "show", id, "--json"]).jsonValue()
    }
}

fileprivate func chatCLIByID(_ threads: [JSONValue]) -> [String: JSONValue] {
    Dictionary(threads.compactMap { thread in thread["id"]?.stringValue.map { ($0, thread) } }, uniquingKeysWith: { first, _ in first })
}

fileprivate func chatCLIActive(_ threads: [JSONValue]) -> [String] {
    threads.filter { $0["is_active"] == .bool(true) }.compactMap { $0["id"]?.stringValue }
}

@Suite(.tags(.e2e)) struct ChatCommandTests {
    @Test func chatAddWithoutAThreadCreatesOneAndPrintsTheMessageID() throws {
        let jv = try Sandbox(from: .empty())
        #expect(try jv.threads().isEmpty)
        let messageID = try jv.ok(["chat", "add", "--role", "user", "How did March go?\nIn detail, please."]).printedID()
        let threads = try jv.threads()
        #expect(threads.count == 1)
        let thread = try #require(threads.first)
        #expect(jsonKeys(thread) == ["id", "title", "is_active", "created_at", "updated_at", "last_message_at", "message_count"])
        #expect(thread["title"] == .string("How did March go?"))
        #expect(thread["is_active"] == .bool(true))
        #expect(thread["message_count"] == .integer(1))

        let shown = try jv.thread(try #require(thread["id"]?.stringValue))
        let messages = try #require(shown["messages"]?.arrayValue)
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(jsonKeys(message) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        #expect(message["id"]?.stringValue == messageID)
        #expect(message["thread_id"] == thread["id"])
        #expect(message["role"] == .string("user"))
        #expect(message["content"] == .string("How did March go?\nIn detail, please."))
        #expect(message["model"] == .null)
        #expect(message["entry_id"] == .null)
        #expect(thread["last_message_at"] == message["timestamp"])
    }

    @Test func theActiveThreadRules() throws {
        let jv = try Sandbox(from: .empty())
        try jv.ok(["chat", "add", "--role", "user", "First thread"])
        let firstID = try #require(try jv.threads().first?["id"]?.stringValue)

        // `chat new` makes the new thread the only active one, and prints its id.
        let secondID = try jv.ok(["chat", "new", "--title", "Planning the trip"]).printedID()
        var threads = try jv.threads()
        #expect(threads.count == 2)
        #expect(chatCLIActive(threads) == [secondID])
        #expect(threads.first { $0["id"]?.stringValue == secondID }?["title"] == .string("Planning the trip"))
        #expect(threads.first { $0["id"]?.stringValue == secondID }?["last_message_at"] == .null)

        // `chat add` without --thread writes to the active thread.
        try jv.ok(["chat", "add", "--role", "assistant", "--model", "llama3", "Where to?"])
        var byID = try chatCLIByID(jv.threads())
        #expect(byID[secondID]?["message_count"] == .integer(1))
        #expect(byID[firstID]?["message_count"] == .integer(1))

        // Writing to a named thread (by prefix) makes it the active one.
        try jv.ok(["chat", "add", "--thread", String(firstID.prefix(8)), "--role", "user", "Back to the first"])
        threads = try jv.threads()
        #expect(chatCLIActive(threads) == [firstID])
        #expect(chatCLIByID(threads)[firstID]?["message_count"] == .integer(2))
        try jv.ok(["chat", "add", "--role", "user", "Still the first"])
        threads = try jv.threads()
        byID = chatCLIByID(threads)
        #expect(chatCLIActive(threads) == [firstID])
        #expect(byID[firstID]?["message_count"] == .integer(3))
        #expect(byID[secondID]?["message_count"] == .integer(1))
        // The explicit title stays; the first thread keeps the title from its first message.
        #expect(byID[secondID]?["title"] == .string("Planning the trip"))
        #expect(byID[firstID]?["title"] == .string("First thread"))
        // Most recently written first.
        #expect(threads.compactMap { $0["id"]?.stringValue } == [firstID, secondID])
        // `chat show` agrees.
        let shown = try jv.thread(firstID)
        #expect(shown["is_active"] == .bool(true))
        #expect(shown["messages"]?.arrayValue?.count == 3)
    }

    @Test func anUntitledThreadTakesItsFirstMessagesFirstLineCutAtEightyCharacters() throws {
        let jv = try Sandbox(from: .empty())
        let thread = try jv.ok(["chat", "new"]).printedID()
        let line = String(repeating: "abcdefghij", count: 10)  // 100 characters
        try jv.ok(["chat", "add", "--role", "user"], input: line + "\nsecond line\n")
        let title = try #require(try jv.thread(thread)["title"]?.stringValue)
        #expect(title == String(line.prefix(79)) + "…")
        #expect(title.count == 80)
        // A later message changes nothing.
        try jv.ok(["chat", "add", "--role", "user", "Another first line"])
        #expect(try jv.thread(thread)["title"] == .string(title))
    }

    @Test func timestampsAndCountsFollowTheMessages() throws {
        let jv = try Sandbox(from: .empty())
        let thread = try jv.ok(["chat", "new", "--title", "Times"]).printedID()
        let created = try jv.thread(thread)
        #expect(created["message_count"] == .integer(0))
        #expect(created["last_message_at"] == .null)
        #expect(created["updated_at"] == created["created_at"])

        let first = try jv.ok(["chat", "add", "--role", "user", "--json", "One"]).jsonValue()
        #expect(jsonKeys(first) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        usleep(20_000)
        let second = try jv.ok(["chat", "add", "--role", "assistant", "--model", "llama3", "--language", "en", "--json", "Two"]).jsonValue()
        let shown = try jv.thread(thread)
        #expect(shown["message_count"] == .integer(2))
        #expect(shown["last_message_at"] == second["timestamp"])
        #expect(shown["updated_at"] == second["timestamp"])
        #expect(first["timestamp"] != second["timestamp"])
        let messages = try #require(shown["messages"]?.arrayValue)
        #expect(messages.map { $0["id"] } == [first["id"], second["id"]])
        #expect(messages.last?["model"] == .string("llama3"))
        #expect(messages.last?["language"] == .string("en"))
        #expect(messages.last?["role"] == .string("assistant"))
    }

    @Test func aMessageOutlivesItsEntryWithoutTheLink() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Lunch with Anna."]).printedID()
        let message = try jv.ok(["chat", "add", "--role", "user", "--entry", String(entry.prefix(6)), "About that lunch"]).printedID()
        let thread = try #require(try jv.threads().first?["id"]?.stringValue)
        #expect(try jv.thread(thread)["messages"]?.arrayValue?.first?["entry_id"] == .string(entry))

        try jv.ok(["delete", entry, "--yes"])
        let shown = try jv.thread(thread)
        let messages = try #require(shown["messages"]?.arrayValue)
        #expect(messages.count == 1)
        #expect(messages.first?["id"] == .string(message))
        #expect(messages.first?["entry_id"] == .null)
        #expect(messages.first?["content"] == .string("About that lunch"))
        #expect(try jv.counts()["messages"] == .integer(1))
        #expect(try jv.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))
    }

    @Test func deletingAThreadDeletesItsMessages() throws {
        let jv = try Sandbox(from: .empty())
        let doomed = try jv.ok(["chat", "new", "--title", "Doomed"]).printedID()
        try jv.ok(["chat", "add", "--role", "user", "one zebra"])
        try jv.ok(["chat", "add", "--role", "assistant", "two zebras"])
        let kept = try jv.ok(["chat", "new", "--title", "Kept"]).printedID()
        try jv.ok(["chat", "add", "--role", "user", "a zebra that stays"])
        #expect(try jv.counts()["messages"] == .integer(3))

        try jv.ok(["chat", "delete", String(doomed.prefix(8)), "--yes"])
        try jv.fails(["chat", "show", doomed], status: 66)
        #expect(try jv.threads().compactMap { $0["id"]?.stringValue } == [kept])
        let counts = try jv.counts()
        #expect(counts["threads"] == .integer(1))
        #expect(counts["messages"] == .integer(1))
        let found = try #require(try jv.ok(["search", "zebra", "--kind", "chat", "--json"]).jsonValue().arrayValue)
        #expect(found.map { $0["content"] } == [.string("a zebra that stays")])
        #expect(try jv.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))
        // Deleting it again: not found.
        try jv.fails(["chat", "delete", doomed, "--yes"], status: 66)
    }

    @Test func deletingTheActiveThreadMeansTheNextMessageStartsANewOne() throws {
        let jv = try Sandbox(from: .empty())
        let old = try jv.ok(["chat", "new", "--title", "Old"]).printedID()
        let active = try jv.ok(["chat", "new", "--title", "Active"]).printedID()
        try jv.ok(["chat", "delete", active, "--yes"])
        #expect(chatCLIActive(try jv.threads()).isEmpty)
        try jv.ok(["chat", "add", "--role", "user", "Fresh start"])
        let threads = try jv.threads()
        #expect(threads.count == 2)
        let fresh = try #require(threads.first { $0["id"]?.stringValue != old })
        #expect(fresh["title"] == .string("Fresh start"))
        #expect(chatCLIActive(threads) == [try #require(fresh["id"]?.stringValue)])
    }

    @Test func chatNewWithJSONPrintsTheThreadAndCanNameAnEntry() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Trip notes."]).printedID()
        let thread = try jv.ok(["chat", "new", "--title", "About the trip", "--entry", entry, "--json"]).jsonValue()
        #expect(jsonKeys(thread) == ["id", "title", "is_active", "created_at", "updated_at", "last_message_at", "message_count"])
        #expect(thread["title"] == .string("About the trip"))
        #expect(thread["is_active"] == .bool(true))
        #expect(thread["message_count"] == .integer(0))
    }

    @Test func badChatCommandsFailCleanlyAndWriteNothing() throws {
        let jv = try Sandbox(from: .empty())
        let missingEntry = "ffffffff-ffff-4fff-bfff-ffffffffffff"
        try jv.fails(["chat", "add", "--role", "user", "--thread", "0123abcd", "text"], status: 66)
        try jv.fails(["chat", "add", "--role", "user", "--entry", missingEntry, "text"], status: 66)
        try jv.fails(["chat", "new", "--entry", missingEntry], status: 66)
        try jv.fails(["chat", "add", "--role", "robot", "text"], status: 64)
        try jv.fails(["chat", "add", "text without a role"], status: 64)
        try jv.fails(["chat", "add", "--role", "user", "--thread", "ab", "short prefix"], status: 64)
        try jv.fails(["chat", "add", "--role", "user"], status: 65, input: "  \n\t\n")
        try jv.fails(["chat", "add", "--role", "user", String(repeating: "x", count: 50_001)], status: 65)
        try jv.fails(["chat", "show", "0123abcd"], status: 66)
        let counts = try jv.counts()
        #expect(counts["threads"] == .integer(0))
        #expect(counts["messages"] == .integer(0))
    }

    @Test func messagesCanComeFromStandardInput() throws {
        let jv = try Sandbox(from: .empty())
        let text = "Line one from stdin\nLine two, ünïcödé ✓"
        let id = try jv.ok(["chat", "add", "--role", "system"], input: text + "\n").printedID()
        let thread = try #require(try jv.threads().first?["id"]?.stringValue)
        let message = try #require(try jv.thread(thread)["messages"]?.arrayValue?.first)
        #expect(message["id"] == .string(id))
        #expect(message["content"] == .string(text))
        #expect(message["role"] == .string("system"))
    }

    @Test func chatTextOutputListsAndShows() throws {
        let jv = try Sandbox(from: .empty())
        try jv.ok(["chat", "new", "--title", "Readable title"])
        try jv.ok(["chat", "add", "--role", "assistant", "--model", "llama3", "A readable answer\n\nin two paragraphs"])
        let list = try jv.ok(["chat", "list"]).out
        #expect(list.contains("Readable title"))
        #expect(list.contains("1 message"))
        let thread = try #require(try jv.threads().first?["id"]?.stringValue)
        let shown = try jv.ok(["chat", "show", String(thread.prefix(4))]).out
        #expect(shown.contains("Readable title"))
        #expect(shown.contains("\n    A readable answer\n    \n    in two paragraphs\n"), "every line indented by four spaces: \(shown)")
        #expect(shown.contains("assistant (llama3)"))
        #expect(!shown.contains("\u{1B}["), "no colour without a terminal")
    }

    @Test func searchingChatsOnlyFindsMessages() throws {
        let jv = try Sandbox(from: .empty())
        try jv.ok(["add", "Entry about the Café."])
        try jv.ok(["chat", "add", "--role", "user", "Message about the cafe"])
        let chat = try #require(try jv.ok(["search", "CAFÉ", "--kind", "chat", "--json"]).jsonValue().arrayValue)
        #expect(chat.count == 1)
        #expect(jsonKeys(chat.first) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        #expect(chat.first?["content"] == .string("Message about the cafe"))
        let all = try #require(try jv.ok(["search", "cafe", "--json"]).jsonValue().arrayValue)
        // Entries first, then messages, each in its own shape.
        #expect(all.count == 2)
        #expect(all.first?["title"] == .string("Entry about the Café."))
        #expect(all.last?["content"] == .string("Message about the cafe"))
        #expect(jsonKeys(all.last) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        let text = try jv.ok(["search", "cafe", "--kind", "chat"]).out
        #expect(text.contains("Message about the cafe"))
        #expect(!text.contains("Entry about"))
    }
}
