// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `jv rekey` as a user runs it, and the warning for a vault file replaced by an older copy.
@Suite(.tags(.e2e)) struct RekeyCommandTests {
    @Test("jv rekey re-encrypts everything, keeps the passphrase, prints a new recovery key once, and check passes")
    func rekeyFromTheCommandLine() throws {
        let sandbox = try Sandbox()
        let oldRecoveryKey = try sandbox.initVault()
        let first = try sandbox.add("Before the rotation. #keys")
        try sandbox.run(["chat", "add", "--role", "user", "A chat message."])
        let contentBefore = try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(first)'")
        let result = try sandbox.run(["rekey", "--json"])
        #expect(result.status == 0, "\(result)")
        let summary = try result.object()
        #expect(summary["key_version"] as? Int == 2)
        let newRecoveryKey = try #require(summary["recovery_key"] as? String)
        #expect(newRecoveryKey.hasPrefix("JVR1-") && newRecoveryKey != oldRecoveryKey)
        #expect(try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(first)'") != contentBefore)
        #expect(try sandbox.show(first)["content"] as? String == "Before the rotation. #keys", "the passphrase still opens it")
        #expect(try sandbox.run(["list", "--tag", "keys", "--json"]).array().count == 1)
        #expect(try sandbox.run(["check"]).status == 0)

        let oldKeyFile = try sandbox.folder.write("old.key", oldRecoveryKey)
        let newKeyFile = try sandbox.folder.write("new.key", newRecoveryKey)
        let byOld = try sandbox.run(["list", "--recovery-key-file", oldKeyFile])
        #expect(byOld.status == 77, "the old recovery key opens nothing: \(byOld)")
        #expect(try sandbox.run(["list", "--recovery-key-file", newKeyFile]).status == 0)

        // Keeping the recovery key: none printed, the same one still opens it.
        let kept = try sandbox.run(["rekey", "--keep-recovery-key", newKeyFile])
        #expect(kept.status == 0, "\(kept)")
        #expect(!kept.out.contains("JVR1-"), "\(kept)")
        #expect(try sandbox.run(["list", "--recovery-key-file", newKeyFile]).status == 0)
        // Unlocked with the recovery key, rekey asks for the passphrase instead (64), changing nothing.
        let refused = try sandbox.run(["rekey", "--recovery-key-file", newKeyFile], env: ["JV_PASSPHRASE_FILE": nil])
        #expect(refused.status == 64 && refused.errorLines.count == 1, "\(refused)")
        #expect(try sandbox.sqlite("SELECT key_version FROM vault_header") == "3")
    }

    /// The new recovery key is printed before the rotation commits (the rule for keys a
    /// person must hold): a kill at any moment, or an output that cannot be written, leaves a
    /// recovery key the person holds opening the vault.
    @Test("rekey killed at any moment, or unable to print: the old recovery key or the one printed opens the vault", .tags(.slow), .notInQuickRun)
    func killedRekeyLeavesARecoveryKeyThePersonHolds() throws {
        let fixture = try Fixture { sandbox in ["id": try sandbox.add("Rotated under kills.")] }
        let failing = try Sandbox(from: fixture)
        let full = try failing.runTool("/bin/sh", ["-c", #""$JVT_JV" rekey > /dev/full"#], env: ["JVT_JV": failing.binary])
        #expect(full.status != 0, "\(full)")
        #expect(try failing.sqlite("SELECT key_version FROM vault_header") == "1", "nothing committed")
        let reference = try Sandbox(from: fixture)
        let started = Date()
        try Sandbox.requireSuccess(try reference.run(["rekey"]))
        let duration = Date().timeIntervalSince(started)
        var generator = SeededGenerator(seed: 777)
        for trial in 0..<10 {
            let sandbox = try Sandbox(from: fixture)
            let delay = duration * (0.6 + 0.5 * Double(generator.next() % 1000) / 1000)
            let child = try sandbox.start(["rekey"])
            Thread.sleep(forTimeInterval: delay)
            child.kill(SIGKILL)
            let killed = child.wait()
            let printed = killed.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("JVR1-") }
            let opens = try ([fixture.recoveryKey] + printed).contains { key in
                let file = try sandbox.folder.write("held.key", key + "\n")
                return try sandbox.run(["list", "--recovery-key-file", file], env: ["JV_PASSPHRASE_FILE": nil]).status == 0
            }
            #expect(opens, "trial \(trial), killed after \(Int(delay * 1000)) ms: no recovery key the person holds opens the vault")
        }
    }

    @Test("jv help rekey says what happens to the recovery key")
    func helpNamesTheRecoveryKeyRule() throws {
        let sandbox = try Sandbox()
        let help = try sandbox.run(["help", "rekey"])
        let words = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("--keep-recovery-key") && words.contains("a new recovery key is printed once"), "\(help)")
    }

    /// The mark is written when it moves: a reading command changes no file of the account's
    /// (and waits for no disk), a writing one moves the mark.
    @Test("reading commands leave the high-water file as it is; writing ones move it")
    func highWaterFileIsWrittenOnlyWhenItMoves() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("First.")
        let marks = sandbox.home + "/.local/state/jv/high-water"
        let written = try String(contentsOfFile: marks, encoding: .utf8)
        let stamp = try #require(try FileManager.default.attributesOfItem(atPath: marks)[.modificationDate] as? Date)
        Thread.sleep(forTimeInterval: 0.02)
        for reading in [["list"], ["search", "first"], ["check"], ["info"]] {
            #expect(try sandbox.run(reading).status == 0)
        }
        #expect(try FileManager.default.attributesOfItem(atPath: marks)[.modificationDate] as? Date == stamp)
        try sandbox.add("Second.")
        #expect(try String(contentsOfFile: marks, encoding: .utf8) != written, "a write moves the mark")
    }

    @Test("a vault file replaced by an older copy of itself is warned about once; a restored backup is not")
    func wholeFileRollbackIsWarnedAbout() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("First.")
        let oldCopy = sandbox.folder.file("old.vault")
        #expect(try sandbox.run(["list"]).status == 0)
        try FileManager.default.copyItem(atPath: sandbox.vault, toPath: oldCopy)
        let backup = sandbox.folder.file("old.jvbak")
        #expect(try sandbox.run(["backup", backup]).status == 0)
        try sandbox.add("Second.")
        try sandbox.add("Third.")
        try FileManager.default.removeItem(atPath: sandbox.vault)
        try FileManager.default.copyItem(atPath: oldCopy, toPath: sandbox.vault)

        let warned = try sandbox.run(["list"])
        #expect(warned.status == 0, "a warning, not a refusal: \(warned)")
        #expect(warned.err.contains("older copy"), "\(warned)")
        #expect(!(try sandbox.run(["list"]).err.contains("older copy")), "shown once")

        // Moving forward again, then restoring the old backup on purpose: no warning.
        try sandbox.add("Fourth.")
        try sandbox.add("Fifth.")
        #expect(try sandbox.run(["restore", backup, "--force"]).status == 0)
        let afterRestore = try sandbox.run(["list"])
        #expect(afterRestore.status == 0 && !afterRestore.err.contains("older copy"), "\(afterRestore)")
    }

    @Test("checks and adds racing a rekey's commit read and write under the key of one snapshot: no false problem, no failed add", .tags(.slow), .notInQuickRun)
    func readersAndWritersRacingRekey() throws {
        let sandbox = try Sandbox()
        // Argon2 of the moderate cost (≈0.4 s) lies between a racer's reading of the keyslots and
        // of the records: one started while the rekey re-encrypts reads its keys before the
        // commit and its records after it.
        try sandbox.initVault(kdf: "moderate")
        let journal = (0..<40).map { "[2026-01-\(String(format: "%02d", $0 % 28 + 1)) 10:\(String(format: "%02d", $0))] Entry \($0)\nBody of entry \($0).\n" }
        try Sandbox.requireSuccess(try sandbox.run(["import", try sandbox.folder.write("journal.txt", journal.joined(separator: "\n")),
                                                    "--format", "jrnl-txt"]))
        var added = 0
        for round in 0..<6 {
            let rekey = try sandbox.start(["rekey"])
            var racers: [(String, ChildProcess)] = []
            for delay in [0.15, 0.25, 0.35, 0.45] {
                Thread.sleep(forTimeInterval: delay - (racers.isEmpty ? 0 : 0.1))
                racers.append(round.isMultiple(of: 2) == (racers.count.isMultiple(of: 2))
                              ? ("check", try sandbox.start(["check"])) : ("add", try sandbox.start(["add", "Added in round \(round)"])))
            }
            #expect(rekey.wait().status == 0)
            for (command, racer) in racers {
                let result = racer.wait()
                #expect(result.status == 0, "\(command) in round \(round): \(result)")
                if command == "add", result.status == 0 { added += 1 }
            }
        }
        #expect(try sandbox.sqlite("SELECT key_version FROM vault_header") == "7")
        #expect(try sandbox.list().count == 40 + added)
        #expect(added == 12)
        #expect(try sandbox.run(["check"]).status == 0)
    }
}
