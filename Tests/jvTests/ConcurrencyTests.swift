// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Several processes at once, and processes killed midway", .tags(.e2e))
struct ConcurrencyTests {
    @Test("8 jv add processes started at once all succeed and all 8 entries are listed")
    func eightConcurrentAdds() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let texts = (1...8).map { "Concurrent entry number \($0)" }
        let children = try texts.enumerated().map { index, text in
            // Half from arguments, half from standard input.
            index.isMultiple(of: 2) ? try sandbox.start(["add", text]) : try sandbox.start(["add"], stdin: Data(text.utf8))
        }
        let results = children.map { $0.wait() }
        for result in results {
            #expect(result.status == 0, "\(result)")
        }
        let ids = results.map { $0.out.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(Set(ids).count == 8)
        let entries = try sandbox.list()
        #expect(entries.count == 8)
        #expect(Set(entries.contents) == Set(texts))
        #expect(Set(entries.ids) == Set(ids))
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("readers and writers at once: adds, edits, deletes, lists and searches all succeed", .tags(.slow), .notInQuickRun)
    func mixedConcurrentCommands() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let toEdit = try sandbox.add("will be edited")
        let toDelete = try sandbox.add("will be deleted")
        let children = try [
            sandbox.start(["add", "new one"]), sandbox.start(["add", "new two", "--star"]),
            sandbox.start(["add", "--tag", "x", "new three"]), sandbox.start(["edit", toEdit], stdin: Data("edited".utf8)),
            sandbox.start(["delete", "--yes", toDelete]), sandbox.start(["list", "--json"]),
            sandbox.start(["search", "will"]), sandbox.start(["info"]), sandbox.start(["calendar", "--json"]),
        ]
        for result in children.map({ $0.wait() }) {
            #expect(result.status == 0, "\(result)")
        }
        #expect(Set(try sandbox.list().contents) == ["edited", "new one", "new two", "new three"])
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("backups beside syncs and adds: 100 backups, every one succeeds and verifies", .tags(.slow), .notInQuickRun)
    func backupsBesideSyncsAndAdds() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Before the backups. #start")
        let location = sandbox.folder.file("sync")
        try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
        try Sandbox.requireSuccess(try sandbox.run(["sync", "init", location]))
        // Through a session, so that the 100 backups cost no Argon2 each.
        try Sandbox.requireSuccess(try sandbox.run(["unlock"]))
        defer { _ = try? sandbox.run(["lock"]) }
        var backups: [String] = []
        for round in 0..<20 {
            // Each writing process removes the temporaries other processes abandoned as it opens the
            // vault: a backup's snapshot, which it is writing at that moment, must not be taken for one.
            let others = try [sandbox.start(["sync"]), sandbox.start(["add", "Added in round \(round)"])]
            let started = try (0..<5).map { index in
                let path = sandbox.folder.file("backup-\(round)-\(index).jvb")
                backups.append(path)
                return try sandbox.start(["backup", path])
            }
            for result in started.map({ $0.wait() }) {
                #expect(result.status == 0, "round \(round): \(result)")
            }
            for result in others.map({ $0.wait() }) {
                #expect(result.status == 0, "round \(round): \(result)")
            }
        }
        #expect(backups.count == 100)
        let last = try #require(backups.last)
        #expect(try sandbox.run(["verify-backup", last]).status == 0)
        #expect(try sandbox.hiddenFiles(in: (sandbox.vault as NSString).deletingLastPathComponent).isEmpty)
    }

    @Test("two inits at once on one path: exactly one succeeds, the other exits 73, and the vault works")
    func concurrentInits() throws {
        let sandbox = try Sandbox()
        let other = try sandbox.folder.write("other.txt", "another passphrase\n")
        let first = try sandbox.start(["init", "--kdf", "interactive"])
        let second = try sandbox.start(["init", "--kdf", "interactive"], env: ["JV_PASSPHRASE_FILE": other])
        let results = [first.wait(), second.wait()]
        #expect(results.map(\.status).sorted() == [0, 73], "\(results)")
        let winner = results[0].status == 0 ? sandbox.passphraseFile : other
        let added = try sandbox.run(["add", "after the race"], env: ["JV_PASSPHRASE_FILE": winner])
        #expect(added.status == 0, "\(added)")
        #expect(try sandbox.run(["check"], env: ["JV_PASSPHRASE_FILE": winner]).status == 0)
    }

    @Test("an init killed at any moment leaves no half-made vault: the path is empty or holds a working vault", .tags(.slow), .notInQuickRun)
    func killedInit() throws {
        let sandbox = try Sandbox()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5 {
            let vault = sandbox.folder.file("round-\(round)/journal.vault")
            let child = try sandbox.start(["init", "--kdf", "interactive"], env: ["JV_VAULT": vault])
            usleep(UInt32(round * 30_000) + UInt32.random(in: 0..<30_000, using: &generator))
            child.kill(SIGKILL)
            let killed = child.wait()
            let info = try sandbox.run(["info"], env: ["JV_VAULT": vault])
            if FileManager.default.fileExists(atPath: vault) {
                #expect(info.status == 0, "round \(round): \(killed)\n\(info)")
                #expect(try sandbox.run(["list"], env: ["JV_VAULT": vault]).status == 0)
            } else {
                #expect(info.status == 66, "round \(round): \(info)")
                let again = try sandbox.run(["init", "--kdf", "interactive"], env: ["JV_VAULT": vault])
                #expect(again.status == 0, "a retry works after a killed init: \(again)")
                #expect(try sandbox.run(["add", "retried"], env: ["JV_VAULT": vault]).status == 0)
            }
        }
    }

    @Test("kill -9 at random moments: the vault passes check and holds every entry whose command finished", .tags(.slow), .notInQuickRun)
    func killedMidway() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let editTarget = try sandbox.add("original text of the edited entry")
        var editTexts: Set<String> = ["original text of the edited entry"]
        var finished: [String: String] = [:]      // id → text, for adds that exited 0
        var sent: Set<String> = []                // every text any add was given
        var generator = SystemRandomNumberGenerator()
        var log: [String] = []

        for round in 0..<6 {
            // ~40 KB; no white space at the ends, which jv trims.
            let filler = String(repeating: "lorem ipsum dolor sit amet ", count: 1_500) + "end"
            let texts = (0..<3).map { "round \(round) add \($0) " + filler }
            sent.formUnion(texts)
            let editText = "round \(round) edit " + filler
            editTexts.insert(editText)
            let adds = try texts.map { try sandbox.start(["add"], stdin: Data($0.utf8)) }
            let edit = try sandbox.start(["edit", editTarget], stdin: Data(editText.utf8))
            // Kill one add and the edit at moments spread over a command's life (startup, KDF, write).
            let delay = UInt32(round * 40_000) + UInt32.random(in: 0..<40_000, using: &generator)
            usleep(delay)
            let victim = Int.random(in: 0..<3, using: &generator)
            adds[victim].kill(SIGKILL)
            edit.kill(SIGKILL)
            for (index, child) in adds.enumerated() {
                let result = child.wait()
                log.append("round \(round) add \(index): \(result.signal.map { "signal \($0)" } ?? "exit \(result.status)") after \(delay / 1000) ms")
                if result.status == 0 {
                    finished[result.out.trimmingCharacters(in: .whitespacesAndNewlines)] = texts[index]
                } else if index != victim {
                    Issue.record("an add that was not killed failed: \(result)")
                }
            }
            _ = edit.wait()
        }

        let check = try sandbox.run(["check"])
        #expect(check.status == 0, "\(check)\n\(log.joined(separator: "\n"))")
        let entries = try sandbox.list()
        let stored = Dictionary(uniqueKeysWithValues: zip(entries.ids, entries.contents))
        let report = log.joined(separator: "\n")
        for (id, text) in finished {
            let present = stored[id] != nil, intact = stored[id] == text
            #expect(present && intact, "finished add \(id): present \(present), intact \(intact)\n\(report)")
        }
        // Nothing half-written: every entry is a whole text that was sent (or the edited one).
        for (id, content) in stored where id != editTarget {
            let whole = sent.contains(content)
            #expect(whole, "entry \(id) holds text nobody sent completely (\(content.prefix(40))…)")
        }
        let edited = try #require(stored[editTarget], "the edited entry survives")
        let wholeEdit = editTexts.contains(edited)
        #expect(wholeEdit, "the edited entry holds a whole old or new text (\(edited.prefix(40))…)")
        #expect(entries.count == stored.count)
        #expect(entries.count >= finished.count + 1)
        #expect(entries.count <= 6 * 3 + 1)
    }
}
