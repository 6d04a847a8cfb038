// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// README's exit codes, as far as the implemented commands go, and the shape of error output.
@Suite("Exit codes and error messages", .tags(.e2e))
struct ExitCodeTests {
    /// One way of calling `jv` on a vault holding one entry ("the entry"), and the exit code it must give.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        var stdin: String? = nil
        var env: [String: String?] = [:]
        var tamper: Bool = false
        /// SQL run on the vault file before the command (a damaged vault).
        var damage: String? = nil
        let expected: Int32
        /// Words the error sentence must hold (the message names what is wrong).
        var saying: String? = nil
        var testDescription: String { "\(name) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(name: "info", arguments: ["info"], expected: 0),
        Case(name: "list", arguments: ["list"], expected: 0),
        Case(name: "--help", arguments: ["--help"], expected: 0),
        Case(name: "--version", arguments: ["--version"], expected: 0),
        Case(name: "unknown option", arguments: ["list", "--bogus"], expected: 64),
        // A word far from every command is jrnl's way to write an entry (JrnlHabitTests); one close to a command is not.
        Case(name: "unknown command", arguments: ["delte"], expected: 64),
        Case(name: "missing argument", arguments: ["show"], expected: 64),
        Case(name: "option without its value", arguments: ["list", "--from"], expected: 64),
        Case(name: "unknown KDF profile", arguments: ["init", "--kdf", "extreme"], expected: 64),
        Case(name: "unknown date", arguments: ["list", "--on", "the ides of march"], expected: 64),
        Case(name: "short id prefix", arguments: ["show", "abc"], expected: 64),
        Case(name: "no passphrase source", arguments: ["list"], env: ["JV_PASSPHRASE_FILE": nil], expected: 64),
        Case(name: "blank text", arguments: ["add"], stdin: " \n", expected: 65),
        Case(name: "too long text", arguments: ["add"], stdin: String(repeating: "x", count: 50_001), expected: 65),
        Case(name: "tampered record", arguments: ["show", "{id}"], tamper: true, expected: 65),
        Case(name: "unknown id", arguments: ["show", "00000000-0000-4000-8000-000000000000"], expected: 66),
        Case(name: "missing vault", arguments: ["list", "--vault", "/nonexistent/jv/journal.vault"], expected: 66),
        Case(name: "missing passphrase file", arguments: ["list"], env: ["JV_PASSPHRASE_FILE": "/nonexistent/pass"], expected: 66),
        Case(name: "existing vault", arguments: ["init", "--kdf", "interactive"], expected: 73),
        Case(name: "wrong passphrase", arguments: ["list"], env: ["JV_PASSPHRASE": "wrong", "JV_PASSPHRASE_FILE": nil], expected: 77),
        Case(name: "missing backup file", arguments: ["verify-backup", "/nonexistent/jv/journal.jvbak"], expected: 66,
             saying: "No backup file at /nonexistent/jv/journal.jvbak"),
        Case(name: "empty passphrase file", arguments: ["list"], env: ["JV_PASSPHRASE_FILE": "/dev/null"], expected: 64, saying: "is empty"),
        Case(name: "--vault naming a folder", arguments: ["list", "--vault", "/"], expected: 65, saying: "is a folder"),
        Case(name: "deleted passphrase keyslot", arguments: ["list"], damage: "DELETE FROM keyslot WHERE kind = 'passphrase'",
             expected: 65, saying: "key data is damaged"),
        Case(name: "a mistyped command", arguments: ["lst"], expected: 64, saying: "No command 'lst'; did you mean 'list'?"),
        Case(name: "help for no command", arguments: ["help", "nonexist"], expected: 64, saying: "No command 'nonexist'"),
        Case(name: "two letters swapped", arguments: ["lsit"], expected: 64, saying: "No command 'lsit'; did you mean 'list'?"),
        Case(name: "version as a command", arguments: ["version"], expected: 64, saying: "No command 'version'; did you mean 'jv --version'?"),
        Case(name: "an option of another command", arguments: ["export", "--on", "today"], expected: 64,
             saying: "Unknown option '--on'; 'jv export --help' lists the options."),
        Case(name: "an option's beginning", arguments: ["export", "--out", "/tmp/x.json"], expected: 64,
             saying: "Unknown option '--out'; did you mean '--output'? ('jv export --help' lists the options.)"),
        Case(name: "an option's two letters swapped", arguments: ["list", "--josn"], expected: 64,
             saying: "Unknown option '--josn'; did you mean '--json'? ('jv list --help' lists the options.)"),
        Case(name: "a negative count", arguments: ["list", "-n", "-3"], expected: 64, saying: "-n takes a positive number, not -3."),
        Case(name: "graph show of no such name", arguments: ["graph", "show", "anna"], expected: 66,
             saying: "No node named 'anna' or with an id starting 'anna'; 'jv graph list' shows the nodes."),
        Case(name: "a malformed age recipient", arguments: ["export", "--age-recipient", "age1bogus"], expected: 64,
             saying: "--age-recipient: 'age1bogus' is not an age X25519 recipient"),
        Case(name: "a mistyped command of a group", arguments: ["graph", "shw"], expected: 64,
             saying: "No command 'shw' in 'jv graph'; did you mean 'show'? ('jv graph --help' lists them.)"),
        Case(name: "a value not among the choices", arguments: ["init", "--kdf", "extreme"], expected: 64,
             saying: "'--kdf <kdf>'; please provide one of 'interactive', 'moderate' or 'sensitive'; see 'jv init --help'."),
        Case(name: "a missing argument, in jv's style", arguments: ["show"], expected: 64, saying: "see 'jv show --help'."),
        Case(name: "a reversed date range", arguments: ["list", "--from", "2026-03-01", "--to", "2026-02-01"], expected: 64,
             saying: "--from 2026-03-01 is after --to 2026-02-01"),
        Case(name: "backup onto an existing file", arguments: ["backup", "/dev/null"], expected: 73, saying: "add --force to replace it"),
        Case(name: "changed vault id", arguments: ["list"], damage: "UPDATE vault_header SET vault_id = randomblob(16)",
             expected: 65, saying: "key data is damaged"),
        // The input is checked before the passphrase is asked for: without a terminal to ask on,
        // the real problem is said, not "No passphrase".
        Case(name: "restore of a missing backup, no passphrase source", arguments: ["restore", "/nonexist.jvbak", "--to", "/tmp/nonexist/r.vault"],
             env: ["JV_PASSPHRASE_FILE": nil], expected: 66, saying: "No backup file at /nonexist.jvbak"),
        Case(name: "verify-backup of a file that is no backup, no passphrase source", arguments: ["verify-backup", "/etc/passwd"],
             env: ["JV_PASSPHRASE_FILE": nil], expected: 65, saying: "not a jv backup file"),
        Case(name: "sync clone from a missing folder, no passphrase source", arguments: ["sync", "clone", "/nonexistent", "--to", "/tmp/nonexist/c.vault"],
             env: ["JV_PASSPHRASE_FILE": nil], expected: 1, saying: "/nonexistent is not there"),
        // A file to create in a folder that is not there: the folder is named, not a temporary file.
        Case(name: "backup into a missing folder", arguments: ["backup", "/nonexistent-dir/x.jvbak"], env: ["JV_PASSPHRASE_FILE": nil],
             expected: 73, saying: "Cannot create /nonexistent-dir/x.jvbak: the folder /nonexistent-dir does not exist."),
        Case(name: "export --output into a missing folder", arguments: ["export", "--output", "/nonexistent-dir/x.json"],
             expected: 73, saying: "Cannot create /nonexistent-dir/x.json: the folder /nonexistent-dir does not exist."),
    ]

    private static let oneEntry = Result { try Fixture { sandbox in ["id": try sandbox.add("the entry")] } }

    @Test("exit codes", arguments: cases)
    func exitCode(_ testCase: Case) throws {
        let fixture = try Self.oneEntry.get()
        let sandbox = try Sandbox(from: fixture)
        let id = fixture["id"]
        if testCase.tamper {
            try #require(JV.tool("sqlite3") != nil, "sqlite3 is needed to tamper with the vault")
            try sandbox.sqlite("UPDATE entry SET created_at = created_at + 1 WHERE id = '\(id)'")
        }
        if let damage = testCase.damage {
            try #require(JV.tool("sqlite3") != nil, "sqlite3 is needed to damage the vault")
            try sandbox.sqlite(damage)
        }
        let arguments = testCase.arguments.map { $0 == "{id}" ? id : $0 }
        let result = try sandbox.run(arguments, stdin: testCase.stdin.map { Data($0.utf8) }, env: testCase.env)
        #expect(result.status == testCase.expected, "\(result)")
        #expect(result.signal == nil)
        if testCase.expected != 0 {
            // One clear sentence on standard error, never a stack trace or a crash report.
            #expect(!result.errorLines.isEmpty, "\(result)")
            for marker in ["Fatal error", "Stack dump", "Current stack trace", "fatalError", "Swift runtime failure"] {
                #expect(!result.err.contains(marker), "\(result)")
            }
            let first = result.errorLines.first ?? ""
            // jv's own style for every refusal, argument-parser's included: one line, "jv: …".
            #expect(first.hasPrefix("jv: "), "\(result)")
            #expect(result.errorLines.count == 1, "exactly one sentence: \(result)")
            if let saying = testCase.saying { #expect(first.contains(saying), "\(result)") }
        }
        // A failing command wrote nothing.
        if testCase.expected != 0 && !testCase.tamper && testCase.damage == nil {
            #expect(try sandbox.list().contents == ["the entry"])
        }
    }
}

extension ExitCodeTests {
    @Test("a file that is not a vault (empty, text, random bytes) exits 65 for reading and writing commands, and is left as it was",
          arguments: [("empty", Data()), ("text", Data("Dear diary, not a database.\n".utf8)),
                      ("random", Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))])
    func notAVaultFile(label: String, contents: Data) throws {
        let sandbox = try Sandbox()
        let path = try sandbox.folder.write("other/\(label).vault", contents)
        for arguments in [["list"], ["info"], ["add", "an entry"], ["check"]] {
            let result = try sandbox.run(arguments + ["--vault", path])
            #expect(result.status == 65, "\(label): \(result)")
            #expect(result.errorLines.count == 1, "\(label): \(result)")
            #expect(result.err.contains(contents.isEmpty ? "the file is empty" : "not an SQLite database"), "\(label): \(result)")
            #expect(FileManager.default.contents(atPath: path) == contents, "\(label): \(arguments)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.folder.file("other")) == ["\(label).vault"], "\(label): \(arguments)")
        }
    }
}

@Suite("Global options and colour", .tags(.e2e))
struct GlobalOptionTests {
    @Test("global options before the command work like after it")
    func globalOptionsFirst() throws {
        let sandbox = try Sandbox()
        let elsewhere = sandbox.folder.file("elsewhere/j.vault")
        let env: [String: String?] = ["JV_VAULT": nil, "JV_PASSPHRASE_FILE": nil, "XDG_DATA_HOME": sandbox.folder.file("xdg")]
        let created = try sandbox.run(["--vault", elsewhere, "--passphrase-file", sandbox.passphraseFile, "init", "--kdf", "interactive"], env: env)
        #expect(created.status == 0, "\(created)")
        let added = try sandbox.run(["--vault", elsewhere, "--json", "--passphrase-file", sandbox.passphraseFile, "add", "--star", "hello", "there"], env: env)
        #expect(added.status == 0, "\(added)")
        let id = try #require(try added.object()["id"] as? String)

        let before = try sandbox.run(["--vault", elsewhere, "--json", "--passphrase-file", sandbox.passphraseFile, "list"], env: env)
        let after = try sandbox.run(["list", "--vault", elsewhere, "--json", "--passphrase-file", sandbox.passphraseFile], env: env)
        let equals = try sandbox.run(["--vault=\(elsewhere)", "--json", "--passphrase-file=\(sandbox.passphraseFile)", "list"], env: env)
        #expect(before.status == 0, "\(before)")
        #expect(after.status == 0, "\(after)")
        #expect(before.out == after.out)
        #expect(equals.out == after.out, "\(equals)")
        #expect(try before.array().ids == [id])
        #expect(try before.array().contents == ["hello there"])

        let shown = try sandbox.run(["--json", "--vault", elsewhere, "--passphrase-file", sandbox.passphraseFile, "show", id], env: env)
        #expect(try shown.object()["id"] as? String == id, "\(shown)")
        let info = try sandbox.run(["--vault", elsewhere, "--json", "info"], env: env)
        #expect(try info.object()["path"] as? String == elsewhere, "\(info)")
        let calendar = try sandbox.run(["--no-color", "--vault", elsewhere, "calendar", "--json", "2026"], env: env)
        #expect(calendar.status == 0, "\(calendar)")
    }

    /// Every reading command's output, with the given colour setting.
    private func outputs(_ sandbox: Sandbox, _ extra: [String], env: [String: String?]) throws -> [JVResult] {
        try [["list"], ["show", sandbox.list().ids[0]], ["search", "cafe"], ["info"], ["calendar", "2026-01"], ["calendar", "2026"], ["check"],
             ["list", "--format", "markdown"]].map { try sandbox.run($0 + extra, env: env) }
    }

    @Test("NO_COLOR and --no-color: no escape sequences in any output")
    func noColor() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Café with a ★ star", ["--star", "--at", "2026-01-02"])
        for (extra, env) in [([], ["NO_COLOR": "1"]), (["--no-color"], [:]), ([], [:] as [String: String?])] {
            for result in try outputs(sandbox, extra, env: env) {
                #expect(result.status == 0, "\(result)")
                #expect(!result.out.contains("\u{1B}") && !result.err.contains("\u{1B}"), "\(result)")
            }
        }
    }

    @Test("on a terminal colours appear, and NO_COLOR / --no-color remove them",
          .enabled(if: JV.tool("script") != nil, "needs script(1) to give jv a terminal"))
    func noColorOnTerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Starred entry", ["--star"])
        let script = try #require(JV.tool("script"))
        func onTerminal(_ command: String, _ env: [String: String?] = [:]) throws -> JVResult {
            try sandbox.runTool(script, ["-qec", "'\(sandbox.binary)' \(command)", "/dev/null"],
                                env: env.merging(["TERM": "xterm-256color", "SHELL": "/bin/sh"]) { $1 })
        }
        let colored = try onTerminal("list")
        #expect(colored.status == 0, "\(colored)")
        #expect(colored.out.contains("\u{1B}["), "control: jv colours its output on a terminal: \(colored)")
        for (command, env) in [("list", ["NO_COLOR": "1"]), ("list --no-color", [:]), ("--no-color list", [:] as [String: String?])] {
            let plain = try onTerminal(command, env)
            #expect(plain.status == 0, "\(plain)")
            #expect(plain.out.contains("Starred entry"), "\(plain)")
            #expect(!plain.out.contains("\u{1B}"), "\(command) \(env): \(plain)")
        }
    }
}
