// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Error messages that say the real problem in one sentence, with the right exit code and a
/// hint that works when followed ("Messages").
@Suite("Messages and their hints", .tags(.e2e))
struct MessagesTests {
    @Test("a missing journal's vault: the hint is 'jv -j NAME init', which makes that vault")
    func missingJournalVault() throws {
        let sandbox = try Sandbox()
        let work = sandbox.folder.file("journals/work.vault")
        try sandbox.folder.write("config/jv/config.toml", "[journals]\nwork = '\(work)'\n")
        sandbox.environment["XDG_CONFIG_HOME"] = sandbox.folder.file("config")
        let missing = try sandbox.run(["-j", "work", "list"])
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.errorLines == ["jv: No vault at \(work) (journal 'work'); create it with 'jv -j work init'."], "\(missing)")
        try Sandbox.requireSuccess(try sandbox.run(["-j", "work", "init", "--kdf", "interactive"]))
        let listed = try sandbox.run(["-j", "work", "list"])
        #expect(listed.status == 0, "\(listed)")
        #expect(FileManager.default.fileExists(atPath: work))
        #expect(!FileManager.default.fileExists(atPath: sandbox.vault), "the default vault was not made")
    }

    @Test("a missing --vault: the hint is 'jv init --vault PATH'")
    func missingVaultOption() throws {
        let sandbox = try Sandbox()
        let path = sandbox.folder.file("elsewhere.vault")
        let missing = try sandbox.run(["list", "--vault", path])
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.errorLines == ["jv: No vault at \(path); create it with 'jv init --vault \(path)'."], "\(missing)")
    }

    @Test("sync clone onto an existing vault says to choose another file with --to, which works")
    func cloneOntoExistingVault() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let location = sandbox.folder.file("shared")
        try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
        try Sandbox.requireSuccess(try sandbox.run(["sync", "init", location]))
        let refused = try sandbox.run(["sync", "clone", location])
        #expect(refused.status == 73, "\(refused)")
        #expect(refused.errorLines == ["jv: A file already exists at \(sandbox.vault); clone into a new file with --to PATH."], "\(refused)")
        let cloned = try sandbox.run(["sync", "clone", location, "--to", sandbox.folder.file("clone.vault")])
        #expect(cloned.status == 0, "\(cloned)")
    }

    @Test("a [journals] entry named default is the vault when none is named, as jrnl's default journal is")
    func defaultJournal() throws {
        let sandbox = try Sandbox()
        let chosen = sandbox.folder.file("journals/default.vault")
        try sandbox.folder.write("config/jv/config.toml", "[journals]\ndefault = '\(chosen)'\nwork = '/w.vault'\n")
        let env: [String: String?] = ["XDG_CONFIG_HOME": sandbox.folder.file("config"), "JV_VAULT": nil, "XDG_DATA_HOME": sandbox.folder.file("data")]
        try Sandbox.requireSuccess(try sandbox.run(["init", "--kdf", "interactive"], env: env))
        #expect(FileManager.default.fileExists(atPath: chosen))
        let info = try sandbox.run(["info", "--json"], env: env)
        #expect(try info.object()["path"] as? String == chosen, "\(info)")
    }

    @Test("the current streak ends today: an entry dated tomorrow is no part of it")
    func streakWithAFutureEntry() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("today", ["--at", civilDay()])
        try sandbox.add("tomorrow", ["--at", civilDay(offsetBy: 1)])
        let stats = try sandbox.run(["stats", "--json"])
        #expect(try stats.object()["current_streak"] as? Int == 1, "\(stats)")
    }

    @Test("jv check names the records as people do, singular for one: '1 entry', not '1 entry records'")
    func checkCounts() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("one entry")
        let checked = try sandbox.run(["check"])
        #expect(checked.status == 0, "\(checked)")
        #expect(checked.out.contains("1 entry,") && checked.out.contains("0 threads"), "\(checked)")
        #expect(!checked.out.contains("records") && !checked.out.contains("chat_thread"), "\(checked)")
    }

    // The library states what went wrong; jv adds the command that helps (Failure+Advice.swift).

    @Test("a missing default vault: the hint is 'jv init' or --vault")
    func missingDefaultVault() throws {
        let sandbox = try Sandbox()
        let missing = try sandbox.run(["list"])
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.errorLines == ["jv: No vault at \(sandbox.vault); create one with 'jv init' or pass --vault."], "\(missing)")
    }

    @Test("a vault that does not sync: sync and sync status name 'jv sync init' and 'jv sync clone'")
    func syncNotSetUp() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let synced = try sandbox.run(["sync"])
        #expect(synced.status == 1, "\(synced)")
        #expect(synced.errorLines == ["jv: This vault does not sync yet: set it up with `jv sync init LOCATION` or `jv sync clone LOCATION`."],
                "\(synced)")
        let status = try sandbox.run(["sync", "status"])
        #expect(status.status == 1, "\(status)")
        #expect(status.errorLines == ["jv: This vault does not sync: set it up with `jv sync init LOCATION` or `jv sync clone LOCATION`."],
                "\(status)")
    }

    @Test("a session salt jv did not make: the warning says to remove it after 'jv lock --all', and the command goes on")
    func unrecognisedSessionSalt() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let folder = sandbox.runtime.file("jv")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try Data("short".utf8).write(to: URL(fileURLWithPath: folder + "/salt"))
        let listed = try sandbox.run(["list"])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.errorLines.first == "jv: warning: the session is not used: \(folder)/salt is not a salt jv made; remove it (after 'jv lock --all') "
                                           + "and run 'jv unlock' again.", "\(listed)")
    }

    @Test("an entry with a header-like line, edited with others: the hint is 'jv edit ID' on its own")
    func headerLikeLineInABatchEdit() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Copied from jrnl:\n[2026-01-05 09:00] an old line", ["--at", "2026-01-05 09:00"])
        let short = String(id.lowercased().prefix(8))
        let refused = try sandbox.run(["edit", "--on", "2026-01-05"], env: ["EDITOR": "true"])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.errorLines == ["jv: The entry \(short) has a line starting like an entry header ('[YYYY-'), which would split it in two; "
                                       + "edit it on its own with 'jv edit \(short)'."], "\(refused)")
    }
}
