import Foundation
import JournalVault
import Testing

// `jv chat new|add|list|show|delete` end to end (SPEC §5, README "Chats"), driving the built
// jv binary with a passphrase file, no terminal and standard input from /dev/null unless given.

fileprivate struct ChatCLIResult {
    let arguments: [String]
    let status: Int32
    let stdout: String
    let stderr: String

    var summary: String { "jv \(arguments.joined(separator: " ")) → \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }

    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        do {
            return try JSONParser.parse(Array(stdout.utf8))
        } catch {
            Issue.record("not JSON: \(summary)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The full id printed alone on a line.
    func printedID(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let line = stdout.trimmingCharacters(in: .newlines)
        #expect(stdout == line + "\n", "expected one line: \(summary)", sourceLocation: sourceLocation)
        let id = try #require(UUID(uuidString: line), "not an id: \(summary)", sourceLocation: sourceLocation)
        #expect(line == id.uuidString.lowercased(), sourceLocation: sourceLocation)
        return line
    }
}

/// A throw-away vault (interactive KDF) in its own folder, and a way to run jv on it.
fileprivate final class ChatCLI: @unchecked Sendable {
    static let passphrase = "chat cli test passphrase"
    let folder: URL
    let vaultPath: String
    let passphraseFile: String

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["JV_BINARY"], !path.isEmpty { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
    }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("jv-chat-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        passphraseFile = folder.appendingPathComponent("passphrase").path
        try Data((Self.passphrase + "\n").utf8).write(to: URL(fileURLWithPath: passphraseFile))
        vaultPath = folder.appendingPathComponent("vault/journal.vault").path
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "no jv binary at \(Self.binary)")
        let created = try run(["init", "--kdf", "interactive"])
        try #require(created.status == 0, "\(created.summary)")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs jv with `arguments`; standard input is `stdin` (else /dev/null).
    func run(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChatCLIResult {
        let id = UUID().uuidString
        let outPath = path("out-\(id)"), errPath = path("err-\(id)")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        var inputPath = "/dev/null"
        if let stdin { inputPath = try write("in-\(id)", stdin) }
        let input = try #require(FileHandle(forReadingAtPath: inputPath))
        let output = try #require(FileHandle(forWritingAtPath: outPath))
        let errors = try #require(FileHandle(forWritingAtPath: errPath))
        defer { try? input.close(); try? output.close(); try? errors.close() }

        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            !key.hasPrefix("JV_") && !["NO_COLOR", "XDG_DATA_HOME", "EDITOR", "VISUAL", "TZ"].contains(key)
        }
        environment["JV_VAULT"] = vaultPath
        environment["JV_PASSPHRASE_FILE"] = passphraseFile
        environment["NO_COLOR"] = "1"
        environment["TZ"] = "UTC"
        environment["HOME"] = folder.path
        environment["EDITOR"] = "false"

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = folder
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if done.wait(timeout: .now() + 120) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            done.wait()
            Issue.record("jv \(arguments) did not finish within 120 s", sourceLocation: sourceLocation)
        }
        return ChatCLIResult(arguments: arguments, status: process.terminationStatus,
                             stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self),
                             stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }

    /// Runs jv and expects exit status 0.
    @discardableResult
    func ok(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChatCLIResult {
        let result = try run(arguments, stdin: stdin, sourceLocation: sourceLocation)
        try #require(result.status == 0, "\(result.summary)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs jv and expects `status`, one sentence on standard error and nothing on standard output.
    @discardableResult
    func fails(_ arguments: [String], status: Int32, stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChatCLIResult {
        let result = try run(arguments, stdin: stdin, sourceLocation: sourceLocation)
        #expect(result.status == status, "\(result.summary)", sourceLocation: sourceLocation)
        #expect(!result.stderr.isEmpty, "\(result.summary)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error"), "\(result.summary)", sourceLocation: sourceLocation)
        return result
    }

    func threads() throws -> [JSONValue] {
        try #require(try ok(["chat", "list", "--json"]).json().arrayValue)
    }

    func show(_ thread: String) throws -> JSONValue {
        try ok(["chat", "show", thread, "--json"]).json()
    }

    func counts() throws -> JSONValue {
        try #require(try ok(["info", "--json"]).json()["counts"])
    }
}

fileprivate func chatCLIKeys(_ value: JSONValue?) -> [String] {
    guard case .object(let members)? = value else { return [] }
    return members.map(\.0)
}

fileprivate func chatCLIByID(_ threads: [JSONValue]) -> [String: JSONValue] {
    Dictionary(threads.compactMap { thread in thread["id"]?.stringValue.map { ($0, thread) } }, uniquingKeysWith: { first, _ in first })
}

fileprivate func chatCLIActive(_ threads: [JSONValue]) -> [String] {
    threads.filter { $0["is_active"] == .bool(true) }.compactMap { $0["id"]?.stringValue }
}

@Suite struct ChatCommandTests {
    @Test func chatAddWithoutAThreadCreatesOneAndPrintsTheMessageID() throws {
        let jv = try ChatCLI()
        #expect(try jv.threads().isEmpty)
        let messageID = try jv.ok(["chat", "add", "--role", "user", "How did March go?\nIn detail, please."]).printedID()
        let threads = try jv.threads()
        #expect(threads.count == 1)
        let thread = try #require(threads.first)
        #expect(chatCLIKeys(thread) == ["id", "title", "is_active", "created_at", "updated_at", "last_message_at", "message_count"])
        #expect(thread["title"] == .string("How did March go?"))
        #expect(thread["is_active"] == .bool(true))
        #expect(thread["message_count"] == .integer(1))

        let shown = try jv.show(try #require(thread["id"]?.stringValue))
        let messages = try #require(shown["messages"]?.arrayValue)
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(chatCLIKeys(message) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        #expect(message["id"]?.stringValue == messageID)
        #expect(message["thread_id"] == thread["id"])
        #expect(message["role"] == .string("user"))
        #expect(message["content"] == .string("How did March go?\nIn detail, please."))
        #expect(message["model"] == .null)
        #expect(message["entry_id"] == .null)
        #expect(thread["last_message_at"] == message["timestamp"])
    }

    @Test func theActiveThreadRules() throws {
        let jv = try ChatCLI()
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
        let shown = try jv.show(firstID)
        #expect(shown["is_active"] == .bool(true))
        #expect(shown["messages"]?.arrayValue?.count == 3)
    }

    @Test func anUntitledThreadTakesItsFirstMessagesFirstLineCutAtEightyCharacters() throws {
        let jv = try ChatCLI()
        let thread = try jv.ok(["chat", "new"]).printedID()
        let line = String(repeating: "abcdefghij", count: 10)  // 100 characters
        try jv.ok(["chat", "add", "--role", "user"], stdin: line + "\nsecond line\n")
        let title = try #require(try jv.show(thread)["title"]?.stringValue)
        #expect(title == String(line.prefix(79)) + "…")
        #expect(title.count == 80)
        // A later message changes nothing.
        try jv.ok(["chat", "add", "--role", "user", "Another first line"])
        #expect(try jv.show(thread)["title"] == .string(title))
    }

    @Test func timestampsAndCountsFollowTheMessages() throws {
        let jv = try ChatCLI()
        let thread = try jv.ok(["chat", "new", "--title", "Times"]).printedID()
        let created = try jv.show(thread)
        #expect(created["message_count"] == .integer(0))
        #expect(created["last_message_at"] == .null)
        #expect(created["updated_at"] == created["created_at"])

        let first = try jv.ok(["chat", "add", "--role", "user", "--json", "One"]).json()
        #expect(chatCLIKeys(first) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        usleep(20_000)
        let second = try jv.ok(["chat", "add", "--role", "assistant", "--model", "llama3", "--language", "en", "--json", "Two"]).json()
        let shown = try jv.show(thread)
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
        let jv = try ChatCLI()
        let entry = try jv.ok(["add", "Lunch with Anna."]).printedID()
        let message = try jv.ok(["chat", "add", "--role", "user", "--entry", String(entry.prefix(6)), "About that lunch"]).printedID()
        let thread = try #require(try jv.threads().first?["id"]?.stringValue)
        #expect(try jv.show(thread)["messages"]?.arrayValue?.first?["entry_id"] == .string(entry))

        try jv.ok(["delete", entry, "--yes"])
        let shown = try jv.show(thread)
        let messages = try #require(shown["messages"]?.arrayValue)
        #expect(messages.count == 1)
        #expect(messages.first?["id"] == .string(message))
        #expect(messages.first?["entry_id"] == .null)
        #expect(messages.first?["content"] == .string("About that lunch"))
        #expect(try jv.counts()["messages"] == .integer(1))
        #expect(try jv.ok(["check", "--json"]).json()["ok"] == .bool(true))
    }

    @Test func deletingAThreadDeletesItsMessages() throws {
        let jv = try ChatCLI()
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
        let found = try #require(try jv.ok(["search", "zebra", "--kind", "chat", "--json"]).json().arrayValue)
        #expect(found.map { $0["content"] } == [.string("a zebra that stays")])
        #expect(try jv.ok(["check", "--json"]).json()["ok"] == .bool(true))
        // Deleting it again: not found.
        try jv.fails(["chat", "delete", doomed, "--yes"], status: 66)
    }

    @Test func deletingTheActiveThreadMeansTheNextMessageStartsANewOne() throws {
        let jv = try ChatCLI()
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
        let jv = try ChatCLI()
        let entry = try jv.ok(["add", "Trip notes."]).printedID()
        let thread = try jv.ok(["chat", "new", "--title", "About the trip", "--entry", entry, "--json"]).json()
        #expect(chatCLIKeys(thread) == ["id", "title", "is_active", "created_at", "updated_at", "last_message_at", "message_count"])
        #expect(thread["title"] == .string("About the trip"))
        #expect(thread["is_active"] == .bool(true))
        #expect(thread["message_count"] == .integer(0))
    }

    @Test func badChatCommandsFailCleanlyAndWriteNothing() throws {
        let jv = try ChatCLI()
        let missingEntry = "ffffffff-ffff-4fff-bfff-ffffffffffff"
        try jv.fails(["chat", "add", "--role", "user", "--thread", "0123abcd", "text"], status: 66)
        try jv.fails(["chat", "add", "--role", "user", "--entry", missingEntry, "text"], status: 66)
        try jv.fails(["chat", "new", "--entry", missingEntry], status: 66)
        try jv.fails(["chat", "add", "--role", "robot", "text"], status: 64)
        try jv.fails(["chat", "add", "text without a role"], status: 64)
        try jv.fails(["chat", "add", "--role", "user", "--thread", "ab", "short prefix"], status: 64)
        try jv.fails(["chat", "add", "--role", "user"], status: 65, stdin: "  \n\t\n")
        try jv.fails(["chat", "add", "--role", "user", String(repeating: "x", count: 50_001)], status: 65)
        try jv.fails(["chat", "show", "0123abcd"], status: 66)
        let counts = try jv.counts()
        #expect(counts["threads"] == .integer(0))
        #expect(counts["messages"] == .integer(0))
    }

    @Test func messagesCanComeFromStandardInput() throws {
        let jv = try ChatCLI()
        let text = "Line one from stdin\nLine two, ünïcödé ✓"
        let id = try jv.ok(["chat", "add", "--role", "system"], stdin: text + "\n").printedID()
        let thread = try #require(try jv.threads().first?["id"]?.stringValue)
        let message = try #require(try jv.show(thread)["messages"]?.arrayValue?.first)
        #expect(message["id"] == .string(id))
        #expect(message["content"] == .string(text))
        #expect(message["role"] == .string("system"))
    }

    @Test func chatTextOutputListsAndShows() throws {
        let jv = try ChatCLI()
        try jv.ok(["chat", "new", "--title", "Readable title"])
        try jv.ok(["chat", "add", "--role", "assistant", "--model", "llama3", "A readable answer"])
        let list = try jv.ok(["chat", "list"]).stdout
        #expect(list.contains("Readable title"))
        #expect(list.contains("1 message"))
        let thread = try #require(try jv.threads().first?["id"]?.stringValue)
        let shown = try jv.ok(["chat", "show", String(thread.prefix(4))]).stdout
        #expect(shown.contains("Readable title"))
        #expect(shown.contains("A readable answer"))
        #expect(shown.contains("assistant (llama3)"))
        #expect(!shown.contains("\u{1B}["), "no colour without a terminal")
    }

    @Test func searchingChatsOnlyFindsMessages() throws {
        let jv = try ChatCLI()
        try jv.ok(["add", "Entry about the Café."])
        try jv.ok(["chat", "add", "--role", "user", "Message about the cafe"])
        let chat = try #require(try jv.ok(["search", "CAFÉ", "--kind", "chat", "--json"]).json().arrayValue)
        #expect(chat.count == 1)
        #expect(chatCLIKeys(chat.first) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        #expect(chat.first?["content"] == .string("Message about the cafe"))
        let all = try #require(try jv.ok(["search", "cafe", "--json"]).json().arrayValue)
        // Entries first, then messages, each in its own shape.
        #expect(all.count == 2)
        #expect(all.first?["title"] == .string("Entry about the Café."))
        #expect(all.last?["content"] == .string("Message about the cafe"))
        #expect(chatCLIKeys(all.last) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        let text = try jv.ok(["search", "cafe", "--kind", "chat"]).stdout
        #expect(text.contains("Message about the cafe"))
        #expect(!text.contains("Entry about"))
    }
}
