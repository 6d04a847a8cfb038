// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv edit --from/--to/--on/--tag`: several entries in $EDITOR as jrnl text, saved in one
/// transaction. The editor is a shell script that changes the file with sed.
@Suite("jv edit over several entries", .tags(.e2e))
struct MultiEditTests {
    /// January's three entries (the first starred, with an explicit tag) and one in February.
    private static let journal = Result {
        try Fixture { sandbox in
            [
                "first": try sandbox.add("First entry of January.", ["--at", "2026-01-05 09:00", "--star", "--tag", "keep"]),
                "second": try sandbox.add("Second entry.", ["--at", "2026-01-10 09:00"]),
                "third": try sandbox.add("Third entry, to go.", ["--at", "2026-01-15 09:00"]),
                "february": try sandbox.add("February stays out.", ["--at", "2026-02-01 09:00"]),
            ]
        }
    }

    private let january = ["--from", "2026-01-01", "--to", "2026-01-31"]

    /// An editor that copies the file it is given to `editor.before` in the sandbox, then runs
    /// `commands` with the file's path in `$f`.
    private func editor(_ sandbox: Sandbox, _ commands: String) throws -> [String: String?] {
        let script = try sandbox.folder.write("editor.sh", """
            #!/bin/sh
            for f in "$@"; do :; done
            cp "$f" '\(sandbox.folder.file("editor.before"))'
            \(commands)
            """)
        // Run through sh: a file just written cannot be executed while another test's fork holds it open (ETXTBSY).
        return ["EDITOR": "/bin/sh " + script, "VISUAL": nil]
    }

    private func checkPasses(_ sandbox: Sandbox) throws {
        let check = try sandbox.run(["check", "--json"])
        #expect(check.status == 0, "\(check)")
        #expect(try check.object()["ok"] as? Bool == true, "\(check)")
    }

    private func marker(_ id: String) -> String { "{jv:" + id.prefix(8) + "}" }

    @Test("two texts and a date changed, one entry deleted with --yes, one added: one summary, tags and star kept, check passes")
    func changeDeleteAndAdd() throws {
        let fixture = try Self.journal.get()
        let sandbox = try Sandbox(from: fixture)
        let env = try editor(sandbox, """
            sed -i -e 's/First entry of January\\./First entry, rewritten./' \
                   -e 's/^\\[2026-01-10 09:00\\] \\(.*\\) Second entry\\./[2026-01-12 18:30] \\1 Second entry, moved./' \
                   -e '/Third entry/d' "$f"
            printf '\\n[2026-01-20 10:00] A new entry #added\\nwith a second line.\\n' >> "$f"
            """)
        let result = try sandbox.run(["edit", "--json", "--yes"] + january, env: env)
        #expect(result.status == 0, "\(result)")
        let summary = try result.object()
        #expect(summary["changed"] as? Int == 2 && summary["added"] as? Int == 1 && summary["deleted"] as? Int == 1, "\(result)")
        #expect(summary["deleted_ids"] as? [String] == [fixture["third"]])

        let before = try String(contentsOfFile: sandbox.folder.file("editor.before"), encoding: .utf8)
        #expect(before == """
            [2026-01-05 09:00] \(marker(fixture["first"])) First entry of January.

            [2026-01-10 09:00] \(marker(fixture["second"])) Second entry.

            [2026-01-15 09:00] \(marker(fixture["third"])) Third entry, to go.

            """)

        let entries = try sandbox.list()
        #expect(entries.contents == ["First entry, rewritten.", "Second entry, moved.", "A new entry #added\nwith a second line.",
                                     "February stays out."])
        #expect(entries.ids[0] == fixture["first"] && entries.ids[1] == fixture["second"] && entries.ids[3] == fixture["february"])
        #expect(entries.ids[2] == (summary["added_ids"] as? [String])?.first)
        #expect(entries.map { $0["created_at"] as? String } == ["2026-01-05T09:00:00.000+00:00", "2026-01-12T18:30:00.000+00:00",
                                                                "2026-01-20T10:00:00.000+00:00", "2026-02-01T09:00:00.000+00:00"])
        #expect(entries[0]["starred"] as? Bool == true && entries[0]["tags"] as? [String] == ["keep"], "untouched metadata survives")
        #expect(entries[2]["tags"] as? [String] == ["added"])
        try checkPasses(sandbox)

        // Adding alone needs no confirmation, even without a terminal.
        let add = try sandbox.run(["edit", "--on", "2026-02-01"],
                                  env: try editor(sandbox, "printf '\\n[2026-02-02 08:00] Another one.\\n' >> \"$f\""))
        #expect(add.status == 0, "\(add)")
        #expect(add.errorLines == ["0 changed, 1 added, 0 deleted."], "\(add)")
        #expect(try sandbox.list(["--on", "2026-02-02"]).contents == ["Another one."])
        try checkPasses(sandbox)
    }

    @Test("--tag chooses the entries; a file saved unchanged changes nothing and says so")
    func unchangedFile() throws {
        let fixture = try Self.journal.get()
        let sandbox = try Sandbox(from: fixture)
        let before = try sandbox.list()
        let env = try editor(sandbox, "true")
        let result = try sandbox.run(["edit", "--tag", "keep"], env: env)
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines == ["No changes."], "\(result)")
        #expect(try String(contentsOfFile: sandbox.folder.file("editor.before"), encoding: .utf8)
                    == "[2026-01-05 09:00] \(marker(fixture["first"])) First entry of January.\n")
        let json = try sandbox.run(["edit", "--json"] + january, env: env)
        let summary = try json.object()
        #expect(summary["changed"] as? Int == 0 && summary["added"] as? Int == 0 && summary["deleted"] as? Int == 0, "\(json)")
        #expect(NSArray(array: try sandbox.list()).isEqual(to: before), "modified_at and all else unchanged")
    }

    @Test("an entry whose lines end in CRLF, saved unchanged, is not changed: no write, modified time kept")
    func unchangedCRLFEntry() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Title ended by CRLF\r\nSecond line.\r\nThird.", ["--at", "2026-01-20 09:00"])
        let before = try sandbox.list()
        let result = try sandbox.run(["edit", "--on", "2026-01-20"], env: try editor(sandbox, "true"))
        #expect(result.status == 0 && result.errorLines == ["No changes."], "\(result)")
        #expect(NSArray(array: try sandbox.list()).isEqual(to: before), "content and modified_at unchanged")
    }

    @Test("an ambiguous, malformed or oversized edit is refused (65) and changes nothing; without a terminal the text is kept on tmpfs",
          arguments: [
        ("unknown marker", "sed -i '1s/{jv:[0-9a-f]*}/{jv:00000000}/' \"$f\"", "is not the marker of an entry being edited"),
        ("duplicated marker", "sed -n 1p \"$f\" >> \"$f\"", "was already at line 1"),
        ("bad header date", "sed -i '3s/^\\[2026-01-10/[2026-13-10/' \"$f\"", "is not of the form [YYYY-MM-DD HH:MM]"),
        ("text before the first header", "sed -i '1i Dear diary,' \"$f\"", "there is text before the first header"),
        ("text over the limit", "head -c 50001 /dev/zero | tr '\\0' a >> \"$f\"", "Line 5 of the edited text: The text has"),
    ])
    func malformedEditsAreRefused(what: String, commands: String, says: String) throws {
        let sandbox = try Sandbox(from: try Self.journal.get())
        let before = try sandbox.list()
        let result = try sandbox.run(["edit", "--yes"] + january, env: try editor(sandbox, "sed -i 's/Second entry/Second, typed/' \"$f\"\n" + commands))
        #expect(result.status == 65, "\(what): \(result)")
        #expect(result.errorLines.count == 1 && result.err.contains(says) && result.err.contains("Nothing was saved"), "\(what): \(result)")
        #expect(NSArray(array: try sandbox.list()).isEqual(to: before), "\(what)")
        // What was typed is not lost: it is kept, private and in memory, where the error says.
        let kept = try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path)
        #expect(kept.count == 1 && kept[0].hasPrefix("jv-refused-") && result.err.contains(sandbox.runtime.file(kept.first ?? "")), "\(what): \(kept)")
        let path = sandbox.runtime.file(kept.first ?? "")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("Second, typed"), "\(what)")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600, "\(what)")
    }

    @Test("SIGTERM to jv while an editor started by a wrapper script is open ends that editor too: nothing writes the file afterwards")
    func wrappedEditorEndsWithJV() throws {
        let sandbox = try Sandbox(from: try Self.journal.get())
        let log = sandbox.folder.file("editor")
        // The wrapper runs the editor as its child (no exec), as many wrappers do; the editor
        // reports itself, waits, then saves.
        let real = try sandbox.folder.write("real-editor.sh", """
            for f in "$@"; do :; done
            printf '%s' "$f" > '\(log).path'
            echo $$ > '\(log).pid'
            sleep 1
            printf 'Written after jv ended\\n' > "$f"
            """)
        let wrapper = try sandbox.folder.write("wrapper.sh", "/bin/sh '\(real)' \"$@\"\nexit $?\n")
        let child = try sandbox.start(["edit"] + january, env: ["EDITOR": "/bin/sh " + wrapper, "VISUAL": nil])
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: log + ".pid") && Date() < deadline { usleep(10_000) }
        Thread.sleep(forTimeInterval: 0.1)
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.signal == SIGTERM || result.status == 128 + SIGTERM, "\(result)")
        let path = try String(contentsOfFile: log + ".path", encoding: .utf8)
        let pid = try #require(Int32(try String(contentsOfFile: log + ".pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Longer than the editor would have waited before saving.
        Thread.sleep(forTimeInterval: 1.5)
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
        #expect(state == nil || state == "Z", "the wrapped editor was ended with jv")
        #expect(!FileManager.default.fileExists(atPath: path), "nothing wrote the editor's file after jv removed it")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path) == [])
        kill(pid, SIGKILL)
    }

    @Test("deleting without --yes and without a terminal is refused (64) and changes nothing")
    func deletingNeedsConfirmation() throws {
        let fixture = try Self.journal.get()
        let sandbox = try Sandbox(from: fixture)
        let before = try sandbox.list()
        let env = try editor(sandbox, "sed -i -e '/Third entry/d' -e 's/Second entry/Second entry, changed/' \"$f\"")
        let result = try sandbox.run(["edit"] + january, env: env)
        #expect(result.status == 64, "\(result)")
        #expect(result.err.contains("would delete 1 entry") && result.err.contains("--yes"), "\(result)")
        #expect(NSArray(array: try sandbox.list()).isEqual(to: before))
    }

    @Test("an id and the options that choose entries do not mix; nothing chosen is said", arguments: [
        (["edit"], "Give an entry's id"),
        (["edit", "--from", "2026-01-01", "--star"], "change one entry"),
        (["edit", "--on", "2026-01-05", "--at", "2026-01-06"], "change one entry"),
        (["edit", "abcd", "--from", "2026-01-01"], "without an id"),
    ])
    func usage(arguments: [String], says: String) throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(arguments)
        #expect(result.status == 64 && result.err.contains(says), "\(result)")
    }

    @Test("no entry chosen: nothing to edit, and the editor is not opened")
    func nothingChosen() throws {
        let sandbox = try Sandbox(from: try Self.journal.get())
        let result = try sandbox.run(["edit", "--on", "2025-12-25"], env: try editor(sandbox, "true"))
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines == ["No entries match; nothing to edit."], "\(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder.file("editor.before")))
    }
}
