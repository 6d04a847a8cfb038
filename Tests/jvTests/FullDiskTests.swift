// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// A disk with no room left (issue 11): reading commands still read, and writing commands fail
/// with one sentence that says the disk is full, leaving the vault and its folder as they were.
/// The disk is a 2 MiB tmpfs, which only root may mount: skipped, saying so, when not root;
/// as root a mount that fails fails the tests (see `TemporaryFolder.mountTmpfs`).
@Suite("A full disk", .tags(.e2e, .root), .serialized, .enabled(if: getuid() == 0, "needs root to mount a small tmpfs"))
struct FullDiskTests {
    /// A 2 MiB tmpfs holding a vault of three entries, then filled to the last byte.
    final class FullDisk {
        let mountPoint: TemporaryFolder
        let vault: String

        /// Throws where even root may not mount (see `TemporaryFolder.mountTmpfs`).
        init(_ sandbox: Sandbox) throws {
            mountPoint = try TemporaryFolder(prefix: "jvTests-full")
            try mountPoint.mountTmpfs(size: "2m")
            try FileManager.default.createDirectory(atPath: mountPoint.file("vault"), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            vault = mountPoint.file("vault/journal.vault")
            sandbox.environment["JV_VAULT"] = vault
            try sandbox.install(Fixture.empty(), at: vault)
            for text in ["First.", "Second. #two", "Third."] { try sandbox.add(text) }
            // Filled to the last byte: large writes first, then single bytes.
            let filler = open(mountPoint.file("filler"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { close(filler) }
            for size in [65_536, 4_096, 1] {
                let block = [UInt8](repeating: 0x55, count: size)
                while block.withUnsafeBytes({ write(filler, $0.baseAddress, size) }) == size {}
            }
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
}
