// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Nothing a person wrote may reach the vault file, its WAL or its shared-memory file in the
/// clear: not the text, not the tags, not a deleted entry, not an edited entry's old text.
@Suite("Plaintext never reaches the disk", .tags(.e2e))
struct PlaintextLeakTests {
    static let secrets = [
        "zebracorn", "quokkatag", "Ünïcödé-marker", "explicitgardentag", "oldsecretword", "newsecretword",
        "ghostwordxyz", "walonlymarker", "Quokkatag",
    ]

    /// Each secret's UTF-8 bytes, also in decomposed (NFD) form.
    static let needles: [(String, Data)] = secrets.flatMap { secret in
        [(secret, Data(secret.utf8)), (secret + " (NFD)", Data(secret.decomposedStringWithCanonicalMapping.utf8))]
    }

    /// The vault file and whatever SQLite keeps beside it.
    private func files(of sandbox: Sandbox) throws -> [String: Data] {
        let folder = (sandbox.vault as NSString).deletingLastPathComponent
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            result[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        }
        return result
    }

    private func expectNoPlaintext(_ sandbox: Sandbox, moment: String) throws {
        let files = try files(of: sandbox)
        #expect(files.keys.contains("journal.vault"))
        for (name, bytes) in files {
            for (secret, needle) in Self.needles {
                #expect(!containsBytes(bytes, needle), "\(secret) found in \(name) (\(moment))")
            }
        }
    }

    @Test("after adds, tags, an edit and a delete, no written word is in the vault, -wal or -shm file")
    func noPlaintextOnDisk() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("A zebracorn sighting at dawn #quokkatag")
        try sandbox.add("The Ünïcödé-marker appears here", ["--tag", "explicitgardentag", "--star"])
        let editable = try sandbox.add("Editable entry with oldsecretword inside")
        let deletable = try sandbox.add("Deletable entry with ghostwordxyz inside @Quokkatag")
        try expectNoPlaintext(sandbox, moment: "after adds")

        // Hold the database open from another process so the next writes stay in the WAL file
        // (SQLite removes the WAL when the last connection closes), then look at it.
        let holder: ChildProcess?
        if let sqlite3 = JV.tool("sqlite3") {
            // It reads inside a transaction, says so through a file, then sleeps with the
            // transaction open (its own stdout is buffered, so it cannot be watched).
            let ready = sandbox.folder.file("holder-ready")
            let child = try JV.spawn(executable: sqlite3,
                                     arguments: [sandbox.vault, "BEGIN", "SELECT count(*) FROM entry", ".shell echo ready > '\(ready)'", ".shell sleep 60"],
                                     environment: sandbox.environment, stdin: nil, ioFolder: sandbox.folder.file(".io"))
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: ready), Date() < deadline { usleep(10_000) }
            #expect(FileManager.default.fileExists(atPath: ready), "the sqlite3 reader did not start")
            holder = child
        } else {
            holder = nil
        }
        defer { holder?.killGroup(SIGKILL); _ = holder?.wait() }

        let edited = try sandbox.run(["edit", editable], input: "Replaced by newsecretword now")
        #expect(edited.status == 0, "\(edited)")
        let deleted = try sandbox.run(["delete", "--yes", deletable])
        #expect(deleted.status == 0, "\(deleted)")
        try sandbox.add("Only in the WAL: walonlymarker")
        if holder != nil {
            let wal = try files(of: sandbox)["journal.vault-wal"]
            #expect((wal?.count ?? 0) > 0, "control: the latest writes are in the WAL file")
        }
        try expectNoPlaintext(sandbox, moment: "with the WAL file in use")

        if let holder {
            holder.killGroup(SIGKILL)   // leaves the WAL behind, as a crash would
            _ = holder.wait()
            try expectNoPlaintext(sandbox, moment: "after a crashed reader left its WAL behind")
        }

        // Control: the words are really stored (encrypted), and the vault is sound.
        let contents = try sandbox.list().contents
        #expect(contents.contains { $0.contains("zebracorn") })
        #expect(contents.contains { $0.contains("newsecretword") })
        #expect(contents.contains { $0.contains("walonlymarker") })
        #expect(!contents.contains { $0.contains("ghostwordxyz") || $0.contains("oldsecretword") })
        #expect(try sandbox.list(["--tag", "quokkatag"]).count == 1)
        #expect(try sandbox.list(["--tag", "explicitgardentag"]).count == 1)
        #expect(try sandbox.run(["check"]).status == 0)
        try expectNoPlaintext(sandbox, moment: "at the end")
    }

    @Test("a deleted entry's ciphertext and an edited entry's old ciphertext are wiped from the file (secure_delete)",
          .tags(.externalTools), .enabled(if: JV.tool("sqlite3") != nil, "needs the sqlite3 command-line shell"))
    func secureDelete() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for index in 1...3 { try sandbox.add("ordinary entry \(index)") }
        let filler = (0..<200).map { "word\($0 * 7919 % 1000)" }.joined(separator: " ")
        let deleted = try sandbox.add("to be deleted " + filler)
        let edited = try sandbox.add("to be edited " + filler)
        func ciphertext(_ id: String) throws -> Data {
            // 32 bytes from inside the sealed content: unique to this record version.
            try #require(Data(hexString: try sandbox.sqlite("SELECT hex(substr(content, 40, 32)) FROM entry WHERE id = '\(id)'")))
        }
        let before = (deleted: try ciphertext(deleted), edited: try ciphertext(edited))
        #expect(before.deleted.count == 32 && before.edited.count == 32)
        let control = try #require(FileManager.default.contents(atPath: sandbox.vault))
        #expect(containsBytes(control, before.deleted), "control: the ciphertext is found while the entry exists")

        #expect(try sandbox.run(["delete", "--yes", deleted]).status == 0)
        #expect(try sandbox.run(["edit", edited], input: "short new text").status == 0)
        for (name, bytes) in try files(of: sandbox) {
            #expect(!containsBytes(bytes, before.deleted), "the deleted entry's ciphertext is still in \(name)")
            #expect(!containsBytes(bytes, before.edited), "the edited entry's old ciphertext is still in \(name)")
        }
        #expect(try sandbox.list().contents == ["ordinary entry 1", "ordinary entry 2", "ordinary entry 3", "short new text"])
    }

    @Test("entry text never appears in the home folder or the temporary folder jv was given")
    func noPlaintextElsewhere() throws {
        let sandbox = try Sandbox()
        let tmp = sandbox.folder.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        sandbox.environment["TMPDIR"] = tmp
        try sandbox.installEmptyVault()
        try sandbox.add("zebracorn in the home folder test")
        let id = try sandbox.add("oldsecretword")
        #expect(try sandbox.run(["edit", id], input: "newsecretword").status == 0)
        #expect(try sandbox.run(["search", "zebracorn"]).status == 0)
        for root in [sandbox.home, tmp] {
            let enumerator = FileManager.default.enumerator(atPath: root)
            while let name = enumerator?.nextObject() as? String {
                let bytes = FileManager.default.contents(atPath: root + "/" + name) ?? Data()
                for (secret, needle) in Self.needles {
                    #expect(!containsBytes(bytes, needle), "\(secret) found in \(root)/\(name)")
                }
            }
        }
    }
}
