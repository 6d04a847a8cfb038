// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Files written by the previous release are read by this one, and the other way round: a
/// vault, a backup and a sync location are kept for years and meet jv binaries of several
/// releases at once (two machines that sync, a backup restored after an upgrade).
///
/// The previous release's files are committed in `Tests/JournalVaultTests/Fixtures/previous`
/// (written by `scripts/make-compat-fixtures.sh`; its `VERSION` names the commit). The reverse
/// direction needs that release's binary: set `JV_PREVIOUS_JV` to it.
@Suite(.tags(.e2e)) struct PreviousReleaseTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../JournalVaultTests/Fixtures/previous").standardized.path
    static let fixturePassphrase = "previous release fixture passphrase"
    static let previousJV = ProcessInfo.processInfo.environment["JV_PREVIOUS_JV"].flatMap { $0.isEmpty ? nil : $0 }

    /// A sandbox whose passphrase is the fixtures', with a copy of the fixture `name` in it.
    private func sandbox(copying names: [String]) throws -> Sandbox {
        let sandbox = try Sandbox(timeZone: "Europe/Berlin")
        sandbox.environment["JV_PASSPHRASE_FILE"] = try sandbox.folder.write("previous-passphrase", Self.fixturePassphrase + "\n")
        for name in names {
            let target = sandbox.folder.file(name)
            try FileManager.default.copyItem(atPath: Self.fixtures + "/" + name, toPath: target)
        }
        return sandbox
    }

    /// A jv export with its `exported_at` and each thread's `is_active` (which thread is active
    /// is each device's own) left out, keys sorted: what two exports of the same records, on two
    /// devices, have in common.
    static func records(_ export: String) throws -> String {
        guard var document = try JSONSerialization.jsonObject(with: Data(export.utf8)) as? [String: Any],
              let threads = document["threads"] as? [[String: Any]] else {
            throw HarnessError("not a jv export: \(export.prefix(200))")
        }
        document["exported_at"] = nil
        document["threads"] = threads.map { thread in thread.filter { $0.key != "is_active" } }
        return String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self)
    }

    private func export(_ sandbox: Sandbox, vault: String, using binary: String? = nil) throws -> String {
        let arguments = ["--no-agent", "--vault", vault, "export", "--format", "json"]
        let result = try binary.map { try sandbox.runTool($0, arguments) } ?? sandbox.run(arguments)
        try Sandbox.requireSuccess(result)
        return try Self.records(result.out)
    }

    @Test func aVaultOfThePreviousReleaseChecksCleanAndExportsTheSameRecords() throws {
        let sandbox = try sandbox(copying: ["prev.vault", "prev.export.json"])
        let vault = sandbox.folder.file("prev.vault")
        let check = try sandbox.run(["--no-agent", "--vault", vault, "check"])
        #expect(check.status == 0, "\(check)")
        let expected = try Self.records(String(contentsOfFile: sandbox.folder.file("prev.export.json"), encoding: .utf8))
        #expect(try export(sandbox, vault: vault) == expected)
        #expect(expected.contains("Zürich in summer"), "the fixture export holds the records")
    }

    @Test func aBackupOfThePreviousReleaseVerifiesAndRestores() throws {
        let sandbox = try sandbox(copying: ["prev.jvbak"])
        let backup = sandbox.folder.file("prev.jvbak")
        let verify = try sandbox.run(["--no-agent", "verify-backup", backup])
        #expect(verify.status == 0, "\(verify)")
        let restored = sandbox.folder.file("restored/journal.vault")
        try Sandbox.requireSuccess(try sandbox.run(["--no-agent", "restore", backup, "--to", restored]))
        let check = try sandbox.run(["--no-agent", "--vault", restored, "check"])
        #expect(check.status == 0, "\(check)")
        // The backup was made before the first entry was edited and the sixth added.
        let list = try sandbox.run(["--no-agent", "--vault", restored, "--json", "list"])
        let contents = try list.array().compactMap { $0["content"] as? String }
        #expect(contents.count == 5 && contents.contains("A spring morning with @mira. #garden #walk"), "\(contents)")
    }

    @Test(.tags(.slow), .notInQuickRun)
    func aSyncLocationOfThePreviousReleaseClonesAndTakesNewPacks() throws {
        let sandbox = try sandbox(copying: ["sync", "prev.export.json"])
        let location = sandbox.folder.file("sync")
        let first = sandbox.folder.file("first/journal.vault")
        try Sandbox.requireSuccess(try sandbox.run(["--no-agent", "sync", "clone", location, "--to", first]))
        let expected = try Self.records(String(contentsOfFile: sandbox.folder.file("prev.export.json"), encoding: .utf8))
        #expect(try export(sandbox, vault: first) == expected)

        // This release writes a pack beside the previous release's snapshot and pack, and a
        // second clone takes all of them.
        try Sandbox.requireSuccess(try sandbox.run(["--no-agent", "--vault", first, "add", "Written by the new release. #compat"]))
        try Sandbox.requireSuccess(try sandbox.run(["--no-agent", "--vault", first, "sync"]))
        let second = sandbox.folder.file("second/journal.vault")
        try Sandbox.requireSuccess(try sandbox.run(["--no-agent", "sync", "clone", location, "--to", second]))
        #expect(try export(sandbox, vault: second) == export(sandbox, vault: first))
        let check = try sandbox.run(["--no-agent", "--vault", second, "check"])
        #expect(check.status == 0, "\(check)")
    }

    /// This release's vault, backup and sync location, read by the previous release's jv.
    @Test(.tags(.slow, .externalTools), .notInQuickRun,
          .enabled(if: previousJV != nil, "needs the previous release's jv in JV_PREVIOUS_JV"))
    func thePreviousReleaseReadsThisReleasesFiles() throws {
        let previous = try #require(Self.previousJV)
        let sandbox = try Sandbox(timeZone: "Europe/Berlin")
        try sandbox.initVault()
        let first = try sandbox.add("A morning with @mira. #garden #walk")
        try sandbox.add("*Evening: a call with Sam. #family")
        try sandbox.add("Zürich — naïve café, 😀 and a tab\tinside.")
        let analyser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/analyser.py").standardized.path
        try Sandbox.requireSuccess(try sandbox.run(["analyze", "--command", analyser, "--from", "2000-01-01"]))
        try Sandbox.requireSuccess(try sandbox.run(["chat", "new"]))
        try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", "What did I write about the garden?"]))
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        let location = sandbox.folder.file("sync")
        try Sandbox.requireSuccess(try sandbox.run(["sync", "init", location]))
        try Sandbox.requireSuccess(try sandbox.run(["edit", first], input: "A morning with @mira, edited. #garden"))
        try Sandbox.requireSuccess(try sandbox.run(["sync"]))
        let expected = try export(sandbox, vault: sandbox.vault)

        let check = try sandbox.runTool(previous, ["--no-agent", "check"])
        #expect(check.status == 0, "\(check)")
        #expect(try export(sandbox, vault: sandbox.vault, using: previous) == expected)
        // Backups are of format 2 now (FORMAT.md §8), which the previous release does not read: it
        // must say so, and not take the file for a damaged one of its own format.
        let verify = try sandbox.runTool(previous, ["--no-agent", "verify-backup", backup])
        #expect(verify.status == 65 && verify.err.contains("backup format 2 is not supported"), "\(verify)")
        let clone = sandbox.folder.file("clone/journal.vault")
        try Sandbox.requireSuccess(try sandbox.runTool(previous, ["--no-agent", "sync", "clone", location, "--to", clone]))
        #expect(try export(sandbox, vault: clone, using: previous) == expected)
    }
}
