// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// The jv runner shared by the chat, analysis, analyze and graph command tests: a fresh vault in
// a temporary folder, a passphrase file, no terminal, standard input from /dev/null unless given.

struct CLIResult {
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
final class VaultCLI: @unchecked Sendable {
    static let passphrase = "cli test passphrase"
    let folder: URL
    let vaultPath: String
    let passphraseFile: String

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["JV_BINARY"], !path.isEmpty { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
    }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("jv-cli-\(UUID().uuidString)")
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
    /// `environmentChanges` sets (or, with nil, removes) variables after the defaults.
    func run(_ arguments: [String], stdin: String? = nil, environmentChanges: [String: String?] = [:],
             sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIResult {
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
        for (key, value) in environmentChanges { environment[key] = value }

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
        return CLIResult(arguments: arguments, status: process.terminationStatus,
                             stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self),
                             stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }

    /// Runs jv and expects exit status 0.
    @discardableResult
    func ok(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIResult {
        let result = try run(arguments, stdin: stdin, sourceLocation: sourceLocation)
        try #require(result.status == 0, "\(result.summary)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs jv and expects `status`, one sentence on standard error and nothing on standard output.
    @discardableResult
    func fails(_ arguments: [String], status: Int32, stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIResult {
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

/// The member names of a JSON object, in order (empty for anything else).
func jsonKeys(_ value: JSONValue?) -> [String] {
    guard case .object(let members)? = value else { return [] }
    return members.map(\.0)
}
