// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv backup`, `jv verify-backup` and `jv restore` as a person runs them (README, README
/// "Backups"): round trips, and every refusal leaving nothing behind where the restore was going.
@Suite("jv backup, verify-backup and restore", .tags(.e2e))
struct BackupCommandTests {
    // MARK: Round trips

    @Test("backup, restore elsewhere: the same export; backup --json has the documented shape; files are 0600")
    func backupRestoreRoundTrip() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try bcmdPopulate(sandbox)
        let backup = sandbox.folder.file("journal.jvbak")
        let made = try sandbox.run(["backup", "--json", backup])
        #expect(made.status == 0, "\(made)")
        let summary = try made.object()
        #expect(Set(summary.keys) == ["path", "vault_id", "backup_created_at", "bytes", "counts"])
        #expect(summary["path"] as? String == backup)
        let counts = try #require(summary["counts"] as? [String: Int])
        #expect(counts["entries"] == 4 && counts["threads"] == 1 && counts["messages"] == 2 && counts["analyses"] == 1)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: backup)[.size] as? Int)
        #expect(summary["bytes"] as? Int == size)
        #expect(try bcmdMode(backup) == 0o600)
        let info = try sandbox.run(["info", "--json"], env: ["JV_PASSPHRASE_FILE": nil]).object()
        #expect(summary["vault_id"] as? String == info["vault_id"] as? String)

        let target = sandbox.folder.file("elsewhere/restored.vault")
        let restored = try sandbox.run(["restore", "--json", backup, "--to", target])
        #expect(restored.status == 0, "\(restored)")
        #expect(try restored.object()["vault_id"] as? String == info["vault_id"] as? String)
        #expect(try bcmdMode(target) == 0o600)
        let original = try bcmdExport(sandbox)
        let copy = try bcmdExport(sandbox, vault: target)
        #expect(original == copy)
        #expect((original["entries"] as? [Any])?.count == 4)
        let check = try sandbox.run(["check", "--vault", target])
        #expect(check.status == 0, "\(check)")
    }

    @Test("a backup restores with the recovery key from jv init --json, given by --recovery-key-file")
    func restoreWithRecoveryKey() throws {
        let sandbox = try Sandbox()
        let recoveryKey = try sandbox.initVault()
        try bcmdPopulate(sandbox)
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        let keyFile = try sandbox.folder.write("recovery.txt", recoveryKey + "\n")
        let target = sandbox.folder.file("restored/journal.vault")
        // No passphrase anywhere: only the recovery key.
        let noPassphrase: [String: String?] = ["JV_PASSPHRASE_FILE": nil]
        let verified = try sandbox.run(["verify-backup", "--recovery-key-file", keyFile, backup], env: noPassphrase)
        #expect(verified.status == 0, "\(verified)")
        let restored = try sandbox.run(["restore", "--recovery-key-file", keyFile, backup, "--to", target], env: noPassphrase)
        #expect(restored.status == 0, "\(restored)")
        #expect(try bcmdExport(sandbox, vault: target) == (try bcmdExport(sandbox)))
        // The restored vault opens with the recovery key too.
        let listed = try sandbox.run(["list", "--json", "--vault", target, "--recovery-key-file", keyFile], env: noPassphrase)
        #expect(listed.status == 0, "\(listed)")
        #expect(try listed.array().count == 4, "\(listed)")
        // Another vault's (well-formed) recovery key: 77, and nothing restored.
        let otherSandbox = try Sandbox()
        let otherKey = try sandbox.folder.write("other.txt", try otherSandbox.initVault() + "\n")
        let wrong = try sandbox.run(["restore", "--recovery-key-file", otherKey, backup, "--to", sandbox.folder.file("restored/second.vault")],
                                    env: noPassphrase)
        #expect(wrong.status == 77, "\(wrong)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder.file("restored/second.vault")))
    }

    @Test("verify-backup succeeds, reports the counts and writes nothing anywhere (scratch included)")
    func verifyWritesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try bcmdPopulate(sandbox)
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        // Scratch files go to $XDG_RUNTIME_DIR (the sandbox's own, on tmpfs).
        let runtime = sandbox.runtime.path
        let before = try bcmdListing(sandbox.folder.path)
        let result = try sandbox.run(["verify-backup", "--json", backup], env: ["XDG_RUNTIME_DIR": runtime])
        #expect(result.status == 0, "\(result)")
        #expect((try result.object()["counts"] as? [String: Int])?["entries"] == 4)
        let after = try bcmdListing(sandbox.folder.path)
        #expect(after == before, "changed: \(Set(after).symmetricDifference(before).sorted())")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
        // Without --json: one line saying so.
        let plain = try sandbox.run(["verify-backup", backup], env: ["XDG_RUNTIME_DIR": runtime])
        #expect(plain.status == 0 && plain.out.contains("4 entries"), "\(plain)")
    }

    @Test("backup never replaces an existing file without --force (73); with --force it does")
    func backupRefusesToOverwrite() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("First.")
        let backup = try sandbox.folder.write("existing.jvbak", "not a backup, but mine")
        let refused = try sandbox.run(["backup", backup])
        #expect(refused.status == 73, "\(refused)")
        #expect(try String(contentsOfFile: backup, encoding: .utf8) == "not a backup, but mine")
        let forced = try sandbox.run(["backup", "--force", backup])
        #expect(forced.status == 0, "\(forced)")
        #expect(try sandbox.run(["verify-backup", backup]).status == 0)
    }

    @Test("a missing backup file: exit 66")
    func missingBackup() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let result = try sandbox.run(["verify-backup", sandbox.folder.file("nothing.jvbak")])
        #expect(result.status == 66, "\(result)")
        let restore = try sandbox.run(["restore", sandbox.folder.file("nothing.jvbak"), "--to", sandbox.folder.file("r.vault")])
        #expect(restore.status == 66, "\(restore)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder.file("r.vault")))
    }

    // MARK: Refusals: nothing written at the target

    @Test("wrong passphrase: 77, and nothing is written at the target, new or existing")
    func wrongPassphrase() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("Secret.")
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        let wrong = try sandbox.folder.write("wrong.txt", "not the passphrase\n")
        let target = try bcmdTarget(sandbox)
        for arguments in [["verify-backup", backup], ["restore", backup, "--to", target.fresh], ["restore", backup, "--to", target.existing, "--force"]] {
            let result = try sandbox.run(arguments, env: ["JV_PASSPHRASE_FILE": wrong])
            #expect(result.status == 77, "\(result)")
            #expect(result.errorLines.count == 1, "\(result)")
            try target.expectUntouched("\(arguments)")
        }
    }

    @Test("damaged backups (body flips, truncations incl. at chunk boundaries, appended byte, swapped or duplicated chunks, spliced header) are refused with 65 and nothing written", .tags(.slow), .notInQuickRun)
    func damagedBackupsAreRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try bcmdImportLargeJournal(sandbox)
        let backupA = sandbox.folder.file("a.jvbak"), backupB = sandbox.folder.file("b.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backupA]))
        try Sandbox.requireSuccess(try sandbox.run(["backup", backupB]))
        let a = try Data(contentsOf: URL(fileURLWithPath: backupA)), b = try Data(contentsOf: URL(fileURLWithPath: backupB))
        // Backup format 2 (FORMAT.md §8): no stream header, chunks of 65,536 + 16 bytes.
        let h = 39 + Int(a[38]) * 108 + 24 + 48 + 32 + 32
        let chunk = 65_552
        let fullChunks = (a.count - h - 1) / chunk
        #expect(fullChunks >= 4, "the body must have at least 3 full chunks and more after them (\(a.count) bytes)")
        #expect(a.count == b.count && a != b)
        func chunkData(_ index: Int) -> Data { a[(h + index * chunk)..<(h + (index + 1) * chunk)] }
        func flip(_ offset: Int) -> Data {
            var copy = a
            copy[offset] ^= 0x20
            return copy
        }
        let cases: [(String, Data)] = [
            ("body byte 0 flipped", flip(h)),
            ("body byte in chunk 1 flipped", flip(h + 1000)),
            ("tag of chunk 1 flipped", flip(h + chunk - 3)),
            ("body byte in chunk 3 flipped", flip(h + 2 * chunk + 4321)),
            ("last byte flipped", flip(a.count - 1)),
            ("truncated inside chunk 2", a.prefix(h + chunk + 777)),
            ("truncated exactly at the end of chunk 1", a.prefix(h + chunk)),
            ("truncated exactly at the end of chunk 3", a.prefix(h + 3 * chunk)),
            ("truncated by one byte", a.dropLast()),
            ("truncated to the header", a.prefix(h)),
            ("one byte appended", a + Data([0x0a])),
            ("chunks 1 and 2 swapped", a.prefix(h) + chunkData(1) + chunkData(0) + a[(h + 2 * chunk)...]),
            ("chunk 2 duplicated", a.prefix(h + 2 * chunk) + chunkData(1) + a[(h + 2 * chunk)...]),
            ("header of A on the body of B", a.prefix(h) + b[h...]),
        ]
        let target = try bcmdTarget(sandbox)
        for (what, data) in cases {
            let path = try sandbox.folder.write("damaged.jvbak", data)
            for arguments in [["verify-backup", path], ["restore", path, "--to", target.fresh], ["restore", path, "--to", target.existing, "--force"]] {
                let result = try sandbox.run(arguments)
                #expect(result.status == 65, "\(what): \(result)")
                #expect(result.errorLines.count == 1 && result.errorLines.first?.hasPrefix("jv: ") == true, "\(what): \(result)")
                try target.expectUntouched(what)
            }
        }
        // The originals are fine.
        for path in [backupA, backupB] { #expect(try sandbox.run(["verify-backup", path]).status == 0) }
    }

    @Test("header bytes flipped (magic, format, slot count, a keyslot, the MAC, the check): 65 before any key work", .tags(.slow), .notInQuickRun)
    func damagedHeadersAreRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("Header test.")
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
        // Backup format 2 (FORMAT.md §8.1): no stream header.
        let h = 39 + Int(bytes[38]) * 108 + 24 + 48 + 32 + 32
        let target = try bcmdTarget(sandbox)
        for offset in [0, 7, 9, 10, 30, 37, 38, 39, 39 + 4, 39 + 108 + 60, h - 136, h - 100, h - 64, h - 33, h - 1] {
            var damaged = bytes
            damaged[offset] ^= 0x01
            let path = try sandbox.folder.write("damaged.jvbak", damaged)
            // A wrong passphrase too: damage is reported first (65, not 77).
            let wrong = try sandbox.folder.write("wrong.txt", "wrong\n")
            for env in [[:], ["JV_PASSPHRASE_FILE": wrong]] as [[String: String?]] {
                let result = try sandbox.run(["restore", path, "--to", target.fresh], env: env)
                #expect(result.status == 65, "header byte \(offset): \(result)")
                try target.expectUntouched("header byte \(offset)")
            }
        }
    }

    // MARK: Existing vaults

    @Test("restore onto an existing vault: 73 and unchanged without --force; --force replaces it and the result opens")
    func restoreOntoExistingVault() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try bcmdPopulate(sandbox)
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        let exported = try bcmdExport(sandbox)

        // Another vault, with another passphrase, at the target.
        let other = sandbox.folder.file("other/journal.vault")
        let otherPassphrase = try sandbox.folder.write("other-pass.txt", "the other vault's passphrase\n")
        let otherEnv: [String: String?] = ["JV_VAULT": other, "JV_PASSPHRASE_FILE": otherPassphrase]
        try Sandbox.requireSuccess(try sandbox.run(["init", "--kdf", "interactive"], env: otherEnv))
        try Sandbox.requireSuccess(try sandbox.run(["add", "--", "Only in the other vault."], env: otherEnv))
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        let listing = try bcmdListing(sandbox.folder.file("other"))

        let refused = try sandbox.run(["restore", backup, "--to", other])
        #expect(refused.status == 73, "\(refused)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
        #expect(try bcmdListing(sandbox.folder.file("other")) == listing)
        // The default target is the vault itself: also refused.
        let refusedDefault = try sandbox.run(["restore", backup])
        #expect(refusedDefault.status == 73, "\(refusedDefault)")

        let forced = try sandbox.run(["restore", backup, "--to", other, "--force"])
        #expect(forced.status == 0, "\(forced)")
        #expect(try bcmdExport(sandbox, vault: other) == exported)
        let oldPassphrase = try sandbox.run(["list", "--vault", other], env: ["JV_PASSPHRASE_FILE": otherPassphrase])
        #expect(oldPassphrase.status == 77, "the restored vault has the backup's keys: \(oldPassphrase)")
        #expect(try sandbox.run(["check", "--vault", other]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder.file("other"))
        #expect(names.allSatisfy { $0.hasPrefix("journal.vault") }, "no temporary file left: \(names)")
    }

    @Test("a backup taken while 20 jv add processes write is consistent: it verifies, restores and passes check", .tags(.slow), .notInQuickRun)
    func backupDuringConcurrentWrites() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try bcmdImportLargeJournal(sandbox, count: 60)
        let writers = try (0..<20).map { index in try sandbox.start(["add", "--", "Concurrent entry \(index). #busy"]) }
        usleep(150_000)
        let backup = sandbox.folder.file("during.jvbak")
        let made = try sandbox.run(["backup", "--json", backup])
        let results = writers.map { $0.wait(timeout: 120) }
        #expect(made.status == 0, "\(made)")
        for result in results { #expect(result.status == 0, "\(result)") }
        let verified = try sandbox.run(["verify-backup", "--json", backup])
        #expect(verified.status == 0, "\(verified)")
        let entries = try #require((try verified.object()["counts"] as? [String: Int])?["entries"])
        #expect((60...80).contains(entries), "\(entries)")
        let target = sandbox.folder.file("restored.vault")
        #expect(try sandbox.run(["restore", backup, "--to", target]).status == 0)
        #expect(try sandbox.run(["check", "--vault", target]).status == 0)
        // What the backup holds is exactly a prefix-closed set: every restored entry is in the vault.
        let restoredIDs = Set(try sandbox.list(["--vault", target]).ids)
        let allIDs = Set(try sandbox.list().ids)
        #expect(restoredIDs.isSubset(of: allIDs))
        #expect(allIDs.count == 80)
    }

    /// A backup, restore or verify-backup killed midway leaves a whole copy of the vault (issue
    /// 11). The next writing command removes every such copy no live process holds (its maker
    /// keeps an exclusive `flock` on it); a reading command leaves the folder as it is.
    @Test("copies a killed backup, restore or verify-backup left are removed by the next writing command")
    func abandonedCopiesAreRemoved() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try bcmdPopulate(sandbox)
        let folder = URL(fileURLWithPath: sandbox.vault).deletingLastPathComponent().path
        let vaultCopy = try Data(contentsOf: URL(fileURLWithPath: sandbox.vault))
        var abandoned: [String] = []
        for (place, name) in [(folder, ".journal.vault.snapshot-0badf00d"), (folder, ".journal.vault.restoring-0badf00d"),
                              (sandbox.runtime.path, ".journal.vault.snapshot-0badf00d"), (sandbox.runtime.path, ".jv.verifying-0badf00d")] {
            for suffix in ["", "-wal", "-shm"] {
                let path = place + "/" + name + suffix
                #expect(FileManager.default.createFile(atPath: path, contents: vaultCopy))
                abandoned.append(path)
            }
        }
        // One still in use: its maker holds the lock.
        let inUse = folder + "/.journal.vault.snapshot-1e9a11ve"
        #expect(FileManager.default.createFile(atPath: inUse, contents: vaultCopy))
        let holder = open(inUse, O_RDONLY)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)

        try Sandbox.requireSuccess(try sandbox.run(["list"]))
        #expect(abandoned.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "a reading command changes nothing")
        try Sandbox.requireSuccess(try sandbox.run(["add", "A later entry."]))
        #expect(abandoned.filter { FileManager.default.fileExists(atPath: $0) } == [])
        #expect(FileManager.default.fileExists(atPath: inUse), "a copy in use stays")
    }
}

// MARK: - Helpers (file-private)

/// Four entries (one starred, one with an explicit tag, one written in Tokyo), a chat thread of
/// two messages and an analysis.
fileprivate func bcmdPopulate(_ sandbox: Sandbox) throws {
    let walk = try sandbox.add("Walked to the harbour with @Anna. Calm sea.", ["--at", "2026-01-05 10:00", "--star", "--tag", "outdoors"])
    try sandbox.add("Late in Tokyo\nramen #food", ["--at", "2026-01-05T23:30+09:00"])
    try sandbox.add("Midnight thoughts.", ["--at", "2026-01-06 00:15"])
    try sandbox.add("Noon.", ["--at", "2026-01-06 12:00"])
    try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", "--", "How was the walk?"]))
    try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "assistant", "--entry", walk, "--", "Calm."]))
    try Sandbox.requireSuccess(try sandbox.run(["analysis", "add", walk, "--model", "m1", "--sentiment", "calm", "--theme", "sea",
                                                "--entities", #"{"people":["Anna"]}"#]))
}

/// Imports `count` entries of about 900 bytes (a vault well over 200 KiB for 300).
fileprivate func bcmdImportLargeJournal(_ sandbox: Sandbox, count: Int = 300) throws {
    let words = ["harbour", "walked", "rain", "coffee", "letter", "garden", "quiet", "train", "river", "friend", "bread", "light"]
    var entries: [[String: Any]] = []
    for index in 0..<count {
        var text = "Entry \(index). "
        var state = UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15
        while text.utf8.count < 900 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text += words[Int((state >> 33) % UInt64(words.count))] + " "
        }
        let day = 1 + index % 28, hour = index % 24
        entries.append(["id": UUID().uuidString.lowercased(), "created_at": String(format: "2025-%02d-%02dT%02d:00:00.000+00:00", 1 + index % 12, day, hour),
                        "content": text + "#bulk", "starred": index % 9 == 0])
    }
    let document: [String: Any] = ["format": "jv-export", "version": 1, "entries": entries]
    let path = try sandbox.folder.write("large.json", try JSONSerialization.data(withJSONObject: document))
    try Sandbox.requireSuccess(try sandbox.run(["import", path, "--format", "json"]))
}

/// `jv export --format json` of the sandbox's vault (or `vault`), without `exported_at`.
fileprivate func bcmdExport(_ sandbox: Sandbox, vault: String? = nil) throws -> NSDictionary {
    let result = try sandbox.run(["export", "--format", "json"] + (vault.map { ["--vault", $0] } ?? []))
    try Sandbox.requireSuccess(result)
    var object = try result.object()
    #expect(object["exported_at"] is String)
    object["exported_at"] = nil
    return object as NSDictionary
}

fileprivate func bcmdMode(_ path: String) throws -> Int {
    ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1) & 0o777
}

/// Every file under `folder` (recursively) with its size and modification time, and every
/// folder by name (a scratch file made and removed inside one changes only its time), leaving
/// out the sandbox's own captured-output folder.
fileprivate func bcmdListing(_ folder: String) throws -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
    var result: [String] = []
    while let name = enumerator.nextObject() as? String {
        if name == ".io" || name.hasPrefix(".io/") { continue }
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            result.append("\(name)/")
            continue
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        result.append("\(name) \(size) \(modified)")
    }
    return result.sorted()
}

/// Two restore targets: `fresh` (in an existing, empty folder; must stay absent) and
/// `existing` (a real vault file; must stay byte-identical), each folder's listing kept.
fileprivate struct BcmdTargets {
    let fresh: String
    let existing: String
    let freshFolder: String
    let existingFolder: String
    let existingBytes: Data
    let existingListing: [String]

    func expectUntouched(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!FileManager.default.fileExists(atPath: fresh), "\(what): the target appeared", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: freshFolder).isEmpty, "\(what): files beside the target", sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == existingBytes, "\(what): the existing vault changed", sourceLocation: sourceLocation)
        #expect(try bcmdListing(existingFolder) == existingListing, "\(what): files appeared beside the existing vault", sourceLocation: sourceLocation)
    }
}

fileprivate func bcmdTarget(_ sandbox: Sandbox) throws -> BcmdTargets {
    let freshFolder = sandbox.folder.file("targets/fresh")
    try FileManager.default.createDirectory(atPath: freshFolder, withIntermediateDirectories: true)
    let existingFolder = sandbox.folder.file("targets/existing")
    let existing = existingFolder + "/journal.vault"
    let env: [String: String?] = ["JV_VAULT": existing]
    try Sandbox.requireSuccess(try sandbox.run(["init", "--kdf", "interactive"], env: env))
    try Sandbox.requireSuccess(try sandbox.run(["add", "--", "I was here first."], env: env))
    return BcmdTargets(fresh: freshFolder + "/restored.vault", existing: existing, freshFolder: freshFolder, existingFolder: existingFolder,
                       existingBytes: try Data(contentsOf: URL(fileURLWithPath: existing)), existingListing: try bcmdListing(existingFolder))
}
