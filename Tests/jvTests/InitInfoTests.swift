// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The permission bits of `path`.
fileprivate func mode(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
}

@Suite("jv init and jv info", .tags(.e2e))
struct InitInfoTests {
    @Test("init creates the vault 0600 in a 0700 folder even under umask 022, and prints a recovery key")
    func initCreatesPrivateFiles() throws {
        let sandbox = try Sandbox()
        // Control: the umask wrapper really gives ordinary programs 0644 files.
        let control = sandbox.folder.file("control")
        try sandbox.runTool("/bin/sh", ["-c", "umask 022; exec \"$0\" \"$@\"", "/usr/bin/touch", control])
        #expect(try mode(of: control) == 0o644)

        let result = try sandbox.run(["init", "--kdf", "interactive"], umask022: true)
        #expect(result.status == 0, "\(result)")
        #expect(try mode(of: sandbox.vault) == 0o600)
        #expect(try mode(of: (sandbox.vault as NSString).deletingLastPathComponent) == 0o700)
        let keys = result.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { matches($0, recoveryKeyPattern) }
        #expect(keys.count == 1, "one recovery key line expected: \(result)")

        // Files SQLite keeps beside the vault (if any) are private too, also after a write.
        try sandbox.add("first entry")
        let folder = (sandbox.vault as NSString).deletingLastPathComponent
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            #expect(try mode(of: folder + "/" + name) == 0o600, "\(name)")
        }
    }

    @Test("init --json prints exactly vault, vault_id, kdf and recovery_key")
    func initJSON() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["init", "--kdf", "interactive", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        #expect(Set(object.keys) == ["vault", "vault_id", "kdf", "recovery_key"])
        #expect(object["vault"] as? String == sandbox.vault)
        #expect(object["kdf"] as? String == "interactive")
        let vaultID = try #require(object["vault_id"] as? String)
        #expect(matches(vaultID, uuidPattern))
        #expect(matches(object["recovery_key"] as? String ?? "", recoveryKeyPattern))
        let info = try sandbox.run(["info", "--json"]).object()
        #expect(info["vault_id"] as? String == vaultID)
    }

    @Test("a second init on the same path exits 73 and leaves the file byte-identical")
    func secondInitRefuses() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("keep me")
        let before = try #require(FileManager.default.contents(atPath: sandbox.vault))
        for arguments in [["init", "--kdf", "interactive"], ["init", "--json", "--kdf", "moderate"], ["init"]] {
            let again = try sandbox.run(arguments)
            #expect(again.status == 73, "\(again)")
            #expect(again.out.isEmpty, "no new recovery key may be printed: \(again)")
            #expect(!again.errorLines.isEmpty)
        }
        #expect(FileManager.default.contents(atPath: sandbox.vault) == before)
        #expect(try sandbox.list().contents == ["keep me"])
    }

    @Test("without --vault and $JV_VAULT the vault is ${XDG_DATA_HOME}/jv/journal.vault")
    func defaultPathUnderXDGDataHome() throws {
        let sandbox = try Sandbox()
        let dataHome = sandbox.folder.file("xdg-data")
        let env: [String: String?] = ["JV_VAULT": nil, "XDG_DATA_HOME": dataHome]
        let result = try sandbox.run(["init", "--kdf", "interactive", "--json"], env: env)
        #expect(result.status == 0, "\(result)")
        let expected = dataHome + "/jv/journal.vault"
        #expect(try result.object()["vault"] as? String == expected)
        #expect(FileManager.default.fileExists(atPath: expected))
        #expect(!FileManager.default.fileExists(atPath: sandbox.vault))
        #expect(try mode(of: dataHome + "/jv") == 0o700)
        let info = try sandbox.run(["info", "--json"], env: env)
        #expect(try info.object()["path"] as? String == expected)
    }

    @Test("with XDG_DATA_HOME unset too, the vault is ~/.local/share/jv/journal.vault")
    func defaultPathUnderHome() throws {
        let sandbox = try Sandbox()
        let env: [String: String?] = ["JV_VAULT": nil, "XDG_DATA_HOME": nil]
        let result = try sandbox.run(["init", "--kdf", "interactive"], env: env)
        #expect(result.status == 0, "\(result)")
        let expected = sandbox.home + "/.local/share/jv/journal.vault"
        #expect(FileManager.default.fileExists(atPath: expected))
        let added = try sandbox.run(["add", "at home"], env: env)
        #expect(added.status == 0, "\(added)")
        let info = try sandbox.run(["info", "--json"], env: env).object()
        #expect(info["path"] as? String == expected)
        #expect((info["counts"] as? [String: Any])?["entries"] as? Int == 1)
    }

    @Test("--vault beats $JV_VAULT, which beats XDG_DATA_HOME")
    func vaultPathPrecedence() throws {
        let sandbox = try Sandbox()
        let dataHome = sandbox.folder.file("xdg-data")
        let flagged = sandbox.folder.file("flagged/j.vault")
        let env: [String: String?] = ["XDG_DATA_HOME": dataHome]
        #expect(try sandbox.run(["init", "--kdf", "interactive"], env: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.vault))
        #expect(!FileManager.default.fileExists(atPath: dataHome + "/jv/journal.vault"))
        #expect(try sandbox.run(["init", "--kdf", "interactive", "--vault", flagged], env: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: flagged))
        #expect(try sandbox.run(["add", "--vault", flagged, "only in the flagged vault"]).status == 0)
        #expect(try sandbox.entryCount() == 0)
        let flaggedList = try sandbox.run(["list", "--json", "--vault", flagged]).array()
        #expect(flaggedList.contents == ["only in the flagged vault"])
    }

    @Test("init with no passphrase source and no terminal fails with 64 and creates nothing")
    func initWithoutPassphrase() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["init", "--kdf", "interactive"], env: ["JV_PASSPHRASE_FILE": nil])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines.joined().localizedCaseInsensitiveContains("passphrase"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.vault))
    }

    @Test("init with an empty passphrase is refused and creates nothing")
    func initWithEmptyPassphrase() throws {
        let sandbox = try Sandbox()
        let empty = try sandbox.folder.write("empty.txt", "\n")
        let result = try sandbox.run(["init", "--kdf", "interactive"], env: ["JV_PASSPHRASE_FILE": empty])
        #expect(result.status == 64, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.vault))
    }

    @Test("info and calendar need no passphrase at all and print counts")
    func infoWithoutPassphrase() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("one", ["--at", "2026-02-03"])
        try sandbox.add("two", ["--at", "2026-02-03T20:00"])
        let noSource: [String: String?] = ["JV_PASSPHRASE_FILE": nil]
        let info = try sandbox.run(["info"], env: noSource)
        #expect(info.status == 0, "\(info)")
        #expect(info.lines.contains { matches($0, "^entries +2$") }, "\(info)")
        // A label longer than the column still has its count after a space.
        #expect(info.lines.contains { matches($0, "^attachment contents +0$") }, "\(info)")
        #expect(info.out.contains(sandbox.vault))
        let calendar = try sandbox.run(["calendar", "2026-02"], env: noSource)
        #expect(calendar.status == 0, "\(calendar)")
        #expect(calendar.out.contains("2 entries on 1 day"), "\(calendar)")
    }

    @Test("info --json has schema_version, kdf ops/mem_bytes/profile and counts.entries")
    func infoJSON() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        for text in ["a", "b", "c"] { try sandbox.add(text) }
        let info = try sandbox.run(["info", "--json"], env: ["JV_PASSPHRASE_FILE": nil])
        #expect(info.status == 0, "\(info)")
        let object = try info.object()
        let schema = try #require(object["schema_version"] as? Int)
        #expect(schema >= 1)
        let kdf = try #require(object["kdf"] as? [String: Any])
        #expect(kdf["ops"] as? Int == 2)
        #expect(kdf["mem_bytes"] as? Int == 64 << 20)
        #expect(kdf["profile"] as? String == "interactive")
        let counts = try #require(object["counts"] as? [String: Any])
        #expect(counts["entries"] as? Int == 3)
    }

    @Test("a missing vault gives 66 for info, calendar and the unlocking commands, and nothing is created",
          arguments: [["info"], ["info", "--json"], ["calendar", "2026"], ["list"], ["add", "hello"], ["check"], ["show", "abcd"]])
    func missingVault(arguments: [String]) throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(arguments)
        #expect(result.status == 66, "\(result)")
        #expect(result.errorLines.count == 1, "one sentence on stderr: \(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.vault))
    }
}
