// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// jv(1) and jv-config(5) are written by hand, so they are checked against what `jv` itself
/// says (its command tree, options and exit codes from `--experimental-dump-help`, its config
/// keys from its own refusal of an unknown one) and against the variables its sources read:
/// a command, option, exit code, variable or key added without its line in the page fails here.
@Suite("Manual pages", .tags(.e2e))
struct ManualPageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func page(_ name: String) throws -> ManualPage {
        try ManualPage(String(contentsOf: repository.appendingPathComponent("man/" + name), encoding: .utf8))
    }

    /// `jv --experimental-dump-help`: argument-parser's description of every command.
    static func commandTree() throws -> CommandInfo {
        let result = try Sandbox().run(["--experimental-dump-help"])
        try Sandbox.requireSuccess(result)
        return try JSONDecoder().decode(ToolInfo.self, from: result.stdout).command
    }

    @Test("COMMANDS lists every command a user sees, and no hidden one")
    func commands() throws {
        // The command is the bold part of an item's tag (`.BI "jv sync init " location`).
        let listed = try Self.page("jv.1").items(in: "COMMANDS").map { tag in
            let words = tag.bold.split(separator: " ").map(String.init)
            #expect(words.first == "jv", "a COMMANDS item that is not a jv command line: \(tag.text)")
            return words.dropFirst().joined(separator: " ")
        }
        let commands = try Self.commandTree().visibleCommands(under: [])
        #expect(Set(listed).count == listed.count, "a command listed twice: \(listed)")
        #expect(Set(listed) == Set(commands.map { $0.path.joined(separator: " ") }),
                "missing from the page: \(Set(commands.map { $0.path.joined(separator: " ") }).subtracting(listed).sorted()); not a visible command: \(Set(listed).subtracting(commands.map { $0.path.joined(separator: " ") }).sorted())")
    }

    @Test("GLOBAL OPTIONS lists exactly the options every command takes")
    func globalOptions() throws {
        let listed = try Self.page("jv.1").items(in: "GLOBAL OPTIONS").flatMap { tag in
            tag.text.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }.filter { $0.hasPrefix("-") }
        }
        // argument-parser's own `jv help` takes none of jv's options.
        let commands = try Self.commandTree().visibleCommands(under: []).filter { $0.path != ["help"] }
        let shared = commands.map { Set($0.info.optionNames) }.reduce(commands.first.map { Set($0.info.optionNames) } ?? []) { $0.intersection($1) }
        #expect(shared.contains("--vault"), "the options every command shares should include --vault: \(shared.sorted())")
        #expect(Set(listed) == shared, "missing from the page: \(shared.subtracting(listed).sorted()); not global: \(Set(listed).subtracting(shared).sorted())")
    }

    @Test("EXIT STATUS gives every exit code jv uses, and no other")
    func exitStatus() throws {
        let listed = try Self.page("jv.1").items(in: "EXIT STATUS").map { tag in
            try #require(Int32(tag.text), "an EXIT STATUS item that is not a number: \(tag.text)")
        }
        // The list jv's --help prints (Failure.swift's ExitStatus), and any code written as a number in the sources.
        let discussion = try Self.commandTree().discussion ?? ""
        let summary = try #require(discussion.split(separator: "\n").first { $0.hasPrefix("Exit codes: ") }, "jv --help has no 'Exit codes:' line")
        var used = Set(summary.matches(of: /(\d+)/).compactMap { Int32($0.output.1) })
        for source in try Self.commandLineFolders.flatMap(Self.sources(in:)) {
            used.formUnion(source.matches(of: /\b(?:exit|ExitCode)\(\s*(\d+)\s*\)/).compactMap { Int32($0.output.1) })
        }
        // A listing cut short by a closed pipe ends as SIGPIPE would end it (OutputClosed).
        used.insert(128 + SIGPIPE)
        #expect(used.isSuperset(of: [0, 1, 64]), "the exit codes read from jv are implausible: \(used.sorted())")
        #expect(Set(listed) == used, "missing from the page: \(used.subtracting(listed).sorted()); not used by jv: \(Set(listed).subtracting(used).sorted())")
    }

    @Test("ENVIRONMENT names every variable the sources read")
    func environment() throws {
        let listed = Set(try Self.page("jv.1").items(in: "ENVIRONMENT").map(\.text))
        var read: Set<String> = []
        for folder in Self.commandLineFolders + ["Sources/JournalVault", "Sources/VaultCrypto", "Sources/CProcessHygiene"] {
            for source in try Self.sources(in: folder) {
                // environment["NAME"], getenv("NAME"), variables set for a child when missing (`setting: ["LESS": …]`),
                // and jv's own JV_… names however they are read (Credentials reads them through a helper).
                for match in source.matches(of: /(?:environment\[|getenv\(|setting: \[)"([A-Z][A-Z0-9_]*)"/) { read.insert(String(match.output.1)) }
                if Self.commandLineFolders.contains(folder) {
                    for match in source.matches(of: /"(JV_[A-Z0-9_]+)"/) { read.insert(String(match.output.1)) }
                }
            }
        }
        // Read for jv rather than by it: the C library and Foundation read TZ; rclone, run by jv sync, its own.
        let readForJV: Set<String> = ["TZ", "RCLONE_CONFIG_PASS", "RCLONE_PASSWORD_COMMAND"]
        #expect(read.isSuperset(of: ["JV_VAULT", "EDITOR", "XDG_CONFIG_HOME"]), "the variables found in the sources are implausible: \(read.sorted())")
        #expect(listed == read.union(readForJV),
                "missing from the page: \(read.union(readForJV).subtracting(listed).sorted()); read nowhere: \(listed.subtracting(read.union(readForJV)).sorted())")
    }

    @Test("jv-config(5) describes every key of the config file, and no other")
    func configKeys() throws {
        let sandbox = try Sandbox()
        try sandbox.folder.write("home/.config/jv/config.toml", "zzzzzz = 1\n")
        let refusal = try sandbox.run(["info"])
        #expect(refusal.status == 64, "\(refusal)")
        // "…: unknown key; jv reads vault, kdf, … and tables [journals], [attachments] and [sync]."
        let reads = try #require(refusal.err.firstMatch(of: /jv reads (.+) and tables ((?:\[\w+\](?:, | and )?)+)\./), "\(refusal)")
        let keys = Set(reads.output.1.split(separator: ", ").map(String.init))
        let listed = try Self.page("jv-config.5").items(in: "SETTINGS").map { $0.text.split(separator: " ").first.map(String.init) ?? "" }
        #expect(keys.count >= 5, "the keys read from jv's message are implausible: \(keys.sorted())")
        let tables = reads.output.2.matches(of: /\[\w+\]/).map { String($0.output) }
        #expect(tables.count >= 2, "the tables read from jv's message are implausible: \(tables)")
        #expect(Set(listed) == keys.union(tables),
                "missing from jv-config(5): \(keys.subtracting(listed).sorted()); not a key: \(Set(listed).subtracting(keys).sorted())")
    }

    @Test("Both pages carry jv's version")
    func version() throws {
        let version = try Sandbox().run(["--version"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        for name in ["jv.1", "jv-config.5"] {
            #expect(try Self.page(name).header.contains("\"jv \(version)\""), "\(name)'s .TH does not name jv \(version)")
        }
    }

    @Test("Both pages render without a groff warning", .tags(.externalTools))
    func rendering() throws {
        let groff = try #require(JV.tool("groff"), "groff is not installed (the Makefile's TEST_APT_PACKAGES lists it)")
        let sandbox = try Sandbox()
        for name in ["jv.1", "jv-config.5"] {
            let path = Self.repository.appendingPathComponent("man/" + name).path
            let result = try sandbox.runTool(groff, ["-man", "-ww", "-z", "-t", path])
            #expect(result.status == 0 && result.err.isEmpty, "\(name): \(result)")
            // groff 1.22 says nothing of an empty line, but lintian and newer groffs do: .PP spaces paragraphs.
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let empty = lines.firstIndex(of: "").map { $0 + 1 }
            #expect(empty == nil, "\(name) has an empty line")
        }
    }

    /// jv's command line: its thin main and the library that holds its commands.
    static let commandLineFolders = ["Sources/jv", "Sources/JVCommandLine"]

    /// The text of every Swift and C file under `folder` of the repository.
    static func sources(in folder: String) throws -> [String] {
        let root = repository.appendingPathComponent(folder).path
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") || $0.hasSuffix(".c") }
        return try files.map { try String(contentsOfFile: root + "/" + $0, encoding: .utf8) }
    }
}

/// A man(7) page, read as far as these tests need: its `.TH` line and the tags of the `.TP`
/// (and `.TQ`) items of each `.SH` section.
struct ManualPage {
    /// An item's tag: a macro line such as `.BI "jv show " id`, or plain text.
    struct Tag {
        let macro: String
        let arguments: [String]

        /// As it reads: alternating-font macros (`.BR`, `.BI`, …) join their arguments without spaces.
        var text: String {
            ManualPage.resolved(arguments.joined(separator: [".BR", ".BI", ".IB", ".IR", ".RB", ".RI"].contains(macro) ? "" : " "))
        }

        /// Its words in bold: `.B`'s arguments; the first, third, … of `.BR` and `.BI`.
        var bold: String {
            switch macro {
            case ".B": ManualPage.resolved(arguments.joined(separator: " "))
            case ".BR", ".BI": ManualPage.resolved(arguments.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element).joined())
            default: ""
            }
        }

        init(_ line: String) {
            guard line.hasPrefix(".") else {
                macro = ""
                arguments = [line]
                return
            }
            macro = String(line.prefix { $0 != " " })
            var arguments: [String] = []
            var rest = line.drop { $0 != " " }
            while let start = rest.firstIndex(where: { $0 != " " }) {
                rest = rest[start...]
                let quoted = rest.hasPrefix("\"")
                if quoted { rest = rest.dropFirst() }
                let end = rest.firstIndex(of: quoted ? "\"" : " ") ?? rest.endIndex
                arguments.append(String(rest[..<end]))
                rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
            }
            self.arguments = arguments
        }
    }

    let header: String
    private let sections: [String: [Tag]]

    init(_ text: String) {
        var header = ""
        var sections: [String: [Tag]] = [:]
        var section = ""
        var nextIsTag = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".TH ") { header = line }
            if line.hasPrefix(".SH ") {
                section = Tag(line).text
                nextIsTag = false
            } else if line == ".TP" || line == ".TQ" {
                nextIsTag = true
            } else if nextIsTag {
                sections[section, default: []].append(Tag(line))
                nextIsTag = false
            }
        }
        self.header = header
        self.sections = sections
    }

    func items(in section: String) throws -> [Tag] {
        try #require(sections[section], "the page has no items in a section \(section)")
    }

    /// `text` with font changes dropped and the escapes the pages use resolved.
    static func resolved(_ text: String) -> String {
        var text = text
        text.replace(/\\f[BIRP]/, with: "")
        for (escape, character) in [("\\-", "-"), ("\\(dq", "\""), ("\\(aq", "'"), ("\\&", ""), ("\\e", "\\")] {
            text = text.replacingOccurrences(of: escape, with: character)
        }
        return text
    }
}

/// The part of argument-parser's `--experimental-dump-help` JSON these tests read.
struct ToolInfo: Decodable {
    let command: CommandInfo
}

struct CommandInfo: Decodable {
    struct Argument: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }

        let kind: String
        let names: [Name]?
        let shouldDisplay: Bool?
    }

    let commandName: String
    let discussion: String?
    let shouldDisplay: Bool?
    let subcommands: [CommandInfo]?
    let arguments: [Argument]?

    /// The commands a user sees under this one (a group's own name is not one: its subcommands are), with their paths.
    func visibleCommands(under path: [String]) -> [(path: [String], info: CommandInfo)] {
        (subcommands ?? []).filter { $0.shouldDisplay != false }.flatMap { command in
            let commandPath = path + [command.commandName]
            let below = command.visibleCommands(under: commandPath)
            return below.isEmpty ? [(commandPath, command)] : below
        }
    }

    /// `--vault`, `-j`, … of the options and flags it shows.
    var optionNames: [String] {
        (arguments ?? []).filter { $0.kind != "positional" && $0.shouldDisplay != false }.flatMap { argument in
            (argument.names ?? []).map { ($0.kind == "long" ? "--" : "-") + $0.name }
        }
    }
}
