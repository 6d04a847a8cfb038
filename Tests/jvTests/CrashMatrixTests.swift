// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// SIGKILL at seeded random moments during every writing command (the crash matrix):
/// afterwards the vault opens, `jv check` (records and row-set manifest) passes, a
/// one-transaction command left the vault exactly as before or exactly as after, and after a
/// killed `passwd` or `rekey` exactly one of the old and the new passphrase… or the unchanged
/// passphrase still unlocks; and no hidden copy of the vault remains once the next command ran.
@Suite("crash matrix: kill -9 during every writing command", .tags(.e2e), .serialized)
struct CrashMatrixTests {
    /// Two entries, a chat thread with one message, a photo attached to the first (three
    /// chunks); nothing of the AI records yet.
    static let fixture = Result {
        try Fixture { sandbox in
            let alpha = try sandbox.add("Alpha entry. #one")
            let beta = try sandbox.add("Beta entry.")
            try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", "A first message."]))
            let photo = try sandbox.run(["attach", alpha, try sandbox.folder.write("photo.jpg", Data(repeating: 7, count: 2_500_000))])
            try Sandbox.requireSuccess(photo)
            return ["alpha": alpha, "beta": beta, "photo": photo.out.trimmingCharacters(in: .whitespacesAndNewlines)]
        }
    }

    static let newPassphrase = "a brand new passphrase"
    static let trialsPerCommand = 6

    /// How a killed command may have left the vault: a name for the state, read with jv itself.
    struct Scenario: Sendable {
        let name: String
        let arguments: @Sendable (Sandbox, Fixture) throws -> [String]
        var stdin: String?
        /// "before", "after", or something else (which fails the test).
        let state: @Sendable (Sandbox, Fixture) throws -> String
        /// The next ordinary command, after which no hidden copy may remain: a writing command
        /// on the vault; for a backup, the next backup to the same name (the only command that
        /// looks there).
        var next: @Sendable (Sandbox) -> [String] = { _ in ["add", "After the crash."] }
    }

    /// An attachment's text, recognisable in any file that holds it unencrypted.
    static let attachmentMarker = "Plaintext of an attached recording, never on disk in the clear. "
    static let attachmentPlaintext = Data(String(repeating: attachmentMarker, count: (8 << 20) / attachmentMarker.utf8.count).utf8)

    /// The files under the sandbox's folder and its runtime folder that contain `marker` (grep).
    static func plaintextFiles(_ sandbox: Sandbox, containing marker: String) throws -> [String] {
        guard let grep = JV.tool("grep") else { throw HarnessError("grep is not installed") }
        let found = try sandbox.runTool(grep, ["-rlF", "--", marker, sandbox.folder.path, sandbox.runtime.path])
        guard found.status <= 1 else { throw HarnessError("grep failed: \(found)") }
        return found.out.split(separator: "\n").map(String.init)
    }

    static func counts(_ sandbox: Sandbox) throws -> [String: Int] {
        let info = try sandbox.run(["info", "--json"])
        try Sandbox.requireSuccess(info)
        return try info.object()["counts"] as? [String: Int] ?? [:]
    }

    static func count(_ kind: String, before: Int, after: Int) -> @Sendable (Sandbox, Fixture) throws -> String {
        { sandbox, _ in
            switch try counts(sandbox)[kind] {
            case before: "before"
            case after: "after"
            case let other: "\(kind): \(other.map(String.init) ?? "none")"
            }
        }
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "add", arguments: { _, _ in ["add", "Written while being killed. #crash"] },
                 state: count("entries", before: 2, after: 3)),
        Scenario(name: "edit", arguments: { _, fixture in ["edit", fixture["alpha"]] }, stdin: "Alpha, edited.",
                 state: { sandbox, fixture in
                     switch try sandbox.show(fixture["alpha"])["content"] as? String {
                     case "Alpha entry. #one": "before"
                     case "Alpha, edited.": "after"
                     case let other: "content \(other ?? "none")"
                     }
                 }),
        Scenario(name: "edit of many entries", arguments: { sandbox, _ in
                     // An editor that takes a while, so that kills land while its file is open.
                     let editor = try sandbox.folder.write("editor.sh", """
                         for f in "$@"; do :; done
                         sed -i 's/Alpha entry\\./Alpha, edited together./' "$f"
                         sleep 0.3
                         """)
                     sandbox.environment["EDITOR"] = "/bin/sh " + editor
                     return ["edit", "--from", "2000-01-01", "--yes"]
                 }, state: { sandbox, fixture in
                     switch try sandbox.show(fixture["alpha"])["content"] as? String {
                     case "Alpha entry. #one": "before"
                     case "Alpha, edited together. #one": "after"
                     case let other: "content \(other ?? "none")"
                     }
                 }),
        Scenario(name: "delete", arguments: { _, fixture in ["delete", fixture["beta"], "--yes"] },
                 state: count("entries", before: 2, after: 1)),
        Scenario(name: "import (3,000 entries)", arguments: { sandbox, _ in
                     let journal = (0..<3000).map { index in
                         "[2024-\(String(format: "%02d", index % 12 + 1))-\(String(format: "%02d", index % 28 + 1)) 09:\(String(format: "%02d", index % 60)):00 AM] Imported \(index).\nBody \(index) #imported\n"
                     }.joined(separator: "\n")
                     return ["import", try sandbox.folder.write("journal.txt", journal), "--format", "jrnl-txt"]
                 }, state: count("entries", before: 2, after: 3002)),
        Scenario(name: "import with conflicts (3,000 new entries, a newer and a concurrent version)", arguments: { sandbox, fixture in
                     let alpha = try sandbox.show(fixture["alpha"])
                     let beta = try sandbox.show(fixture["beta"])
                     let fresh: [[String: Any]] = (0..<3000).map { index in
                         ["id": UUID().uuidString.lowercased(), "created_at": "2024-01-01T09:00:00.000+00:00", "content": "Imported \(index). #imported"]
                     }
                     let known: [[String: Any]] = [
                         ["id": fixture["alpha"], "created_at": alpha["created_at"] ?? "", "modified_at": "2099-01-01T00:00:00.000+00:00",
                          "content": "Alpha, imported."],
                         ["id": fixture["beta"], "created_at": beta["created_at"] ?? "", "modified_at": beta["modified_at"] ?? "",
                          "content": "Beta, another text of the same moment."],
                     ]
                     let document = try JSONSerialization.data(withJSONObject: ["format": "jv-export", "version": 1, "entries": known + fresh])
                     return ["import", try sandbox.folder.write("conflicts.json", document), "--format", "json"]
                 }, state: { sandbox, fixture in
                     // After: the newer alpha, beta as it was, its conflict copy and the new entries.
                     let state = (try counts(sandbox)["entries"], try sandbox.show(fixture["alpha"])["content"] as? String,
                                  try sandbox.show(fixture["beta"])["content"] as? String)
                     switch state {
                     case (2, "Alpha entry. #one", "Beta entry."): return "before"
                     case (3003, "Alpha, imported.", "Beta entry."): return "after"
                     case let other: return "entries, alpha, beta: \(other)"
                     }
                 }),
        Scenario(name: "attach (12 MB)", arguments: { sandbox, fixture in
                     ["attach", fixture["alpha"], try sandbox.folder.write("video.mp4", Data((0..<12_000_000).map { UInt8(truncatingIfNeeded: $0 % 251) }))]
                 },
                 state: count("attachments", before: 1, after: 2)),
        Scenario(name: "attachment delete", arguments: { _, fixture in ["attachment", "delete", "--yes", fixture["photo"]] },
                 state: count("attachments", before: 1, after: 0)),
        Scenario(name: "chat add", arguments: { _, _ in ["chat", "add", "--role", "assistant", "An answer."] },
                 state: count("messages", before: 1, after: 2)),
        Scenario(name: "analysis add", arguments: { _, fixture in ["analysis", "add", fixture["alpha"], "--model", "m", "--sentiment", "calm"] },
                 state: count("analyses", before: 0, after: 1)),
        Scenario(name: "analyze", arguments: { _, fixture in
                     ["analyze", fixture["alpha"], "--model", "m", "--command",
                      #"cat >/dev/null; echo '{"sentiment": "calm", "nodes": [{"type": "person", "name": "Anna"}], "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": "Anna"}, "type": "meets", "strength": 0.5}]}'"#]
                 }, state: { sandbox, _ in
                     let counts = try counts(sandbox)
                     switch (counts["analyses"], counts["nodes"], counts["relations"]) {
                     case (0, 0, 0): return "before"
                     case (1, 2, 1): return "after"
                     case let other: return "analyses, nodes, relations: \(other)"
                     }
                 }),
        Scenario(name: "passwd", arguments: { sandbox, _ in
                     ["passwd", "--new-passphrase-file", try sandbox.folder.write("new-passphrase.txt", newPassphrase + "\n")]
                 }, state: { sandbox, _ in
                     let old = try sandbox.run(["list"]).status == 0
                     let new = try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": sandbox.folder.file("new-passphrase.txt")]).status == 0
                     return old && !new ? "before" : new && !old ? "after" : "old passphrase opens: \(old), new: \(new)"
                 }),
        Scenario(name: "recovery-key", arguments: { _, _ in ["recovery-key"] }, state: { sandbox, fixture in
                     guard try sandbox.run(["list"]).status == 0 else { return "the passphrase no longer opens it" }
                     let keyFile = try sandbox.folder.write("recovery.txt", fixture.recoveryKey)
                     return try sandbox.run(["list", "--recovery-key-file", keyFile]).status == 0 ? "before" : "after"
                 }),
        Scenario(name: "rekey", arguments: { _, _ in ["rekey"] }, state: { sandbox, _ in
                     guard try sandbox.run(["list"]).status == 0 else { return "the passphrase no longer opens it" }
                     let info = try sandbox.run(["info", "--json"]).object()
                     switch info["key_version"] as? Int {
                     case 1: return "before"
                     case 2: return "after"
                     case let other: return "key version \(other.map(String.init) ?? "none")"
                     }
                 }),
        Scenario(name: "backup", arguments: { sandbox, _ in ["backup", sandbox.folder.file("crash.jvbak")] }, state: { sandbox, _ in
                     let backup = sandbox.folder.file("crash.jvbak")
                     guard try counts(sandbox)["entries"] == 2 else { return "the vault changed" }
                     guard FileManager.default.fileExists(atPath: backup) else { return "before" }
                     return try sandbox.run(["verify-backup", backup]).status == 0 ? "after" : "a damaged backup under its name"
                 }, next: { sandbox in ["backup", sandbox.folder.file("crash.jvbak"), "--force"] }),
        Scenario(name: "restore --force", arguments: { sandbox, _ in
                     // A backup of the vault with one more entry, restored over the vault.
                     let other = try Sandbox(from: try CrashMatrixTests.fixture.get())
                     try other.add("Only in the backup.")
                     let backup = sandbox.folder.file("restore.jvbak")
                     try Sandbox.requireSuccess(try other.run(["backup", backup]))
                     return ["restore", backup, "--force"]
                 }, state: count("entries", before: 2, after: 3)),
        Scenario(name: "backup of a vault with attachments (8 MiB more)", arguments: { sandbox, fixture in
                     // Attached first (its file removed), so that the backup streams some 10 MiB
                     // and the kills land mid-stream.
                     let file = try sandbox.folder.write("recording.m4a", attachmentPlaintext)
                     try Sandbox.requireSuccess(try sandbox.run(["attach", fixture["beta"], file]))
                     try FileManager.default.removeItem(atPath: file)
                     return ["backup", sandbox.folder.file("crash.jvbak")]
                 }, state: { sandbox, _ in
                     let backup = sandbox.folder.file("crash.jvbak")
                     guard try counts(sandbox)["attachments"] == 2 else { return "the vault changed" }
                     // Whatever the kill left, a snapshot or a backup half written, holds nothing readable.
                     let readable = try plaintextFiles(sandbox, containing: attachmentMarker)
                     guard readable.isEmpty else { return "the attachment's text readable in \(readable)" }
                     guard FileManager.default.fileExists(atPath: backup) else { return "before" }
                     return try sandbox.run(["verify-backup", backup]).status == 0 ? "after" : "a damaged backup under its name"
                 }, next: { sandbox in ["backup", sandbox.folder.file("crash.jvbak"), "--force"] }),
    ]

    @Test("a command killed at a random moment leaves the vault exactly before or after, checked clean",
          .tags(.slow), .notInQuickRun, arguments: scenarios.indices)
    func killedCommand(scenarioIndex: Int) throws {
        let scenario = Self.scenarios[scenarioIndex]
        let fixture = try Self.fixture.get()
        // How long the command takes when left alone, so the kills fall across all of it.
        let reference = try Sandbox(from: fixture)
        let arguments = try scenario.arguments(reference, fixture)
        let started = Date()
        let full = try reference.run(arguments, stdin: scenario.stdin.map { Data($0.utf8) })
        let duration = Date().timeIntervalSince(started)
        #expect(full.status == 0, "\(scenario.name) left alone: \(full)")
        #expect(try scenario.state(reference, fixture) == "after", "\(scenario.name) left alone")

        var generator = SeededGenerator(seed: UInt64(scenarioIndex) &* 7919 &+ 17)
        var seen: Set<String> = []
        for trial in 0..<Self.trialsPerCommand {
            let sandbox = try Sandbox(from: fixture)
            let arguments = try scenario.arguments(sandbox, fixture)
            // A third of the kills anywhere in the run, the rest near its end, where the commit is.
            let fraction = Double(generator.next() % 1000) / 1000
            let delay = duration * (trial % 3 == 0 ? fraction : 0.7 + 0.35 * fraction)
            let child = try sandbox.start(arguments, stdin: scenario.stdin.map { Data($0.utf8) })
            Thread.sleep(forTimeInterval: delay)
            child.kill(SIGKILL)
            _ = child.wait()
            let comment: Comment = "\(scenario.name), trial \(trial), killed after \(String(format: "%.0f", delay * 1000)) ms"
            var credential: [String: String?] = [:]
            var check = try sandbox.run(["check"])
            if check.status == 77, FileManager.default.fileExists(atPath: sandbox.folder.file("new-passphrase.txt")) {
                // A passwd that committed: the new passphrase is the one that opens it now.
                credential = ["JV_PASSPHRASE_FILE": sandbox.folder.file("new-passphrase.txt")]
                check = try sandbox.run(["check"], env: credential)
            }
            #expect(check.status == 0, "\(comment): \(check)")
            let state = try scenario.state(sandbox, fixture)
            #expect(state == "before" || state == "after", "\(comment): \(state)")
            seen.insert(state)
            // Whatever copy of the vault the killed command left, the next command removes.
            let next = try sandbox.run(scenario.next(sandbox), env: credential)
            #expect(next.status == 0, "\(comment): the next command: \(next)")
            #expect(try sandbox.leftoverCopies() == [], "\(comment)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path) == [], "\(comment): nothing left on tmpfs")
        }
        // Kills spread over the run land on both sides of the commit now and then; not required
        // (a fast command may always be killed before or after it), so only reported.
        if seen.count < 2 { print("crash matrix: \(scenario.name) was always found \(seen.first ?? "?") in \(Self.trialsPerCommand) trials") }
    }
}

extension CrashMatrixTests {
    @Test("jv edit killed with SIGKILL while the editor is open: the next jv wipes and removes the editor's file, and info and check say so")
    func killedEditLeavesNoFile() throws {
        let sandbox = try Sandbox(from: try Self.fixture.get())
        let opened = sandbox.folder.file("editor.opened")
        let editor = try sandbox.folder.write("editor.sh", """
            for f in "$@"; do :; done
            echo $$ > '\(opened).pid'
            printf '%s' "$f" > '\(opened)'
            exec sleep 30
            """)
        let child = try sandbox.start(["edit", "--from", "2000-01-01"], env: ["EDITOR": "/bin/sh " + editor])
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: opened) && Date() < deadline { usleep(10_000) }
        let path = try String(contentsOfFile: opened, encoding: .utf8)
        let link = sandbox.runtime.file("kept-link")
        try FileManager.default.linkItem(atPath: path, toPath: link)
        child.kill(SIGKILL)
        _ = child.wait()
        #expect(FileManager.default.fileExists(atPath: path), "SIGKILL cannot be caught: the file is still there")

        let info = try sandbox.run(["info"])
        #expect(info.status == 0 && info.errorLines == ["jv: removed 1 editor file that a killed jv had left in memory (\(sandbox.runtime.path), /dev/shm)."],
                "\(info)")
        #expect(!FileManager.default.fileExists(atPath: path), "the file is removed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path) == ["kept-link"], "and its folder")
        let kept = try #require(FileManager.default.contents(atPath: link))
        #expect(kept.count >= "Alpha entry.".utf8.count && kept.allSatisfy { $0 == 0 }, "its text was overwritten first")
        let check = try sandbox.run(["check"])
        #expect(check.status == 0 && check.errorLines == [], "removed once, said once: \(check)")
        try? FileManager.default.removeItem(atPath: link)
        // The editor outlived the jv that started it (SIGKILL runs no handler).
        if let pid = Int32(try String(contentsOfFile: opened + ".pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGKILL)
        }
    }
}

extension CrashMatrixTests {
    /// Attaches `content` to a new entry on `sandbox`, its file removed afterwards; the attachment's id.
    static func attach(_ sandbox: Sandbox, _ content: Data, name: String) throws -> String {
        let id = try SyncAttachmentCommandTests.attach(sandbox, content, name: name)
        try FileManager.default.removeItem(atPath: sandbox.folder.file(name))
        return id
    }

    /// Temporaries (hidden files but the removal lists and a lock) and blob files at a sync location.
    static func locationFiles(_ location: String) -> (temporaries: [String], blobs: [String]) {
        let temporaries = SyncAttachmentCommandTests.files(under: location).filter { path in
            let name = (path as NSString).lastPathComponent
            return name.hasPrefix(".") && !name.hasPrefix(".remove-") && !name.hasSuffix(".sync-lock")
        }
        return (temporaries, SyncAttachmentCommandTests.blobFiles(location))
    }

    @Test("jv sync killed at seeded moments while it sends an attachment and while it receives one: the next sync completes, check passes on both, the content arrives byte for byte",
          .tags(.slow), .notInQuickRun)
    func killedSyncMovingAttachments() throws {
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("location") })
        let (first, second) = (machines.first, machines.second)
        // How long sending and receiving 6 MiB take when left alone, so the kills fall across them.
        let reference = SyncAttachmentCommandTests.content(6 << 20, seed: 700)
        let referenceID = try Self.attach(first, reference, name: "reference.mp4")
        var started = Date()
        try Sandbox.requireSuccess(try first.run(["sync"]))
        let sending = Date().timeIntervalSince(started)
        started = Date()
        try Sandbox.requireSuccess(try second.run(["sync"]))
        let receiving = Date().timeIntervalSince(started)
        #expect(try SyncAttachmentCommandTests.get(second, referenceID) == reference)

        var generator = SeededGenerator(seed: 4099)
        var seen: [String: Set<String>] = ["sending": [], "receiving": []]
        let rounds = 3
        for round in 0..<rounds {
            let content = SyncAttachmentCommandTests.content(6 << 20, seed: 701 + UInt64(round))
            let id = try Self.attach(first, content, name: "video-\(round).mp4")
            for (side, sandbox, duration) in [("sending", first, sending), ("receiving", second, receiving)] {
                // Half the kills anywhere in the run, the rest near its end, where the commits are.
                let fraction = Double(generator.next() % 1000) / 1000
                let delay = duration * (round % 2 == 0 ? fraction : 0.7 + 0.35 * fraction)
                let child = try sandbox.start(["sync"])
                Thread.sleep(forTimeInterval: delay)
                child.kill(SIGKILL)
                _ = child.wait()
                let comment: Comment = "round \(round), \(side), killed after \(String(format: "%.0f", delay * 1000)) ms"
                let check = try sandbox.run(["check"])
                #expect(check.status == 0, "\(comment): \(check)")
                // Before: the change still to send, or the content not stored yet; after: sent, or stored.
                let state: String
                if side == "sending" {
                    let pending = try sandbox.run(["sync", "status", "--json"]).object()["pending"] as? Int
                    state = pending == 0 ? "after" : "before"
                } else {
                    state = try SyncAttachmentCommandTests.stored(sandbox, id) == true ? "after" : "before"
                }
                seen[side, default: []].insert(state)
                let next = try sandbox.run(["sync"])
                #expect(next.status == 0, "\(comment): the next sync: \(next)")
                #expect(try sandbox.run(["check"]).status == 0, "\(comment)")
                #expect(try sandbox.leftoverCopies() == [], "\(comment)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path) == [], "\(comment): nothing left on tmpfs")
                #expect(Self.locationFiles(machines.location).temporaries == [], "\(comment): no temporary left at the location")
            }
            #expect(try SyncAttachmentCommandTests.get(second, id) == content, "round \(round): the same bytes on the other machine")
            #expect(try SyncAttachmentCommandTests.stored(first, id) == true, "round \(round)")
        }
        try machines.converge()
        #expect(Self.locationFiles(machines.location).blobs.count == 1 + rounds, "one blob file per content")
        for (side, states) in seen where states.count < 2 {
            print("crash matrix: sync \(side) attachments was always found \(states.first ?? "?") in \(rounds) trials")
        }
    }
}
