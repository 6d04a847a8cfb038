import Foundation
import JournalVault
import Testing

// `jv graph list|show` end to end (SPEC §4 KnowledgeNode/KnowledgeRelation, §5): the knowledge
// graph that `jv analyze` builds, driven through the built jv binary with a passphrase file.

fileprivate struct GraphCLIResult {
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
fileprivate final class GraphCLI: @unchecked Sendable {
    static let passphrase = "graph cli test passphrase"
    let folder: URL
    let vaultPath: String
    let passphraseFile: String

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["JV_BINARY"], !path.isEmpty { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
    }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("jv-graph-cli-\(UUID().uuidString)")
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
    func run(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> GraphCLIResult {
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
        return GraphCLIResult(arguments: arguments, status: process.terminationStatus,
                             stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self),
                             stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }

    /// Runs jv and expects exit status 0.
    @discardableResult
    func ok(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> GraphCLIResult {
        let result = try run(arguments, stdin: stdin, sourceLocation: sourceLocation)
        try #require(result.status == 0, "\(result.summary)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs jv and expects `status`, one sentence on standard error and nothing on standard output.
    @discardableResult
    func fails(_ arguments: [String], status: Int32, stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> GraphCLIResult {
        let result = try run(arguments, stdin: stdin, sourceLocation: sourceLocation)
        #expect(result.status == status, "\(result.summary)", sourceLocation: sourceLocation)
        #expect(!result.stderr.isEmpty, "\(result.summary)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error"), "\(result.summary)", sourceLocation: sourceLocation)
        return result
    }

    func counts() throws -> JSONValue {
        try #require(try ok(["info", "--json"]).json()["counts"])
    }
}

fileprivate func graphCLIKeys(_ value: JSONValue?) -> [String] {
    guard case .object(let members)? = value else { return [] }
    return members.map(\.0)
}

extension GraphCLI {
    /// Runs `jv analyze ENTRY` with an analyser that answers `answer`; expects success.
    fileprivate func analyse(_ entry: String, answer: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = try write("answer-\(UUID().uuidString).json", answer)
        try ok(["analyze", entry, "--command", "cat >/dev/null; cat '\(file)'"], sourceLocation: sourceLocation)
    }

    fileprivate func nodes(_ options: [String] = []) throws -> [JSONValue] {
        try #require(try ok(["graph", "list", "--json"] + options).json().arrayValue)
    }

    fileprivate func node(_ text: String) throws -> JSONValue {
        try ok(["graph", "show", text, "--json"]).json()
    }
}

/// A relation member of an analyser answer.
fileprivate func graphCLIRelation(_ fromType: String, _ from: String, _ type: String, _ toType: String, _ to: String, _ strength: Double) -> String {
    #"{"from": {"type": "\#(fromType)", "name": "\#(from)"}, "to": {"type": "\#(toType)", "name": "\#(to)"}, "type": "\#(type)", "strength": \#(strength)}"#
}

@Suite struct GraphCommandTests {
    @Test func oneNodePerTypeAndNameWhateverTheCaseOrSpacing() throws {
        let jv = try GraphCLI()
        let first = try jv.ok(["add", "Lunch with Anna."]).printedID()
        let second = try jv.ok(["add", "Anna called."]).printedID()
        try jv.analyse(first, answer: #"{"sentiment": "glad", "nodes": [{"type": "person", "name": "Anna"}]}"#)
        try jv.analyse(second, answer: #"{"sentiment": "glad", "nodes": [{"type": "Person", "name": "anna"}, {"type": "PERSON", "name": " ANNA "}]}"#)
        let people = try jv.nodes(["--type", "person"])
        #expect(people.count == 1)
        #expect(people.first?["name"] == .string("Anna"), "the name as first written")
        #expect(people.first?["type"] == .string("person"))
        #expect(try jv.counts()["nodes"] == .integer(1))
        #expect(try jv.counts()["analyses"] == .integer(2))
    }

    @Test func graphListFiltersByTypeAndHasTheDocumentedShape() throws {
        let jv = try GraphCLI()
        let entry = try jv.ok(["add", "Anna and Ben in Lisbon; joy."]).printedID()
        try jv.analyse(entry, answer: #"""
            {"themes": ["trip"], "nodes": [{"type": "person", "name": "Anna"}, {"type": "person", "name": "Ben"},
             {"type": "place", "name": "Lisbon"}, {"type": "emotion", "name": "joy"}]}
            """#)
        let all = try jv.nodes()
        #expect(all.count == 4)
        for node in all {
            #expect(graphCLIKeys(node) == ["id", "type", "name", "created_at"])
            #expect(UUID(uuidString: node["id"]?.stringValue ?? "") != nil)
        }
        #expect(Set(try jv.nodes(["--type", "person"]).compactMap { $0["name"]?.stringValue }) == ["Anna", "Ben"])
        #expect(try jv.nodes(["--type", "PLACE"]).compactMap { $0["name"]?.stringValue } == ["Lisbon"])
        #expect(try jv.nodes(["--type", "emotion"]).compactMap { $0["name"]?.stringValue } == ["joy"])
        #expect(try jv.nodes(["--type", "event"]).isEmpty)

        let text = try jv.ok(["graph", "list", "--type", "person"]).stdout
        #expect(text.contains("Anna"))
        #expect(text.contains("Ben"))
        #expect(!text.contains("Lisbon"))
    }

    @Test func graphShowFindsANodeByIDPrefixOrNameAndShowsRelationsBothWays() throws {
        let jv = try GraphCLI()
        let entry = try jv.ok(["add", "I visited Anna; she lives in Lisbon."]).printedID()
        try jv.analyse(entry, answer: #"{"sentiment": "warm", "relations": ["#
                       + graphCLIRelation("person", "me", "visited", "person", "Anna", 0.7) + ", "
                       + graphCLIRelation("person", "Anna", "lives in", "place", "Lisbon", 1) + "]}")
        let byName = try jv.node("anna")
        #expect(graphCLIKeys(byName) == ["id", "type", "name", "created_at", "relations"])
        let annaID = try #require(byName["id"]?.stringValue)
        #expect(try jv.node("  ANNA ") == byName)
        #expect(try jv.node(annaID) == byName)
        #expect(try jv.node(String(annaID.prefix(8))) == byName)
        #expect(byName["name"] == .string("Anna"))

        let me = try #require(try jv.node("me")["id"]?.stringValue)
        let lisbon = try #require(try jv.node("LISBON")["id"]?.stringValue)
        let relations = try #require(byName["relations"]?.arrayValue)
        #expect(relations.count == 2)
        for relation in relations {
            #expect(graphCLIKeys(relation) == ["id", "from", "to", "type", "strength", "entry_id"])
            #expect(relation["entry_id"] == .string(entry))
        }
        let incoming = try #require(relations.first { $0["to"] == .string(annaID) })
        let outgoing = try #require(relations.first { $0["from"] == .string(annaID) })
        #expect(incoming["from"] == .string(me))
        #expect(incoming["type"] == .string("visited"))
        #expect(incoming["strength"]?.doubleValue == 0.7)
        #expect(outgoing["to"] == .string(lisbon))
        #expect(outgoing["type"] == .string("lives in"))
        #expect(outgoing["strength"]?.doubleValue == 1)
        #expect(try jv.node("lisbon")["relations"]?.arrayValue?.count == 1)

        let text = try jv.ok(["graph", "show", "Anna"]).stdout
        #expect(text.contains("Anna (person)"))
        #expect(text.contains("← visited ← me (person)"))
        #expect(text.contains("→ lives in → Lisbon (place)"))
    }

    @Test func unknownOrAmbiguousNodesAreRefused() throws {
        let jv = try GraphCLI()
        let entry = try jv.ok(["add", "Paris the friend, Paris the city."]).printedID()
        try jv.analyse(entry, answer: #"{"themes": [], "nodes": [{"type": "person", "name": "Paris"}, {"type": "place", "name": "Paris"}]}"#)
        try jv.fails(["graph", "show", "Nobody"], status: 66)
        try jv.fails(["graph", "show", "ffffffff-ffff-4fff-bfff-ffffffffffff"], status: 66)
        try jv.fails(["graph", "show", "paris"], status: 64)
        // Either one by its id still works.
        for node in try jv.nodes() {
            let id = try #require(node["id"]?.stringValue)
            #expect(try jv.node(id)["type"] == node["type"])
        }
    }

    @Test func deletingAnEntryDeletesTheRelationsLearntFromItButKeepsTheNodes() throws {
        let jv = try GraphCLI()
        let doomed = try jv.ok(["add", "Walked with Anna."]).printedID()
        let kept = try jv.ok(["add", "Called Anna."]).printedID()
        try jv.analyse(doomed, answer: #"{"sentiment": "calm", "relations": ["# + graphCLIRelation("person", "me", "walked with", "person", "Anna", 0.8) + "]}")
        try jv.analyse(kept, answer: #"{"sentiment": "busy", "relations": ["# + graphCLIRelation("person", "me", "called", "person", "anna", 0.4) + "]}")
        #expect(try jv.node("anna")["relations"]?.arrayValue?.count == 2)

        try jv.ok(["delete", doomed, "--yes"])
        let relations = try #require(try jv.node("anna")["relations"]?.arrayValue)
        #expect(relations.count == 1)
        #expect(relations.first?["type"] == .string("called"))
        #expect(relations.first?["entry_id"] == .string(kept))
        #expect(try jv.nodes().count == 2)
        let counts = try jv.counts()
        #expect(counts["relations"] == .integer(1))
        #expect(counts["analyses"] == .integer(1))
        #expect(counts["nodes"] == .integer(2))
        #expect(try jv.ok(["check", "--json"]).json()["ok"] == .bool(true))
    }

    @Test func infoAndCheckCountTheGraph() throws {
        let jv = try GraphCLI()
        let entry = try jv.ok(["add", "Counting."]).printedID()
        try jv.analyse(entry, answer: #"{"sentiment": "ok", "nodes": [{"type": "topic", "name": "work"}], "relations": ["#
                       + graphCLIRelation("person", "me", "likes", "topic", "Work", 0.5) + ", "
                       + graphCLIRelation("person", "me", "dislikes", "topic", "mondays", 0.2) + "]}")
        let counts = try jv.counts()
        #expect(counts["entries"] == .integer(1))
        #expect(counts["analyses"] == .integer(1))
        #expect(counts["nodes"] == .integer(3))
        #expect(counts["relations"] == .integer(2))
        #expect(counts["threads"] == .integer(0))
        #expect(counts["messages"] == .integer(0))
        let check = try jv.ok(["check", "--json"]).json()
        #expect(check["ok"] == .bool(true))
        #expect(check["checked"]?["knowledge_node"] == .integer(3))
        #expect(check["checked"]?["analysis"] == .integer(1))
        let text = try jv.ok(["info"]).stdout
        #expect(text.contains("nodes"))
        #expect(text.contains("relations"))
    }

    @Test func theGraphCommandsNeedThePassphrase() throws {
        let jv = try GraphCLI()
        let wrong = try jv.write("wrong", "not the passphrase\n")
        try jv.fails(["graph", "list", "--passphrase-file", wrong], status: 77)
        try jv.fails(["graph", "show", "anna", "--passphrase-file", wrong], status: 77)
    }
}
