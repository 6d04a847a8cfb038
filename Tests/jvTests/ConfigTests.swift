// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The config file `$XDG_CONFIG_HOME/jv/config.toml`: each setting has its effect,
/// the command line and the environment beat it, `--journal NAME` picks a vault by name, and
/// a file jv cannot read exactly says where and why.
@Suite("config file", .tags(.e2e))
struct ConfigTests {
    /// A sandbox whose `$XDG_CONFIG_HOME` holds `config` as jv/config.toml.
    private func sandbox(config: String) throws -> Sandbox {
        try sandbox(configBytes: Data(config.utf8))
    }

    private func sandbox(configBytes: Data) throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.folder.write("config/jv/config.toml", configBytes)
        sandbox.environment["XDG_CONFIG_HOME"] = sandbox.folder.file("config")
        return sandbox
    }

    private func configFile(_ sandbox: Sandbox) -> String { sandbox.folder.file("config/jv/config.toml") }

    /// The vault `jv info` opens (it needs no passphrase).
    private func vaultInfoPath(_ sandbox: Sandbox, _ arguments: [String] = [], env: [String: String?] = [:]) throws -> String? {
        let result = try sandbox.run(arguments + ["info", "--json"], env: env)
        try Sandbox.requireSuccess(result)
        return try result.object()["path"] as? String
    }

    // MARK: Each setting

    @Test("vault: used without --vault and $JV_VAULT; ~ is the home folder; read from ~/.config when $XDG_CONFIG_HOME is unset")
    func vaultSetting() throws {
        let sandbox = try sandbox(config: "vault = '~/journals/mine.vault'\n")
        let expected = sandbox.home + "/journals/mine.vault"
        try sandbox.install(Fixture.empty(), at: expected)
        #expect(try vaultInfoPath(sandbox, env: ["JV_VAULT": nil]) == expected)

        let plain = try Sandbox()
        try plain.folder.write("home/.config/jv/config.toml", "vault = '~/other.vault'\n")
        try plain.install(Fixture.empty(), at: plain.home + "/other.vault")
        for unset in [nil, ""] as [String?] {
            #expect(try vaultInfoPath(plain, env: ["JV_VAULT": nil, "XDG_CONFIG_HOME": unset]) == plain.home + "/other.vault")
        }
    }

    @Test("kdf: the profile jv init uses without --kdf; --kdf beats it")
    func kdfSetting() throws {
        let sandbox = try sandbox(config: "kdf = \"interactive\"\n")
        try Sandbox.requireSuccess(try sandbox.run(["init", "--json"]))
        let kdf = try #require(try sandbox.run(["info", "--json"]).object()["kdf"] as? [String: Any])
        #expect(kdf["profile"] as? String == "interactive")

        let other = sandbox.folder.file("other.vault")
        try Sandbox.requireSuccess(try sandbox.run(["init", "--json", "--kdf", "moderate", "--vault", other]))
        let chosen = try #require(try sandbox.run(["info", "--json", "--vault", other]).object()["kdf"] as? [String: Any])
        #expect(chosen["profile"] as? String == "moderate", "the command line beats the config file")
    }

    @Test("editor: jv add opens it when $VISUAL and $EDITOR are unset; $EDITOR beats it",
          .enabled(if: JV.tool("script") != nil, "needs script(1) to give jv a terminal"))
    func editorSetting() throws {
        let base = try Sandbox()
        func editor(_ name: String, writing text: String) throws -> String {
            // Run through sh: a file just written may not be executable yet in a concurrent fork (ETXTBSY).
            "/bin/sh " + (try base.folder.write(name, "#!/bin/sh\nfor last in \"$@\"; do :; done\nprintf '%s\\n' '\(text)' > \"$last\"\n"))
        }
        let configured = try editor("configured.sh", writing: "From the configured editor")
        let fromEnvironment = try editor("environment.sh", writing: "From EDITOR")
        let sandbox = try sandbox(config: "editor = '\(configured)'\n")
        try sandbox.installEmptyVault()

        let added = try sandbox.onTerminal(["add"], env: ["EDITOR": nil, "VISUAL": nil])
        #expect(added.status == 0, "\(added)")
        #expect(try sandbox.list().contents == ["From the configured editor"])

        let overridden = try sandbox.onTerminal(["add"], env: ["EDITOR": fromEnvironment, "VISUAL": nil])
        #expect(overridden.status == 0, "\(overridden)")
        #expect(try sandbox.list().contents.last == "From EDITOR", "the environment beats the config file")
    }

    @Test("session: the length jv unlock uses without --for; --for beats it")
    func sessionSetting() throws {
        let sandbox = try sandbox(config: "session = \"2m\"\n")
        try sandbox.installEmptyVault()
        defer { _ = try? sandbox.run(["lock"]) }
        for (options, seconds) in [([], 120), (["--for", "5m"], 300)] {
            let result = try sandbox.run(["unlock", "--json"] + options)
            try Sandbox.requireSuccess(result)
            #expect(try result.object()["idle_timeout_seconds"] as? Int == seconds, "\(options)")
            try Sandbox.requireSuccess(try sandbox.run(["lock"]))
        }
    }

    @Test("color = false: no colours on a terminal, where jv colours by default",
          .enabled(if: JV.tool("script") != nil, "needs script(1) to give jv a terminal"))
    func colorSetting() throws {
        let sandbox = try sandbox(config: "color = false\n")
        try sandbox.installEmptyVault()
        try sandbox.add("Starred entry", ["--star"])
        let terminal: [String: String?] = ["TERM": "xterm-256color"]
        let colored = try sandbox.onTerminal(["list"], env: terminal.merging(["XDG_CONFIG_HOME": sandbox.folder.file("none")]) { $1 })
        #expect(colored.status == 0 && colored.out.contains("\u{1B}["), "control: without the file jv colours: \(colored)")
        let plain = try sandbox.onTerminal(["list"], env: terminal)
        #expect(plain.status == 0 && plain.out.contains("Starred entry"), "\(plain)")
        #expect(!plain.out.contains("\u{1B}"), "\(plain)")
    }

    @Test("limit: jv list shows the last N entries; -n and --all beat it")
    func limitSetting() throws {
        let sandbox = try sandbox(config: "limit = 2\n")
        try sandbox.installEmptyVault()
        let ids = try ["2026-01-01", "2026-01-02", "2026-01-03"].map { try sandbox.add("Entry of \($0)", ["--at", $0]) }
        #expect(try sandbox.list().ids == Array(ids.suffix(2)))
        #expect(try sandbox.list(["-n", "3"]).ids == ids, "-n beats the config file")
        #expect(try sandbox.list(["--all"]).ids == ids)
        let both = try sandbox.run(["list", "-n", "1", "--all"])
        #expect(both.status == 64, "\(both)")
    }

    @Test("time_format = \"12h\": list and show print times with AM/PM; JSON keeps ISO 8601")
    func timeFormatSetting() throws {
        let sandbox = try sandbox(config: "time_format = \"12h\"\n")
        try sandbox.installEmptyVault()
        let evening = try sandbox.add("Evening", ["--at", "2026-01-05 21:30"])
        try sandbox.add("Midnight", ["--at", "2026-01-06 00:15"])
        try sandbox.add("Noon", ["--at", "2026-01-06 12:05"])

        let short = try sandbox.run(["list", "--short"])
        try Sandbox.requireSuccess(short)
        #expect(short.lines.map { String($0.prefix(19)) } == ["2026-01-05 09:30 PM", "2026-01-06 12:15 AM", "2026-01-06 12:05 PM"], "\(short)")
        let shown = try sandbox.run(["show", evening])
        #expect(shown.out.hasPrefix("2026-01-05 09:30 PM"), "\(shown)")
        let fancy = try sandbox.run(["list", "--format", "fancy", "-n", "1"])
        #expect(fancy.out.contains("2026-01-06 12:05 PM"), "the fancy box's time follows time_format too: \(fancy)")
        #expect(try sandbox.show(evening)["created_at"] as? String == "2026-01-05T21:30:00.000+00:00")

        let standard = try sandbox.run(["list", "--short"], env: ["XDG_CONFIG_HOME": sandbox.folder.file("none")])
        #expect(standard.lines.map { String($0.prefix(16)) } == ["2026-01-05 21:30", "2026-01-06 00:15", "2026-01-06 12:05"], "\(standard)")
    }

    // MARK: Which vault

    @Test("the vault: --vault beats $JV_VAULT, which beats the config file; --journal beats $JV_VAULT")
    func vaultPrecedence() throws {
        let sandbox = try sandbox(config: """
            vault = '~/from-config.vault'
            [journals]
            work = '~/work.vault'
            """)
        let fromConfig = sandbox.home + "/from-config.vault", work = sandbox.home + "/work.vault"
        let fromOption = sandbox.folder.file("option.vault")
        for path in [fromConfig, work, fromOption, sandbox.vault] { try sandbox.install(Fixture.empty(), at: path) }

        #expect(try vaultInfoPath(sandbox, env: ["JV_VAULT": nil]) == fromConfig)
        #expect(try vaultInfoPath(sandbox) == sandbox.vault, "$JV_VAULT beats the config file")
        #expect(try vaultInfoPath(sandbox, ["--vault", fromOption]) == fromOption, "--vault beats $JV_VAULT")
        #expect(try vaultInfoPath(sandbox, ["--journal", "work"]) == work, "--journal beats $JV_VAULT")
    }

    @Test("--journal NAME (or -j, before or after the command) uses that vault of [journals]")
    func twoJournals() throws {
        let sandbox = try sandbox(config: "")
        try sandbox.folder.write("config/jv/config.toml", "[journals]\nwork = '~/work.vault'\nhome = '\(sandbox.folder.path)/home.vault'\n")
        try sandbox.install(Fixture.empty(), at: sandbox.home + "/work.vault")
        try sandbox.install(Fixture.empty(), at: sandbox.folder.file("home.vault"))
        sandbox.environment["JV_VAULT"] = nil

        try Sandbox.requireSuccess(try sandbox.run(["--journal", "work", "add", "Quarterly planning"]))
        try Sandbox.requireSuccess(try sandbox.run(["add", "-j", "home", "Garden", "--json"]))
        #expect(try sandbox.list(["--journal", "work"]).contents == ["Quarterly planning"])
        let home = try sandbox.run(["-j", "home", "list", "--json"])
        try Sandbox.requireSuccess(home)
        #expect(try home.array().contents == ["Garden"])
    }

    @Test("an unknown journal name, or none at all, is a usage error naming the known ones")
    func unknownJournal() throws {
        let sandbox = try sandbox(config: "[journals]\nwork = '/w.vault'\nhome = '/h.vault'\n")
        let unknown = try sandbox.run(["--journal", "travel", "list"])
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.errorLines == ["jv: No journal named 'travel' in \(configFile(sandbox)); its journals are home, work."])

        let none = try sandbox.run(["-j", "travel", "list"], env: ["XDG_CONFIG_HOME": sandbox.folder.file("none")])
        #expect(none.status == 64, "\(none)")
        #expect(none.errorLines.first?.contains("has no [journals] table") == true, "\(none)")
    }

    @Test("--journal and --vault together are a usage error")
    func journalWithVault() throws {
        let sandbox = try sandbox(config: "[journals]\nwork = '/w.vault'\n")
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["--journal", "work", "list", "--vault", sandbox.vault])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines == ["jv: --vault and --journal both choose the vault; give only one of them."])
    }

    // MARK: Reading the file

    @Test("every form the reader accepts: comments, CRLF, spaces, escapes in basic strings, literal strings, signed integers")
    func acceptedForms() throws {
        let literal = "/nonexistent/jv-config\\no-escape.vault"
        let sandbox = try sandbox(config: "# jv\r\n\r\n  \tvault = \"~/caf\\u00e9 \\\"q\\\"\\\\\\t.vault\"  # trailing\r\n"
                                  + "limit = +2\ncolor=false\n[ journals ]  # named vaults\nfar-away_1 = '\(literal)'\n")
        let expected = sandbox.home + "/café \"q\"\\\t.vault"
        try sandbox.install(Fixture.empty(), at: expected)
        #expect(try vaultInfoPath(sandbox, env: ["JV_VAULT": nil]) == expected)
        let journal = try sandbox.run(["-j", "far-away_1", "info"])
        #expect(journal.status == 66 && journal.err.contains(literal), "a literal string keeps its backslashes: \(journal)")
    }

    /// A file jv refuses, the line it names and what the message says.
    struct Refused: Sendable, CustomStringConvertible {
        let file: [UInt8]
        let line: Int
        let says: String
        init(_ text: String, line: Int = 1, _ says: String) { (file, self.line, self.says) = (Array(text.utf8), line, says) }
        init(bytes: [UInt8], line: Int, _ says: String) { (file, self.line, self.says) = (bytes, line, says) }
        var description: String { says }
    }

    @Test("a file jv cannot use stops every command with one sentence naming the file and the line, and jv's key (exit 64)", .tags(.slow), .notInQuickRun, arguments: [
        Refused("colour = true", "unknown key (did you mean 'color'?); jv reads vault, kdf, editor, session, color, limit, time_format, date_order, images, image_columns and tables [journals], [attachments] and [sync]."),
        Refused("# ok\nlimit = \"10\"", line: 2, "'limit' must be an integer, not a string."),
        Refused("color = yes", "'color' has a value jv does not read"),
        Refused("color = \"no\"", "'color' must be true or false, not a string."),
        Refused("kdf = 'fast'", "'kdf' must be \"interactive\", \"moderate\" or \"sensitive\"."),
        Refused("vault = '/a'\n\nvault = '/b'", line: 3, "'vault' is set twice (first on line 1)."),
        Refused("[journals]\nwork = '/a'\nwork = '/b'", line: 3, "the key is set twice (first on line 2)."),
        Refused("[journals]\n[journals]", line: 2, "[journals] appears twice (first on line 1)."),
        Refused("limit 10", "malformed line; expected '=' after 'limit'."),
        Refused("= 3", "malformed line; expected key = value"),
        Refused("[colors]", "unknown table; the tables are [journals], [attachments] and [sync]."),
        Refused("editor = \"vim\" -n", "unexpected text after the value of 'editor'."),
        Refused("session = \"forever\"", "'session' must be a length"),
        Refused("vault = 'journal.vault'", "'vault' must be an absolute path or start with ~/."),
        Refused("time_format = \"%H:%M\"", "'time_format' must be \"24h\" or \"12h\"."),
        Refused("limit = 0", "'limit' must be a number of entries, 1 or more."),
        Refused("limit = 012", "'limit' has a value jv does not read"),
        Refused("limit = 99999999999999999999", "the integer value of 'limit' is too large."),
        Refused("limit = [1]", "the value of 'limit' is an array or an inline table, which jv does not read."),
        Refused("editor = \"vi\\q\"", "the value of 'editor' may only use the escapes"),
        Refused("editor = \"vi", "the string value of 'editor' has no closing quote."),
        Refused("journals.work = '/a'", "dotted keys are not supported."),
        Refused(bytes: Array("limit = 3\nvault = '/caf".utf8) + [0xE9] + Array(".vault'".utf8), line: 2, "it is not valid UTF-8."),
    ])
    func refusedFiles(_ refused: Refused) throws {
        let sandbox = try sandbox(configBytes: Data(refused.file))
        try sandbox.installEmptyVault()
        let prefix = "jv: \(configFile(sandbox)):\(refused.line): "
        // Also where no setting is needed: --vault given, JSON asked for.
        for arguments in [["list"], ["--vault", sandbox.vault, "info", "--json"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.out.isEmpty)
            #expect(result.errorLines.count == 1 && result.errorLines[0].hasPrefix(prefix) && result.errorLines[0].contains(refused.says),
                    "\(arguments): \(result.errorLines)")
        }
    }

    @Test("a passphrase in the config file is refused, without repeating it: jv never reads secrets from there")
    func passphraseRefused() throws {
        for key in ["passphrase", "password", "passphrase_file"] {
            let sandbox = try sandbox(config: "kdf = 'interactive'\n\(key) = 'tr0ub4dor-secret'\n")
            try sandbox.installEmptyVault()
            let result = try sandbox.run(["list"])
            #expect(result.status == 64, "\(result)")
            #expect(result.errorLines == ["jv: \(configFile(sandbox)):2: the key names a secret, and jv never reads secrets from its config file; give the passphrase "
                                          + "with --passphrase-file or --passphrase-command (or $JV_PASSPHRASE_FILE, $JV_PASSPHRASE_COMMAND)."])
            #expect(!result.err.contains("tr0ub4dor"))
        }
    }

    /// A line jv cannot read may be a passphrase pasted into the wrong file: it was
    /// echoed ("expected '=' after 'correct-horse-…'"). Every message names the line by its
    /// number and quotes no word of it but jv's own keys.
    @Test("a line jv cannot read is named by its number, and no word of it is repeated", arguments: [
        Refused("Tr0ub4dor-correct-horse", "malformed line; expected '=' after the key."),
        Refused("Tr0ub4dor correct horse", "malformed line; expected '=' after the key."),
        Refused("Tr0ub4dor = correct horse", "the key has a value jv does not read"),
        Refused("Tr0ub4dor = 'correct horse'", "unknown key; jv reads vault, kdf,"),
        Refused("[Tr0ub4dor]", "unknown table; the tables are [journals], [attachments] and [sync]."),
        Refused("Tr0ub4dor.horse = 1", "dotted keys are not supported."),
        Refused("Tr0ub4dor =", "the key has no value."),
        Refused("Tr0ub4dor = 'horse", "the string value of the key has no closing quote."),
        Refused("Tr0ub4dor = 99999999999999999999", "the integer value of the key is too large."),
        Refused("Tr0ub4dor = [1]", "the value of the key is an array or an inline table"),
        Refused("Tr0ub4dor = '''horse'''", "the value of the key is a multi-line string"),
        Refused(#"Tr0ub4dor = "\q""#, "the value of the key may only use the escapes"),
        Refused(#"Tr0ub4dor = "\u12""#, #"in the value of the key, \u must be followed"#),
        Refused("Tr0ub4dor = 'a\u{01}b'", "the value of the key holds a control character"),
        Refused("Tr0ub4dor = 1 horse", "unexpected text after the value of the key."),
        Refused("Tr0ub4dor-pass = 'horse'", "the key names a secret"),
        Refused("[journals]\nTr0ub4dor = 'horse'", line: 2, "the key must be an absolute path or start with ~/."),
        Refused("[journals]\nTr0ub4dor = '/a'\nTr0ub4dor = '/b'", line: 3, "the key is set twice (first on line 2)."),
    ])
    func unreadableLineIsNotRepeated(_ refused: Refused) throws {
        let sandbox = try sandbox(configBytes: Data(refused.file))
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["list"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines.count == 1 && result.errorLines[0].hasPrefix("jv: \(configFile(sandbox)):\(refused.line): ")
                && result.errorLines[0].contains(refused.says), "\(result.errorLines)")
        #expect(!result.err.contains("Tr0ub4dor") && !result.err.contains("horse"), "\(result.err)")
    }

    @Test("no config file: the built-in defaults (the XDG data folder's vault, every entry listed)")
    func missingFile() throws {
        let sandbox = try Sandbox()
        sandbox.environment["XDG_CONFIG_HOME"] = sandbox.folder.file("nothing-here")
        let info = try sandbox.run(["info"], env: ["JV_VAULT": nil])
        #expect(info.status == 66 && info.err.contains(sandbox.home + "/.local/share/jv/journal.vault"), "\(info)")

        try sandbox.installEmptyVault()
        let ids = try (1...3).map { try sandbox.add("Entry \($0)") }
        #expect(try sandbox.list().ids == ids)
    }
}

extension ConfigTests {
    @Test("README's example config file is one jv reads")
    func readmeExample() throws {
        let readme = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../README.md").standardized.path, encoding: .utf8)
        let example = try #require(readme.components(separatedBy: "```toml\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(example.contains("[journals]"))
        let sandbox = try sandbox(config: example)
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["info", "--json"])
        #expect(result.status == 0, "\(result)")
    }
}
