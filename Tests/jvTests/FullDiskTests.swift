// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// A disk with no room left: reading commands still read, and writing commands fail
/// with one sentence that says the disk is full, leaving the vault and its folder as they were.
/// The disk is a 2 MiB tmpfs, which only root may mount: skipped, saying so, when not root;
/// as root a mount that fails fails the tests (see `TemporaryFolder.mountTmpfs`).
@Suite("A full disk", .tags(.e2e, .root), .serialized, .enabled(if: getuid() == 0, "needs root to mount a small tmpfs"))
struct FullDiskTests {
    /// A 2 MiB tmpfs holding a vault of three entries, then filled to the last byte.
    final class FullDisk {
        let mountPoint: TemporaryFolder
        let vault: String

        /// Throws where even root may not mount (see `TemporaryFolder.mountTmpfs`). `prepare`
        /// runs on the vault before the disk fills; `free` bytes are left free at the end.
        init(_ sandbox: Sandbox, prepare: (Sandbox) throws -> Void = { _ in }, leaving free: Int = 0) throws {
            mountPoint = try TemporaryFolder(prefix: "jvTests-full")
            try mountPoint.mountTmpfs(size: "2m")
            try FileManager.default.createDirectory(atPath: mountPoint.file("vault"), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            vault = mountPoint.file("vault/journal.vault")
            sandbox.environment["JV_VAULT"] = vault
            try sandbox.install(Fixture.empty(), at: vault)
            for text in ["First.", "Second. #two", "Third."] { try sandbox.add(text) }
            try prepare(sandbox)
            mountPoint.fill(leaving: free)
        }

        func freeSpace() { unlink(mountPoint.file("filler")) }

        deinit { _ = umount(mountPoint.path) }

        /// Names and sizes of everything in the vault's folder.
        func listing() throws -> [String] {
            let folder = mountPoint.file("vault")
            return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { name in
                let size = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? -1
                return "\(name) \(size)"
            }
        }
    }

    @Test("reading commands work on a full disk and leave its folder as it was")
    func readingWorks() throws {
        let sandbox = try Sandbox()
        let disk = try FullDisk(sandbox)
        let before = try disk.listing()
        #expect(try sandbox.list().count == 3)
        for arguments in [["search", "Second"], ["check"], ["info"], ["calendar", "2026"], ["export", "--format", "json"],
                          ["list", "--tag", "two"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
        }
        #expect(try disk.listing() == before)
    }

    @Test("writing commands on a full disk say so in one sentence, exit 1, and change nothing")
    func writingFailsClearly() throws {
        let sandbox = try Sandbox()
        let disk = try FullDisk(sandbox)
        let before = try disk.listing()
        let listed = try sandbox.run(["list", "--json"]).out
        let id = try #require(try sandbox.list().first?["id"] as? String)
        let journal = try sandbox.folder.write("import.txt", "[2024-01-02 09:00] Imported.\nBody.\n")
        for (arguments, stdin) in [(["add", "Does not fit."], nil), (["edit", id], "Changed."), (["delete", id, "--yes"], nil),
                                   (["import", journal, "--format", "jrnl-txt"], nil), (["chat", "add", "--role", "user", "Hi."], nil),
                                   (["backup", disk.mountPoint.file("journal.jvbak")], nil),
                                   (["export", "--output", disk.mountPoint.file("export.json")], nil)] as [([String], String?)] {
            let result = try sandbox.run(arguments, stdin: stdin.map { Data($0.utf8) })
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.err.contains("is full"), "\(arguments): \(result.err)")
            #expect(!result.err.contains("SQLite"), "\(arguments): \(result.err)")
            #expect(result.err.split(separator: "\n").count == 1, "\(arguments): one sentence: \(result.err)")
            #expect(try disk.listing() == before, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: disk.mountPoint.file("journal.jvbak")))
        #expect(!FileManager.default.fileExists(atPath: disk.mountPoint.file("export.json")))
        disk.freeSpace()
        #expect(try sandbox.run(["list", "--json"]).out == listed)
        #expect(try sandbox.run(["check"]).status == 0)
        #expect(try sandbox.hiddenFiles(in: disk.mountPoint.path) == [])
    }

    /// The attachments as `jv attachments --json` lists them.
    static func attachments(_ sandbox: Sandbox) throws -> String {
        let listed = try sandbox.run(["attachments", "--json"])
        try Sandbox.requireSuccess(listed)
        return listed.out
    }

    /// A failed writing command's one sentence and exit status, checked as above.
    static func expectFull(_ result: JVResult, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.err.contains("is full") && !result.err.contains("SQLite"), "\(arguments): \(result.err)", sourceLocation: sourceLocation)
        #expect(result.errorLines.count == 1, "\(arguments): one sentence: \(result.err)", sourceLocation: sourceLocation)
    }

    @Test("attaching a file larger than the room left: one sentence, exit 1, the vault as it was and checked clean, no temporary; with room, the same attach works")
    func attachLargerThanTheRoomLeft() throws {
        let sandbox = try Sandbox()
        let disk = try FullDisk(sandbox, leaving: 256 << 10)
        let before = try disk.listing()
        let listed = try Self.attachments(sandbox)
        let id = try #require(try sandbox.list().first?["id"] as? String)
        // 1 MiB, from a disk with room (the sandbox's folder).
        let file = try sandbox.folder.write("recording.m4a", SyncAttachmentCommandTests.content(1 << 20, seed: 11))
        let attach = ["attach", id, file]
        Self.expectFull(try sandbox.run(attach), attach)
        #expect(try disk.listing() == before, "the vault's folder as it was")
        #expect(try Self.attachments(sandbox) == listed)
        #expect(try sandbox.run(["check"]).status == 0)
        #expect(try sandbox.hiddenFiles(in: disk.mountPoint.path) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path) == [], "nothing left on tmpfs")
        disk.freeSpace()
        try Sandbox.requireSuccess(try sandbox.run(attach))
        #expect(try sandbox.run(["attachments", "--json"]).array().count == 1)
    }

    @Test("a backup of a vault with attachments onto a full disk: one sentence, exit 1, no backup and no temporary, the vault as it was")
    func backupWithAttachments() throws {
        let sandbox = try Sandbox()
        let disk = try FullDisk(sandbox, prepare: { sandbox in
            let id = try #require(try sandbox.list().first?["id"] as? String)
            let file = try sandbox.folder.write("photo.jpg", SyncAttachmentCommandTests.content(400 << 10, seed: 12))
            try Sandbox.requireSuccess(try sandbox.run(["attach", id, file]))
        })
        let before = try disk.listing()
        let listed = try Self.attachments(sandbox)
        let backup = ["backup", disk.mountPoint.file("journal.jvbak")]
        Self.expectFull(try sandbox.run(backup), backup)
        #expect(!FileManager.default.fileExists(atPath: disk.mountPoint.file("journal.jvbak")))
        #expect(try disk.listing() == before)
        #expect(try sandbox.hiddenFiles(in: disk.mountPoint.path) == [])
        disk.freeSpace()
        #expect(try Self.attachments(sandbox) == listed)
        #expect(try sandbox.run(["check"]).status == 0)
        try Sandbox.requireSuccess(try sandbox.run(backup))
        #expect(try sandbox.run(["verify-backup", disk.mountPoint.file("journal.jvbak")]).status == 0)
    }
}
