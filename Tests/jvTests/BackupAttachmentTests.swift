// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// Backups carry attachments inside the vault's snapshot (FORMAT.md §8): `verify-backup` and
/// `restore` read every attachment's chunk stream, as `jv check` does, and refuse a backup whose
/// vault holds a damaged one; memory stays bounded with a large attachment.
@Suite("jv backup, verify-backup and restore with attachments", .tags(.e2e))
struct BackupAttachmentTests {
    @Test("a backup restores every attachment byte for byte")
    func restoresAttachments() throws {
        let sandbox = try DayOneAttachmentTests.vaultWithAttachments()
        let backup = sandbox.folder.file("journal.jvbak")
        try sandbox.ok(["backup", backup])
        let verified = try sandbox.ok(["verify-backup", "--json", backup])
        #expect((try verified.object()["counts"] as? [String: Any]) != nil, "\(verified)")
        let target = sandbox.folder.file("elsewhere/restored.vault")
        try sandbox.ok(["restore", backup, "--to", target])
        let original = try DayOneAttachmentTests.exported(sandbox)
        sandbox.environment["JV_VAULT"] = target
        let restored = try DayOneAttachmentTests.exported(sandbox, into: "restored-out")
        #expect(restored.map(\.bytes) == original.map(\.bytes))
        #expect(restored.map(\.bytes) == [DayOneAttachmentTests.jpeg, DayOneAttachmentTests.png, DayOneAttachmentTests.audio])
    }

    @Test("a backup of a vault with a damaged attachment chunk is refused by verify-backup and restore (exit 65), naming the attachment")
    func damagedChunkRefused() throws {
        let sandbox = try DayOneAttachmentTests.vaultWithAttachments()
        let victim = try sandbox.sqlite("SELECT stream_id FROM attachment_chunk ORDER BY rowid LIMIT 1").trimmingCharacters(in: .whitespacesAndNewlines)
        let hex = try sandbox.sqlite("SELECT hex(data) FROM attachment_chunk WHERE stream_id = '\(victim)' AND idx = 0")
        var bytes = try #require(Data(hexString: hex))
        bytes[bytes.count / 2] ^= 0x01
        try sandbox.sqlite("UPDATE attachment_chunk SET data = X'\(bytes.hex)' WHERE stream_id = '\(victim)' AND idx = 0")
        let backup = sandbox.folder.file("damaged.jvbak")
        try sandbox.ok(["backup", backup])
        let verified = try sandbox.fails(["verify-backup", backup], status: 65)
        #expect(verified.err.contains("attachment_blob"), "the stream's check speaks first: \(verified)")
        let target = sandbox.folder.file("restored.vault")
        let restored = try sandbox.fails(["restore", backup, "--to", target], status: 65)
        #expect(restored.err.contains("attachment_blob"), "\(restored)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// Every command unlocks through Argon2id (64 MiB with `--kdf interactive`), which sets a
    /// floor to the peak: measured first, on the same vault, by `jv check`. A command that held a
    /// 128 MiB attachment whole would pass the floor by more than that.
    @Test("with a 128 MiB attachment, import, check, export, backup, verify-backup and restore peak within 32 MiB of an unlock's memory",
          .tags(.slow), .notInQuickRun)
    func boundedMemory() throws {
        let sandbox = try Sandbox()
        // Every run pays Argon2id here: its 64 MiB is the floor the others are measured against.
        sandbox.environment.removeValue(forKey: "JV_TEST_KDF_CACHE")
        try sandbox.initVault()
        func peakKiB(_ arguments: [String]) throws -> Int {
            let report = sandbox.folder.file("rss.txt")
            let result = try sandbox.runTool("/usr/bin/time", ["-f", "%M", "-o", report, sandbox.binary] + arguments)
            try #require(result.status == 0, "\(result)")
            return try #require(Int(try String(contentsOfFile: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let floor = try peakKiB(["check"])
        var generator = SystemRandomNumberGenerator()
        var large = Data(count: 128 << 20)
        large.withUnsafeMutableBytes { buffer in
            for offset in stride(from: 0, to: buffer.count, by: 8) { buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self) }
        }
        try sandbox.folder.write("big/Journal.json", #"""
            {"entries":[{"uuid":"2A69239A5B364348AC64FA7758C2151B","creationDate":"2024-05-01T10:00:00Z","text":"A long film.",
             "videos":[{"identifier":"AD6F2A6EC10C41AEA35E94BAD169936D","md5":"0e2d16db35b89f9880ee5b3441659d54","type":"mp4"}]}]}
            """#)
        try sandbox.folder.write("big/videos/0e2d16db35b89f9880ee5b3441659d54.mp4", large)
        let backup = sandbox.folder.file("big.jvbak")
        let runs = [
            ["import", sandbox.folder.file("big"), "--format", "dayone-json"], ["check"],
            ["export", "--format", "json", "--output", sandbox.folder.file("out") + "/"],
            ["backup", backup], ["verify-backup", backup], ["restore", backup, "--to", sandbox.folder.file("restored.vault")],
        ]
        for arguments in runs {
            let peak = try peakKiB(arguments)
            #expect(peak <= floor + 32 << 10, "jv \(arguments[0]) peaked at \(peak) KiB, an unlock at \(floor) KiB")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder.file("out/attachments"))
        #expect(files.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.folder.file("out/attachments/") + (files.first ?? ""))) == large)
    }
}
