// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// What `jv` does when a person sits at a terminal: the editor, the delete question, the
/// passphrase prompt. script(1) gives `jv` a pseudo-terminal; what is typed is fed to it.
@Suite("At a terminal (through script(1))", .tags(.e2e), .enabled(if: JV.tool("script") != nil, "needs script(1) to give jv a terminal"))
struct TerminalTests {
    /// Runs `jv arguments` on a pseudo-terminal. Each of `typed` is sent `delay` seconds after
    /// the one before (the first `delay` seconds after the start): `jv` flushes type-ahead when
    /// it turns echo off for a secret, as getpass(3) does, so a person types after the prompt.
    private func onTerminal(_ sandbox: Sandbox, _ arguments: [String], typed: [String] = [], delay: Double = 0,
                            env: [String: String?] = [:]) throws -> JVResult {
        try onTerminal(sandbox, shell: commandLine(sandbox, arguments), typed: typed, delay: delay, env: env)
    }

    /// `jv arguments` as a shell command.
    private func commandLine(_ sandbox: Sandbox, _ arguments: [String]) -> String {
        ([sandbox.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// Runs the shell command `shell` on a pseudo-terminal, typing as above; `TERM` is `dumb`
    /// unless `env` says otherwise.
    private func onTerminal(_ sandbox: Sandbox, shell command: String, typed: [String] = [], delay: Double = 0,
                            env: [String: String?] = [:]) throws -> JVResult {
        let script = try #require(JV.tool("script"))
        var typing = ["true"]
        var variables: [String: String?] = ["JVT_SCRIPT": script, "JVT_COMMAND": command, "TERM": "dumb", "SHELL": "/bin/sh"]
        for (index, text) in typed.enumerated() {
            typing.append("sleep \(delay); printf '%s' \"$JVT_TYPED_\(index)\"")
            variables["JVT_TYPED_\(index)"] = text
        }
        let shell = "(" + typing.joined(separator: "; ") + ") | \"$JVT_SCRIPT\" -qec \"$JVT_COMMAND\" /dev/null"
        return try sandbox.runTool("/bin/sh", ["-c", shell], env: variables.merging(env) { $1 })
    }

    /// An editor (a shell script) that records the file it was given, its mode and its text,
    /// keeps a hard link to it in the runtime folder (to see afterwards what jv left in it; jv
    /// removes everything in the file's own folder), then writes `text`.
    private func editor(_ sandbox: Sandbox, writing text: String) throws -> String {
        let log = sandbox.folder.file("editor")
        let path = try sandbox.folder.write("editor.sh", """
            #!/bin/sh
            for last in "$@"; do :; done
            printf '%s' "$last" > '\(log).path'
            stat -c %a "$last" > '\(log).mode'
            cat "$last" > '\(log).before'
            ln -f "$last" '\(sandbox.runtime.file("kept-link"))'
            printf '%s\\n' '\(text)' > "$last"
            """)
        // Run through sh, not executed itself: a file just written cannot be executed while a
        // concurrent test's fork still holds it open for writing (ETXTBSY).
        return "/bin/sh " + path
    }

    @Test("add on a terminal opens $EDITOR on a private tmpfs file that is overwritten and removed afterwards")
    func addWithEditor() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let runtime = sandbox.runtime.path
        let editor = try editor(sandbox, writing: "Written in the editor #edtag")
        let result = try onTerminal(sandbox, ["add"], env: ["EDITOR": editor, "VISUAL": nil, "XDG_RUNTIME_DIR": runtime])
        #expect(result.status == 0, "\(result)")
        let entries = try sandbox.list()
        #expect(entries.contents == ["Written in the editor #edtag"])
        #expect(entries.first?["tags"] as? [String] == ["edtag"])

        let log = sandbox.folder.file("editor")
        let path = try String(contentsOfFile: log + ".path", encoding: .utf8)
        #expect(path.hasPrefix(runtime + "/"), "the editor's file is in $XDG_RUNTIME_DIR: \(path)")
        #expect(try String(contentsOfFile: log + ".mode", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "600")
        #expect(!FileManager.default.fileExists(atPath: path), "the editor's file is removed")
        let kept = try #require(FileManager.default.contents(atPath: runtime + "/kept-link"))
        #expect(!containsBytes(kept, Data("Written".utf8)), "the file's text was overwritten before removal")
        #expect(kept.allSatisfy { $0 == 0 })
    }

    @Test("add on a terminal: text written in the editor may start with its date, as in jrnl")
    func leadingDateInTheEditor() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let editor = try editor(sandbox, writing: "2026-11-05 21:00: Dinner with Anna")
        let result = try onTerminal(sandbox, ["add"], env: ["EDITOR": editor, "VISUAL": nil])
        #expect(result.status == 0, "\(result)")
        let entry = try #require(try sandbox.list().first)
        #expect(entry["content"] as? String == "Dinner with Anna")
        #expect(entry["created_at"] as? String == "2026-11-05T21:00:00.000+00:00", "\(entry)")
    }

    @Test("add --template on a terminal opens the editor on the template; saved unchanged, nothing is added")
    func templateInTheEditor() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.folder.write("home/.config/jv/templates/daily.md", "Grateful for:\n")
        let editor = try editor(sandbox, writing: "Grateful for: the sea")
        let result = try onTerminal(sandbox, ["add", "--template", "daily"], env: ["EDITOR": editor, "VISUAL": nil])
        #expect(result.status == 0, "\(result)")
        #expect(try String(contentsOfFile: sandbox.folder.file("editor") + ".before", encoding: .utf8) == "Grateful for:\n")
        #expect(try sandbox.list().contents == ["Grateful for: the sea"])
        let unchanged = try onTerminal(sandbox, ["add", "--template", "daily"], env: ["EDITOR": "/bin/true", "VISUAL": nil])
        #expect(unchanged.status != 0, "\(unchanged)")
        #expect(try sandbox.entryCount() == 1)
    }

    @Test("edit on a terminal opens $EDITOR on the current text")
    func editWithEditor() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("The current text")
        let runtime = sandbox.runtime.path
        let editor = try editor(sandbox, writing: "The edited text")
        let result = try onTerminal(sandbox, ["edit", id], env: ["EDITOR": editor, "VISUAL": nil, "XDG_RUNTIME_DIR": runtime])
        #expect(result.status == 0, "\(result)")
        #expect(try String(contentsOfFile: sandbox.folder.file("editor.before"), encoding: .utf8) == "The current text")
        #expect(try sandbox.show(id)["content"] as? String == "The edited text")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime) == ["kept-link"])
    }

    @Test("edit on a terminal of an entry whose first line ends in CRLF, saved unchanged, changes nothing")
    func editUnchangedCRLF() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Title ended by CRLF\r\nSecond line.")
        let before = try sandbox.show(id)
        let result = try onTerminal(sandbox, ["edit", id], env: ["EDITOR": "/bin/true", "VISUAL": nil])
        #expect(result.status == 0 && result.out.contains("No changes."), "\(result)")
        let after = try sandbox.show(id)
        #expect(after["content"] as? String == "Title ended by CRLF\r\nSecond line.", "\(after)")
        #expect(after["modified_at"] as? String == before["modified_at"] as? String, "not written: \(after)")
    }

    @Test("an editor that fails, or leaves the text empty, adds nothing")
    func editorFailsOrEmpty() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let runtime = sandbox.runtime.path
        for editor in ["/bin/false", "/bin/true"] {
            let result = try onTerminal(sandbox, ["add"], env: ["EDITOR": editor, "VISUAL": nil, "XDG_RUNTIME_DIR": runtime])
            #expect(result.status != 0, "\(result)")
        }
        // A failing editor is named, with how to choose another.
        for (editor, says) in [("/bin/false", "The editor '/bin/false' exited with status 1"), ("no-such-editor-here", "was not found")] {
            let result = try onTerminal(sandbox, ["add"], env: ["EDITOR": editor, "VISUAL": nil])
            #expect(result.out.contains(says) && result.out.contains("Set $VISUAL or $EDITOR"), "\(result)")
        }
        #expect(try sandbox.entryCount() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
    }

    @Test("delete without --yes asks on a terminal: only yes deletes")
    func deleteAsks() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Delete me, maybe")
        let declined = try onTerminal(sandbox, ["delete", id], typed: ["n\n"], delay: 0.5)
        #expect(declined.status != 0, "\(declined)")
        #expect(declined.out.contains("[y/N]"), "\(declined)")
        #expect(try sandbox.entryCount() == 1)
        let accepted = try onTerminal(sandbox, ["delete", id], typed: ["y\n"], delay: 0.5)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(try sandbox.entryCount() == 0)
    }

    @Test("analysis delete without --yes asks on a terminal: only yes deletes")
    func analysisDeleteAsks() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let entry = try sandbox.add("Analysed, then not")
        let id = try sandbox.ok(["analysis", "add", entry, "--model", "m", "--sentiment", "calm"]).printedID()
        let declined = try onTerminal(sandbox, ["analysis", "delete", id], typed: ["n\n"], delay: 0.5)
        #expect(declined.status == 1, "\(declined)")
        #expect(declined.out.contains("Delete the analysis by m") && declined.out.contains("[y/N]"), "\(declined)")
        try sandbox.ok(["analysis", "show", id])
        let accepted = try onTerminal(sandbox, ["analysis", "delete", id], typed: ["y\n"], delay: 0.5)
        #expect(accepted.status == 0, "\(accepted)")
        try sandbox.fails(["analysis", "show", id], status: 66)
    }

    @Test("graph delete without --yes asks on a terminal: only yes deletes")
    func graphDeleteAsks() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let entry = try sandbox.add("Anna, maybe")
        let answer = try sandbox.folder.write("answer.json", #"{"sentiment": "calm", "nodes": [{"type": "person", "name": "Anna"}]}"#)
        try sandbox.ok(["analyze", entry, "--command", "cat >/dev/null; cat '\(answer)'"])
        let declined = try onTerminal(sandbox, ["graph", "delete", "anna"], typed: ["n\n"], delay: 0.5)
        #expect(declined.status == 1, "\(declined)")
        #expect(declined.out.contains("Delete the node “Anna” (person) and its 0 relations?") && declined.out.contains("[y/N]"), "\(declined)")
        try sandbox.ok(["graph", "show", "anna"])
        let accepted = try onTerminal(sandbox, ["graph", "delete", "anna"], typed: ["y\n"], delay: 0.5)
        #expect(accepted.status == 0, "\(accepted)")
        try sandbox.fails(["graph", "show", "anna"], status: 66)
    }

    @Test("edit over several entries asks on a terminal before deleting: only yes saves, and saves every change")
    func multiEditAsksBeforeDeleting() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Keep me", ["--at", "2026-01-05 09:00"])
        try sandbox.add("Delete me", ["--at", "2026-01-06 09:00"])
        let script = try sandbox.folder.write("delete.sh", "for f in \"$@\"; do :; done\nsed -i -e '/Delete me/d' -e 's/Keep me/Kept/' \"$f\"\n")
        let env: [String: String?] = ["EDITOR": "/bin/sh " + script, "VISUAL": nil]
        let declined = try onTerminal(sandbox, ["edit", "--from", "2026-01-01"], typed: ["n\n"], delay: 0.5, env: env)
        #expect(declined.status == 1, "\(declined)")
        #expect(declined.out.contains("Saving deletes 1 entry") && declined.out.contains("[y/N]"), "\(declined)")
        #expect(declined.out.contains("Nothing was changed."), "\(declined)")
        #expect(try sandbox.list().contents == ["Keep me", "Delete me"])
        let accepted = try onTerminal(sandbox, ["edit", "--from", "2026-01-01"], typed: ["y\n"], delay: 0.5, env: env)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(accepted.out.contains("1 changed, 0 added, 1 deleted."), "\(accepted)")
        #expect(try sandbox.list().contents == ["Kept"])
    }

    /// An editor (a shell script) that counts its runs, copies the file it is given to
    /// `editor.N` (N the run), and runs `first` on its first run, `later` on the others, with
    /// the file's path in `$f`.
    private func roundsEditor(_ sandbox: Sandbox, first: String, later: String) throws -> [String: String?] {
        let log = sandbox.folder.file("editor")
        let path = try sandbox.folder.write("rounds-editor.sh", """
            #!/bin/sh
            for f in "$@"; do :; done
            n=$(($(cat '\(log).runs' 2>/dev/null || echo 0) + 1))
            echo $n > '\(log).runs'
            cp "$f" '\(log).'$n
            if [ $n = 1 ]; then
            \(first)
            else
            \(later)
            fi
            """)
        return ["EDITOR": "/bin/sh " + path, "VISUAL": nil]
    }

    @Test("edit over several entries: a malformed header is shown at the top of the text opened again, and the corrected edit is saved whole")
    func multiEditReopensOnAProblem() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("First entry", ["--at", "2026-01-05 09:00"])
        try sandbox.add("Second entry", ["--at", "2026-01-10 09:00"])
        let env = try roundsEditor(sandbox, first: "sed -i -e 's/First entry/First, rewritten/' -e 's/^\\[2026-01-10/[2026-13-10/' \"$f\"",
                                   later: "sed -i 's/^\\[2026-13-10/[2026-01-11/' \"$f\"")
        let result = try onTerminal(sandbox, ["edit", "--from", "2026-01-01"], typed: ["\n"], delay: 1.5, env: env)
        #expect(result.status == 0, "\(result)")
        #expect(result.out.contains("Line 3 of the edited text: the header's date is not of the form") && result.out.contains("Edit again?"),
                "\(result)")
        #expect(result.out.contains("2 changed, 0 added, 0 deleted."), "\(result)")
        let second = try String(contentsOfFile: sandbox.folder.file("editor.2"), encoding: .utf8).components(separatedBy: "\n")
        #expect(second[0] == "# jv: Line 5 of the edited text: the header's date is not of the form [YYYY-MM-DD HH:MM].", "\(second)")
        #expect(second[1].hasPrefix("# jv: ") && second[2].contains("First, rewritten") && second[4].hasPrefix("[2026-13-10 09:00]"), "\(second)")
        let entries = try sandbox.list()
        #expect(entries.contents == ["First, rewritten", "Second entry"], "everything typed in the first run is kept")
        #expect(entries.map { $0["created_at"] as? String } == ["2026-01-05T09:00:00.000+00:00", "2026-01-11T09:00:00.000+00:00"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path) == [], "no editor file is left")
    }

    @Test("edit over several entries: declining to edit again saves nothing (65)")
    func multiEditDeclinedAfterAProblem() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("First entry", ["--at", "2026-01-05 09:00"])
        let env = try roundsEditor(sandbox, first: "sed -i -e 's/First entry/First, rewritten/' -e '1i Dear diary,' \"$f\"", later: "exit 1")
        let result = try onTerminal(sandbox, shell: commandLine(sandbox, ["edit", "--from", "2026-01-01"]) + "; echo \"status=$?\"",
                                    typed: ["n\n"], delay: 1.5, env: env)
        #expect(result.out.contains("status=65"), "\(result)")
        #expect(result.out.contains("there is text before the first header") && result.out.contains("nothing was changed"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder.file("editor.2")), "the editor was not opened again")
        #expect(try sandbox.list().contents == ["First entry"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path) == [])
    }

    @Test("edit of one entry: text over the limit is opened again under the problem; what is saved then is stored")
    func singleEditReopensOverTheLimit() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("A short entry")
        let env = try roundsEditor(sandbox, first: "head -c 50001 /dev/zero | tr '\\0' a > \"$f\"",
                                   later: "sed -i 's/^a*$/Shorter now/' \"$f\"")
        let result = try onTerminal(sandbox, ["edit", id], typed: ["y\n"], delay: 1.5, env: env)
        #expect(result.status == 0, "\(result)")
        #expect(result.out.contains("The text has 50001 characters; the limit is 50000.") && result.out.contains("Edit again?"), "\(result)")
        let second = try String(contentsOfFile: sandbox.folder.file("editor.2"), encoding: .utf8)
        #expect(second.hasPrefix("# jv: The text has 50001 characters; the limit is 50000.\n# jv: "), "\(second.prefix(200))")
        #expect(second.hasSuffix("\n" + String(repeating: "a", count: 50_001)), "the refused text is what opens again")
        #expect(try sandbox.show(id)["content"] as? String == "Shorter now")
    }

    @Test("text starting like jv's note of a problem is the entry's own when no problem was noted")
    func noteLikeTextIsKept() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let editor = try editor(sandbox, writing: "# jv: a heading of my own")
        let result = try onTerminal(sandbox, ["add"], env: ["EDITOR": editor, "VISUAL": nil])
        #expect(result.status == 0, "\(result)")
        #expect(try sandbox.list().contents == ["# jv: a heading of my own"])
    }

    @Test("with no other source, the passphrase is asked on the terminal without echo")
    func passphrasePrompt() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Behind the prompt")
        let noSource: [String: String?] = ["JV_PASSPHRASE_FILE": nil]
        let result = try onTerminal(sandbox, ["list"], typed: [Sandbox.passphrase + "\n"], delay: 1.5, env: noSource)
        #expect(result.status == 0, "\(result)")
        #expect(result.out.contains("Behind the prompt"), "\(result)")
        #expect(result.out.localizedCaseInsensitiveContains("passphrase"), "a prompt was shown: \(result)")
        #expect(!result.out.contains(Sandbox.passphrase), "the passphrase was echoed: \(result)")
        let wrong = try onTerminal(sandbox, ["list"], typed: ["not the passphrase\n", "nor this\n", "nor that\n"], delay: 1.5, env: noSource)
        #expect(wrong.status == 77, "\(wrong)")
        #expect(!wrong.out.contains("Behind the prompt"))
    }

    @Test("a passphrase mistyped at the prompt may be typed again, three tries in all (as jrnl allows)", .tags(.slow), .notInQuickRun)
    func threeTriesAtThePrompt() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Behind the third try")
        let noSource: [String: String?] = ["JV_PASSPHRASE_FILE": nil]
        let third = try onTerminal(sandbox, ["list"], typed: ["first miss\n", "second miss\n", Sandbox.passphrase + "\n"],
                                   delay: 1.5, env: noSource)
        #expect(third.status == 0 && third.out.contains("Behind the third try"), "\(third)")
        #expect(third.out.components(separatedBy: "Wrong passphrase; try again.").count == 3, "\(third)")
        let fourth = try onTerminal(sandbox, ["list"], typed: ["one\n", "two\n", "three\n", Sandbox.passphrase + "\n"],
                                    delay: 1.5, env: noSource)
        #expect(fourth.status == 77 && !fourth.out.contains("Behind the third try"), "\(fourth)")
    }

    @Test("init on a terminal asks twice; two different answers create nothing", .tags(.slow), .notInQuickRun)
    func initAsksTwice() throws {
        let sandbox = try Sandbox()
        let noSource: [String: String?] = ["JV_PASSPHRASE_FILE": nil]
        let differ = try onTerminal(sandbox, ["init", "--kdf", "interactive"], typed: ["first try\n", "second try\n"], delay: 1.5, env: noSource)
        #expect(differ.status == 64, "\(differ)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.vault))
        // A short one is warned of before it is used; declined, it is asked for again.
        let same = try onTerminal(sandbox, ["init", "--kdf", "interactive"],
                                  typed: ["short\n", "short\n", "n\n", "typed twice\n", "typed twice\n", "y\n"], delay: 1.5, env: noSource)
        #expect(same.status == 0, "\(same)")
        #expect(same.out.components(separatedBy: "Use it anyway?").count == 3, "asked for each short one: \(same)")
        #expect(!same.out.contains("typed twice"), "the passphrase was echoed: \(same)")
        #expect(same.out.contains("JVR1-"), "the recovery key is shown: \(same)")
        let file = try sandbox.folder.write("typed.txt", "typed twice\n")
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": file]).status == 0)
    }

    /// The terminal's echo setting as `stty -a` printed it in `output`: true on, false off.
    private func echoIsOn(_ output: String) -> Bool? {
        let words = output.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == ";" })
        if words.contains("-echo") { return false }
        return words.contains("echo") ? true : nil
    }

    @Test("Ctrl-C at the passphrase prompt ends jv with 130 and leaves the terminal's echo on")
    func interruptAtThePromptRestoresEcho() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        // The shell outlives the Ctrl-C (a trap, which jv does not inherit) to report the status
        // and the terminal's settings afterwards.
        let result = try onTerminal(sandbox, shell: "trap 'true' INT; \(commandLine(sandbox, ["list"])); echo \"status=$?\"; stty -a",
                                    typed: ["\u{03}"], delay: 1.5, env: ["JV_PASSPHRASE_FILE": nil])
        #expect(result.out.contains("status=130"), "\(result)")
        #expect(echoIsOn(result.out) == true, "\(result)")
    }

    /// An editor that records its file and process, keeps a hard link to the file in the runtime
    /// folder, then sends `signal` to jv (its parent) and waits to be ended.
    private func signallingEditor(_ sandbox: Sandbox, signal: String) throws -> String {
        let log = sandbox.folder.file("editor")
        let path = try sandbox.folder.write("signalling-editor.sh", """
            #!/bin/sh
            for last in "$@"; do :; done
            printf '%s' "$last" > '\(log).path'
            echo $$ > '\(log).pid'
            ln -f "$last" '\(sandbox.runtime.file("kept-link"))'
            kill -\(signal) $PPID
            exec sleep 30
            """)
        // Run through sh, not executed itself: a file just written cannot be executed while a
        // concurrent test's fork still holds it open for writing (ETXTBSY).
        return "/bin/sh " + path
    }

    @Test("SIGHUP, SIGTERM or SIGINT while the editor is open: the editor ended, its file wiped and removed, the conventional status",
          arguments: [("HUP", SIGHUP), ("TERM", SIGTERM), ("INT", SIGINT)])
    func signalWhileEditing(name: String, number: Int32) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let secret = "Secret diary text that must not stay on the machine"
        let id = try sandbox.add(secret)
        let editor = try signallingEditor(sandbox, signal: name)
        let result = try onTerminal(sandbox, shell: "trap 'true' INT TERM HUP; \(commandLine(sandbox, ["edit", id])); echo \"status=$?\"; stty -a",
                                    env: ["EDITOR": editor, "VISUAL": nil])
        #expect(result.out.contains("status=\(128 + number)"), "\(result)")
        #expect(echoIsOn(result.out) == true, "\(result)")
        let log = sandbox.folder.file("editor")
        let path = try String(contentsOfFile: log + ".path", encoding: .utf8)
        #expect(!FileManager.default.fileExists(atPath: path), "the editor's file is removed")
        let kept = try #require(FileManager.default.contents(atPath: sandbox.runtime.file("kept-link")))
        #expect(kept.count >= secret.utf8.count && kept.allSatisfy { $0 == 0 }, "the file was overwritten before removal")
        let pid = try #require(Int32(try String(contentsOfFile: log + ".pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        var ended = false
        for _ in 0..<50 where !ended {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
            ended = state == nil || state == "Z"
            if !ended { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(ended, "the editor was ended with jv")
        #expect(try sandbox.show(id)["content"] as? String == secret, "nothing was saved")
    }

    @Test("the editor, in a process group of its own, has the terminal: it reads what is typed; the terminal comes back to the shell")
    func editorReadsTheTerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let editor = try sandbox.folder.write("reading-editor.sh", """
            for last in "$@"; do :; done
            IFS= read -r line < /dev/tty
            printf '%s\\n' "$line" > "$last"
            """)
        let result = try onTerminal(sandbox, shell: commandLine(sandbox, ["add"]) + "; echo \"status=$?\"; stty -a",
                                    typed: ["Typed into the editor\n"], delay: 1.5, env: ["EDITOR": "/bin/sh " + editor, "VISUAL": nil])
        #expect(result.out.contains("status=0") && echoIsOn(result.out) == true, "\(result)")
        #expect(try sandbox.list().contents == ["Typed into the editor"])
    }

    @Test("the editor runs without jv's secret variables in its environment")
    func editorEnvironmentHasNoSecrets() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let seen = sandbox.folder.file("editor.env")
        let editor = try sandbox.folder.write("env-editor.sh", """
            #!/bin/sh
            for last in "$@"; do :; done
            env > '\(seen)'
            echo 'Written with a clean environment' > "$last"
            """)
        let result = try onTerminal(sandbox, ["add"], env: ["EDITOR": "/bin/sh " + editor, "VISUAL": nil, "JV_PASSPHRASE": Sandbox.passphrase,
                                                            "JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": "/nonexistent"])
        #expect(result.status == 0, "\(result)")
        let environment = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(!environment.contains("JV_PASSPHRASE") && !environment.contains("JV_RECOVERY_KEY"), "\(environment)")
        #expect(!environment.contains(Sandbox.passphrase))
        #expect(environment.contains("HOME="), "the rest of the environment is passed on")
    }

    /// Whether the temporary folder, where every sandbox is, is on a disk rather than on tmpfs or
    /// ramfs (as /tmp is on some machines): only there can a test offer jv a runtime folder on disk.
    static let temporaryFolderIsOnDisk: Bool = {
        let stat = Process()
        stat.executableURL = URL(fileURLWithPath: "/usr/bin/stat")
        stat.arguments = ["-f", "-c", "%T", NSTemporaryDirectory()]
        let output = Pipe()
        stat.standardOutput = output
        guard (try? stat.run()) != nil else { return true }
        let fileSystem = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        stat.waitUntilExit()
        return !fileSystem.contains("tmpfs") && !fileSystem.contains("ramfs")
    }()

    @Test("an $XDG_RUNTIME_DIR on a disk is not used for the editor's file: /dev/shm is",
          .enabled(if: TerminalTests.temporaryFolderIsOnDisk, "the temporary folder is itself on tmpfs: there is no folder on disk to offer jv"))
    func runtimeFolderOnDiskIsNotUsed() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let onDisk = sandbox.folder.file("disk-runtime")
        try FileManager.default.createDirectory(atPath: onDisk, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let editor = try editor(sandbox, writing: "Kept off the disk")
        let result = try onTerminal(sandbox, ["add"], env: ["EDITOR": editor, "VISUAL": nil, "XDG_RUNTIME_DIR": onDisk])
        #expect(result.status == 0, "\(result)")
        let path = try String(contentsOfFile: sandbox.folder.file("editor") + ".path", encoding: .utf8)
        #expect(path.hasPrefix("/dev/shm/"), "\(path)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: onDisk) == [])
    }


    /// Stored text can carry bytes a terminal acts on: an entry, a chat thread and
    /// message, and an analysis holding an OSC title change, a screen clear, a carriage return,
    /// a C1 CSI and DEL are shown on a terminal, never sent raw; `--json` escapes them; a pipe
    /// or a file gets the text exactly.
    @Test("control characters in stored text are shown, not acted on, on a terminal; exact in pipes and files")
    func controlCharactersAreShownOnATerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let hostile = "Title \u{1B}]0;pwned\u{07} then\u{1B}[2J cleared\r over \u{9B}31m c1 \u{7F}del"
        let id = try sandbox.add(hostile)
        let thread = try sandbox.run(["chat", "new", "--title", hostile]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", hostile]))
        try Sandbox.requireSuccess(try sandbox.run(["analysis", "add", id, "--model", "m", "--sentiment", hostile, "--theme", hostile]))
        let raw: [UInt32] = [0x1B, 0x07, 0x9B, 0x7F]
        for arguments in [["show", id], ["list"], ["search", "cleared"], ["chat", "list"], ["chat", "show", thread],
                          ["analysis", "list"], ["export", "--format", "markdown"]] {
            let result = try onTerminal(sandbox, arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(!result.out.unicodeScalars.contains { raw.contains($0.value) }, "\(arguments) sent a raw control: \(result.out.debugDescription)")
            #expect(result.out.contains("^[]0;pwned^G"), "\(arguments): \(result.out.debugDescription)")
            #expect(result.out.contains("<U+009B>31m") && result.out.contains("^?del"), "\(arguments)")
        }
        let json = try onTerminal(sandbox, ["show", id, "--json"])
        #expect(!json.out.unicodeScalars.contains { raw.contains($0.value) }, "\(json.out.debugDescription)")
        #expect(json.out.contains(#"\u001b]0;pwned\u0007"#) && json.out.contains(#"\u009b31m"#) && json.out.contains(#"\u007fdel"#))
        // Piped and written to a file: exactly as stored.
        #expect(try sandbox.show(id)["content"] as? String == hostile)
        #expect(try sandbox.run(["show", id]).out.contains(hostile))
        let file = sandbox.folder.file("export.md")
        try Sandbox.requireSuccess(try sandbox.run(["export", "--format", "markdown", "--output", file]))
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains(hostile))
    }

    /// `jv search` on a colour terminal shows the words that matched in bold (grep --color);
    /// on a terminal without colour (TERM=dumb), in a pipe or with `--json` no escape at all,
    /// and the text's own controls are still shown, not sent.
    @Test("search highlights the matched words in bold on a colour terminal only")
    func searchHighlights() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Green tea at the Café \u{1B}[2J, then teatime")
        let bold = { (text: String) in "\u{1B}[1m" + text + "\u{1B}[0m" }
        let colour = try onTerminal(sandbox, ["search", "\"green tea\" cafe"], env: ["TERM": "xterm-256color"])
        #expect(colour.status == 0, "\(colour)")
        #expect(colour.out.contains(bold("Green") + " " + bold("tea") + " at the " + bold("Café") + " ^[[2J, then teatime"),
                "\(colour.out.debugDescription)")
        let dumb = try onTerminal(sandbox, ["search", "cafe"])
        #expect(dumb.out.contains("Green tea at the Café ^[[2J, then teatime") && !dumb.out.contains("\u{1B}"), "\(dumb.out.debugDescription)")
        let json = try onTerminal(sandbox, ["search", "--json", "cafe"], env: ["TERM": "xterm-256color"])
        #expect(!json.out.contains("\u{1B}[1m"), "\(json.out.debugDescription)")
        let piped = try sandbox.run(["search", "cafe"], env: ["TERM": "xterm-256color"])
        #expect(piped.out.contains("Green tea at the Café \u{1B}[2J, then teatime") && !piped.out.contains("\u{1B}[1m"), "\(piped.out.debugDescription)")
    }

    /// Stored text can reorder what a terminal shows ("Trojan Source"): U+202E
    /// shows the rest of a line backwards, an isolate hides where text starts, U+2028 breaks a
    /// line where none is stored. On a terminal each is shown as `<U+202E>`; the bidi marks
    /// ordinary in right-to-left writing stay; `--json` escapes them; a pipe gets the text exactly.
    @Test("bidi overrides, isolates and U+2028/U+2029 in stored text are shown, not acted on, on a terminal")
    func bidiControlsAreShownOnATerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let hostile = "Paid \u{202E}0001\u{202C} euros \u{2067}isolated\u{2069} then\u{2028}line\u{2029}para \u{202A}\u{202B}\u{202D}\u{2066}\u{2068} שלום\u{200F}!"
        let id = try sandbox.add(hostile)
        let thread = try sandbox.run(["chat", "new", "--title", hostile]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", hostile]))
        let bidi: [UInt32] = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029]
        for arguments in [["show", id], ["list"], ["search", "euros"], ["chat", "list"], ["chat", "show", thread]] {
            let result = try onTerminal(sandbox, arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(!result.out.unicodeScalars.contains { bidi.contains($0.value) }, "\(arguments) sent a raw bidi control: \(result.out.debugDescription)")
            #expect(result.out.contains("Paid <U+202E>0001<U+202C> euros <U+2067>isolated<U+2069> then<U+2028>line<U+2029>para"),
                    "\(arguments): \(result.out.debugDescription)")
            #expect(result.out.contains("<U+202A><U+202B><U+202D><U+2066><U+2068> שלום\u{200F}!"), "\(arguments): the mark stays")
        }
        let json = try onTerminal(sandbox, ["show", id, "--json"])
        #expect(!json.out.unicodeScalars.contains { bidi.contains($0.value) }, "\(json.out.debugDescription)")
        #expect(json.out.contains(#"Paid \u202e0001\u202c euros \u2067isolated\u2069 then\u2028line\u2029para"#), "\(json.out.debugDescription)")
        // Piped: exactly as stored.
        #expect(try sandbox.show(id)["content"] as? String == hostile)
        #expect(try sandbox.run(["show", id]).out.contains(hostile))
    }

}

/// The pager: used only on a terminal, for output longer than the screen.
extension TerminalTests {
    /// A pager (a shell script) that records that it ran, with `$LESS`, and what it was given.
    private func pager(_ sandbox: Sandbox) throws -> (command: String, log: String) {
        let log = sandbox.folder.file("pager")
        let path = try sandbox.folder.write("pager.sh", """
            #!/bin/sh
            printf '%s' "$LESS" > '\(log).less'
            cat > '\(log).text'
            """)
        return ("/bin/sh " + path, log)
    }

    /// `jv list ARGUMENTS` on a terminal of 10 rows.
    private func listOnSmallTerminal(_ sandbox: Sandbox, _ arguments: [String], env: [String: String?]) throws -> JVResult {
        try onTerminal(sandbox, shell: "stty rows 10 cols 80; " + commandLine(sandbox, ["list"] + arguments), env: env)
    }

    @Test("list output longer than the terminal goes through $PAGER (LESS=FRX), short output, --no-pager, PAGER= and --json do not")
    func pagerForLongOutput() throws {
        let sandbox = try Sandbox()
        try LongJournal.make(sandbox, count: 40)
        let (command, log) = try pager(sandbox)
        let paged = try listOnSmallTerminal(sandbox, ["--short"], env: ["PAGER": command, "LESS": nil])
        #expect(paged.status == 0, "\(paged)")
        let given = try String(contentsOfFile: log + ".text", encoding: .utf8)
        #expect(LongJournal.numbers(in: given.split(separator: "\n").map(String.init)) == Array(0..<40), "the pager got everything: \(given)")
        #expect(try String(contentsOfFile: log + ".less", encoding: .utf8) == "FRX")
        #expect(!paged.out.contains("Title of entry 39."), "the pager, not jv, showed it: \(paged)")

        for (arguments, env) in [(["--short", "-n", "3"], ["PAGER": command]), (["--short", "--no-pager"], ["PAGER": command]),
                                 (["--short"], ["PAGER": ""]), (["--short"], ["JV_PAGER": "", "PAGER": command]), (["--json"], ["PAGER": command])] {
            try? FileManager.default.removeItem(atPath: log + ".text")
            let direct = try listOnSmallTerminal(sandbox, arguments, env: env)
            #expect(direct.status == 0 && direct.out.contains("Title of entry 39."), "\(arguments) \(env): \(direct)")
            #expect(!FileManager.default.fileExists(atPath: log + ".text"), "no pager for \(arguments) \(env)")
        }
        // Not a terminal: never.
        let piped = try sandbox.run(["list", "--short"], env: ["PAGER": command])
        #expect(piped.lines.count == 40 && !FileManager.default.fileExists(atPath: log + ".text"), "\(piped)")
    }

    // MARK: Images

    /// A vault with one entry and a photo attached; the entry's id.
    private func vaultWithAPhoto(_ sandbox: Sandbox) throws -> String {
        try sandbox.installEmptyVault()
        let entry = try sandbox.add("The view from the ridge.")
        let photo = try sandbox.folder.write("ridge.jpg", ExifImages.jpeg(taken: "2024:05:01 12:00:00", latitude: 46.5, longitude: 7.9))
        try sandbox.ok(["attach", entry, photo])
        return entry
    }

    @Test("jv show and jv attachments draw a photo's thumbnail the way the terminal answers: sixel to a DA1 with attribute 4, kitty graphics to kitty's answer, half blocks in 24-bit colour to no answer; nothing into a pipe")
    func thumbnailsFollowTheTerminalsAnswers() throws {
        let sandbox = try Sandbox()
        let entry = try vaultWithAPhoto(sandbox)
        let terminal: [String: String?] = ["TERM": "xterm-256color", "COLORTERM": "truecolor"]
        // The answers are typed ahead: the terminal holds them until jv reads them after its questions.
        let sixel = try onTerminal(sandbox, ["attachments"], typed: ["\u{1B}[?62;4c"], env: terminal)
        #expect(sixel.status == 0 && sixel.out.contains("ridge.jpg") && sixel.stdout.contains(Data("\u{1B}P".utf8)), "\(sixel)")
        #expect(sixel.stdout.contains(Data("\u{1B}[c".utf8)), "jv asks for the device attributes: \(sixel)")
        let kitty = try onTerminal(sandbox, ["show", entry], typed: ["\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;c"], env: terminal)
        #expect(kitty.status == 0 && kitty.stdout.contains(Data("\u{1B}_Ga=T".utf8)) && !kitty.stdout.contains(Data("\u{1B}P".utf8)), "\(kitty)")
        let silent = try onTerminal(sandbox, ["show", entry], env: terminal)
        #expect(silent.status == 0 && silent.out.contains("▀") && silent.stdout.contains(Data("\u{1B}[38;2;".utf8)), "\(silent)")
        let none = try onTerminal(sandbox, ["show", entry, "--no-images"], env: terminal)
        #expect(none.status == 0 && !none.out.contains("▀") && !none.stdout.contains(Data("\u{1B}[c".utf8)), "\(none)")
        // Not a terminal: not a byte of escape, not a question.
        let piped = try sandbox.run(["show", entry, "--images"], env: terminal)
        #expect(piped.status == 0 && piped.out.contains("ridge.jpg") && !piped.stdout.contains(0x1B), "\(piped)")
    }
}
