// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@Suite("Passphrase sources", .tags(.e2e))
struct PassphraseSourceTests {
    /// The sandbox environment without any passphrase source.
    private let none: [String: String?] = [
        "JV_PASSPHRASE_FILE": nil, "JV_PASSPHRASE_COMMAND": nil, "JV_PASSPHRASE": nil, "JV_RECOVERY_KEY_FILE": nil,
    ]

    private func sources(_ extra: [String: String?]) -> [String: String?] {
        none.merging(extra) { $1 }
    }

    /// A vault with one entry; returns the sandbox, the recovery key and a file with a wrong passphrase.
    private static let fixture = Result { try Fixture { sandbox in try sandbox.add("the only entry"); return [:] } }

    private func journal() throws -> (Sandbox, String, String) {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        return (sandbox, fixture.recoveryKey, try sandbox.folder.write("wrong.txt", "wrong horse battery staple\n"))
    }

    private func listStatus(_ sandbox: Sandbox, _ arguments: [String] = [], env: [String: String?]) throws -> JVResult {
        let result = try sandbox.run(["list", "--json"] + arguments, env: env)
        if result.status == 0 {
            #expect(try result.array().contents == ["the only entry"], "\(result)")
        } else {
            #expect(result.out.isEmpty, "\(result)")
        }
        return result
    }

    @Test("--passphrase-file and $JV_PASSPHRASE_FILE use the first line; a trailing \\r\\n is ignored")
    func passphraseFileFirstLine() throws {
        let (sandbox, _, _) = try journal()
        let variants = [
            Sandbox.passphrase + "\r\nsecond line\n",
            Sandbox.passphrase,
            Sandbox.passphrase + "\n\n",
            Sandbox.passphrase + "\nwrong horse\n",
        ]
        for (index, contents) in variants.enumerated() {
            let file = try sandbox.folder.write("variant-\(index).txt", contents)
            #expect(try listStatus(sandbox, ["--passphrase-file", file], env: none).status == 0, "\(contents.debugDescription)")
            #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_FILE": file])).status == 0, "\(contents.debugDescription)")
        }
        // The first line is the whole passphrase: neither a prefix nor a longer first line opens it.
        for contents in ["correct horse\n", Sandbox.passphrase + "x\n"] {
            let file = try sandbox.folder.write("near-miss.txt", contents)
            #expect(try listStatus(sandbox, ["--passphrase-file", file], env: none).status == 77, "\(contents.debugDescription)")
        }
        // An empty first line is an empty passphrase file, said as such (64), not a wrong passphrase.
        let emptyFirstLine = try sandbox.folder.write("empty-first-line.txt", "\n" + Sandbox.passphrase + "\n")
        let refused = try listStatus(sandbox, ["--passphrase-file", emptyFirstLine], env: none)
        #expect(refused.status == 64 && refused.err.contains("is empty"), "\(refused)")
    }

    @Test("--passphrase-command and $JV_PASSPHRASE_COMMAND use the command's output")
    func passphraseCommand() throws {
        let sandbox = try Sandbox()
        let created = try sandbox.run(["init", "--kdf", "interactive"], env: sources(["JV_PASSPHRASE_COMMAND": "echo secret"]))
        #expect(created.status == 0, "\(created)")
        let added = try sandbox.run(["add", "--passphrase-command", "echo secret", "the only entry"], env: none)
        #expect(added.status == 0, "\(added)")
        #expect(try listStatus(sandbox, ["--passphrase-command", "echo secret"], env: none).status == 0)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_COMMAND": "printf 'secret\\r\\nignored'"])).status == 0)
        #expect(try listStatus(sandbox, ["--passphrase-command", "echo secrets"], env: none).status == 77)
        let failing = try listStatus(sandbox, ["--passphrase-command", "echo secret; exit 3"], env: none)
        #expect(failing.status != 0, "a failing command is not a passphrase: \(failing)")
        // A file written with `echo secret` opens the same vault.
        let file = try sandbox.folder.write("secret.txt", "secret\n")
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_FILE": file])).status == 0)
    }

    @Test("$JV_PASSPHRASE")
    func passphraseVariable() throws {
        let (sandbox, _, _) = try journal()
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE": Sandbox.passphrase])).status == 0)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE": "wrong"])).status == 77)
    }

    @Test("precedence: the file flag beats the environment; file beats command beats $JV_PASSPHRASE")
    func precedence() throws {
        let (sandbox, _, wrong) = try journal()
        let right = sandbox.passphraseFile
        // --passphrase-file beats $JV_PASSPHRASE_FILE, both ways round.
        #expect(try listStatus(sandbox, ["--passphrase-file", right], env: sources(["JV_PASSPHRASE_FILE": wrong])).status == 0)
        #expect(try listStatus(sandbox, ["--passphrase-file", wrong], env: sources(["JV_PASSPHRASE_FILE": right])).status == 77)
        // --passphrase-command beats $JV_PASSPHRASE_COMMAND.
        let rightCommand = "cat '\(right)'", wrongCommand = "cat '\(wrong)'"
        #expect(try listStatus(sandbox, ["--passphrase-command", rightCommand], env: sources(["JV_PASSPHRASE_COMMAND": wrongCommand])).status == 0)
        #expect(try listStatus(sandbox, ["--passphrase-command", wrongCommand], env: sources(["JV_PASSPHRASE_COMMAND": rightCommand])).status == 77)
        // $JV_PASSPHRASE_FILE beats $JV_PASSPHRASE_COMMAND beats $JV_PASSPHRASE.
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_FILE": right, "JV_PASSPHRASE_COMMAND": wrongCommand])).status == 0)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_FILE": wrong, "JV_PASSPHRASE_COMMAND": rightCommand])).status == 77)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_COMMAND": rightCommand, "JV_PASSPHRASE": "wrong"])).status == 0)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_COMMAND": wrongCommand, "JV_PASSPHRASE": Sandbox.passphrase])).status == 77)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_FILE": right, "JV_PASSPHRASE": "wrong"])).status == 0)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_FILE": wrong, "JV_PASSPHRASE": Sandbox.passphrase])).status == 77)
    }

    @Test("--recovery-key-file and $JV_RECOVERY_KEY_FILE open the vault with the key init printed")
    func recoveryKeyFile() throws {
        let (sandbox, key, _) = try journal()
        let keyFile = try sandbox.folder.write("recovery.txt", key + "\n")
        #expect(try listStatus(sandbox, ["--recovery-key-file", keyFile], env: none).status == 0)
        #expect(try listStatus(sandbox, env: sources(["JV_RECOVERY_KEY_FILE": keyFile])).status == 0)
        let added = try sandbox.run(["add", "written with the recovery key"], env: sources(["JV_RECOVERY_KEY_FILE": keyFile]))
        #expect(added.status == 0, "\(added)")
        #expect(try sandbox.list().contents == ["the only entry", "written with the recovery key"])
    }

    @Test("the recovery key is read regardless of case, dashes and spaces; a typo is refused with 77")
    func recoveryKeyForms() throws {
        let (sandbox, key, _) = try journal()
        let bare = key.replacingOccurrences(of: "-", with: "")
        let spaced = key.split(separator: "-").joined(separator: " ")
        for (index, form) in [key.uppercased(), bare, spaced, "  " + key + "  \r\n"].enumerated() {
            let file = try sandbox.folder.write("key-\(index).txt", form)
            #expect(try listStatus(sandbox, ["--recovery-key-file", file], env: none).status == 0, "\(form)")
        }
        // One symbol changed: the check digits catch it.
        var symbols = Array(key)
        let last = symbols.count - 1
        symbols[last] = symbols[last] == "a" ? "b" : "a"
        let typo = try sandbox.folder.write("typo.txt", String(symbols))
        let result = try listStatus(sandbox, ["--recovery-key-file", typo], env: none)
        #expect(result.status == 77, "\(result)")
        let garbage = try sandbox.folder.write("garbage.txt", "not a recovery key at all")
        #expect(try listStatus(sandbox, ["--recovery-key-file", garbage], env: none).status == 77)
    }

    @Test("a passphrase with accents opens the vault however the accents are composed (NFC or NFD)")
    func unicodePassphrase() throws {
        let sandbox = try Sandbox()
        let composed = "p\u{E4}ssw\u{F6}rd caf\u{E9}"            // NFC
        let decomposed = composed.decomposedStringWithCanonicalMapping
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        let nfc = try sandbox.folder.write("nfc.txt", composed + "\n")
        let nfd = try sandbox.folder.write("nfd.txt", decomposed + "\n")
        let created = try sandbox.run(["init", "--kdf", "interactive"], env: ["JV_PASSPHRASE_FILE": nfd])
        #expect(created.status == 0, "\(created)")
        #expect(try sandbox.run(["add", "accented"], env: ["JV_PASSPHRASE_FILE": nfd]).status == 0)
        let opened = try sandbox.run(["list", "--json"], env: ["JV_PASSPHRASE_FILE": nfc])
        #expect(opened.status == 0, "\(opened)")
        #expect(try opened.array().contents == ["accented"])
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_PASSPHRASE": composed]).status == 0)
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_PASSPHRASE": "passwort cafe"]).status == 77)
    }

    @Test("a wrong passphrase exits 77 and changes nothing")
    func wrongPassphrase() throws {
        let (sandbox, _, wrong) = try journal()
        let id = try #require(try sandbox.list().ids.first)
        let before = try sandbox.run(["list", "--json"]).out
        let wrongEnv = sources(["JV_PASSPHRASE_FILE": wrong])
        let attempts: [([String], String?)] = [
            (["add", "should not be stored"], nil), (["add"], "from stdin, not stored"),
            (["edit", id], "replaced text"), (["edit", id, "--star"], nil), (["delete", "--yes", id], nil),
            (["show", id], nil), (["list"], nil), (["search", "only"], nil), (["check"], nil),
            (["passwd", "--new-passphrase-file", wrong], nil), (["recovery-key"], nil),
        ]
        for (arguments, input) in attempts {
            let result = try sandbox.run(arguments, stdin: input.map { Data($0.utf8) }, env: wrongEnv)
            #expect(result.status == 77, "\(result)")
            #expect(result.out.isEmpty, "\(result)")
            #expect(result.errorLines.count == 1, "one sentence: \(result)")
        }
        #expect(try sandbox.run(["list", "--json"]).out == before)
        #expect(try sandbox.entryCount() == 1)
    }

    @Test("a wrong recovery key exits 77")
    func wrongRecoveryKey() throws {
        let (sandbox, key, _) = try journal()
        let other = try Sandbox()
        let otherKey = try other.initVault()
        #expect(otherKey != key)
        let keyFile = try sandbox.folder.write("other-recovery.txt", otherKey + "\n")
        let listed = try listStatus(sandbox, ["--recovery-key-file", keyFile], env: none)
        #expect(listed.status == 77, "\(listed)")
        let added = try sandbox.run(["add", "not stored"], env: sources(["JV_RECOVERY_KEY_FILE": keyFile]))
        #expect(added.status == 77, "\(added)")
        #expect(try sandbox.entryCount() == 1)
    }

    @Test("no passphrase source and no terminal: exit 64 with a clear message", arguments: [
        ["list"], ["add", "text"], ["show", "abcd"], ["search", "x"], ["check"], ["edit", "abcd", "--star"], ["delete", "--yes", "abcd"],
    ])
    func noSource(arguments: [String]) throws {
        let (sandbox, _, _) = try journal()
        let result = try sandbox.run(arguments, env: none)
        #expect(result.status == 64, "\(result)")
        #expect(result.out.isEmpty)
        let message = result.errorLines.joined(separator: " ")
        #expect(message.contains("passphrase") && message.contains("JV_PASSPHRASE_FILE"), "\(result)")
        #expect(try sandbox.entryCount() == 1)
    }

    @Test("standard input stays free for the text when a passphrase source is set")
    func stdinStaysFree() throws {
        let (sandbox, _, _) = try journal()
        let result = try sandbox.run(["add"], input: "text\n")
        #expect(result.status == 0, "\(result)")
        #expect(try sandbox.list().contents == ["the only entry", "text"])
        let fromCommand = try sandbox.run(["add"], input: "more text",
                                          env: sources(["JV_PASSPHRASE_COMMAND": "cat '\(sandbox.passphraseFile)'"]))
        #expect(fromCommand.status == 0, "\(fromCommand)")
        #expect(try sandbox.list().contents == ["the only entry", "text", "more text"])
    }

    @Test("a passphrase or recovery key file that does not exist gives 66")
    func missingSecretFile() throws {
        let (sandbox, _, _) = try journal()
        let missing = sandbox.folder.file("no-such-file")
        #expect(try listStatus(sandbox, ["--passphrase-file", missing], env: none).status == 66)
        #expect(try listStatus(sandbox, env: sources(["JV_PASSPHRASE_FILE": missing])).status == 66)
        #expect(try listStatus(sandbox, ["--recovery-key-file", missing], env: none).status == 66)
    }
}

extension PassphraseSourceTests {
    @Test("the passphrase command gets jv's environment without jv's secret variables, as the editor and analysers do")
    func passphraseCommandEnvironment() throws {
        let (sandbox, _, _) = try journal()
        let seen = sandbox.folder.file("seen-environment")
        let command = "env > '\(seen)'; cat '\(sandbox.passphraseFile)'"
        let secrets = ["JV_PASSPHRASE": "wrong horse", "JV_RECOVERY_KEY_FILE": sandbox.folder.file("recovery.txt"),
                       "JV_NEW_PASSPHRASE_FILE": sandbox.folder.file("new.txt")]
        let settings = ["JVTESTS_SETTING": "kept", "TERM": "xterm-256color"]
        for (arguments, source) in [(["--passphrase-command", command], sources(["JV_PASSPHRASE_FILE": sandbox.passphraseFile])),
                                    ([], sources(["JV_PASSPHRASE_COMMAND": command]))] {
            let result = try listStatus(sandbox, arguments, env: source.merging(secrets) { $1 }.merging(settings) { $1 })
            #expect(result.status == 0, "\(result)")
            let lines = try String(contentsOfFile: seen, encoding: .utf8).split(separator: "\n").map(String.init)
            let leaked = lines.filter { $0.hasPrefix("JV_PASSPHRASE") || $0.hasPrefix("JV_RECOVERY_KEY") || $0.hasPrefix("JV_NEW_PASSPHRASE") }
            #expect(leaked.isEmpty, "\(arguments): \(leaked)")
            #expect(lines.contains("JVTESTS_SETTING=kept") && lines.contains("TERM=xterm-256color") && lines.contains("HOME=" + sandbox.home),
                    "the rest of the environment is kept: \(lines)")
            try FileManager.default.removeItem(atPath: seen)
        }
    }

    @Test("the passphrase command starts with no signal blocked and SIGPIPE at its default, as every shell command jv runs")
    func passphraseCommandSignals() throws {
        let (sandbox, _, _) = try journal()
        // Prints the passphrase only if its shell blocks no signal and does not ignore SIGPIPE (bit 12).
        let command = """
            blocked=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$$/status); ignored=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
            [ $((0x$blocked)) -eq 0 ] && [ $((0x$ignored & 0x1000)) -eq 0 ] && cat '\(sandbox.passphraseFile)'
            """
        let result = try listStatus(sandbox, ["--passphrase-command", command], env: none)
        #expect(result.status == 0, "\(result)")
    }
}
