// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// The sync folder on a disk with no room left: sending stops with one sentence and changes
/// nothing; receiving still applies the other machines' packs, and what this machine could not
/// write there afterwards (its acks file, a snapshot) is said in one sentence.
/// Skipped, saying so, when not root (only root mounts the small tmpfs); as root a mount that
/// fails fails the tests (see `TemporaryFolder.mountTmpfs`).
@Suite("A full sync folder", .tags(.e2e, .root, .slow), .notInQuickRun, .serialized, .enabled(if: getuid() == 0, "needs root to mount a small tmpfs"))
struct SyncFullDiskTests {
    typealias Machines = SyncCommandTests.Machines

    /// Two machines syncing through a folder on a 2 MiB tmpfs; throws where even root may not
    /// mount (see `TemporaryFolder.mountTmpfs`).
    static func machines(on mountPoint: TemporaryFolder) throws -> Machines {
        try mountPoint.mountTmpfs(size: "2m")
        return try Machines(location: { _ in mountPoint.file("location") })
    }

    @Test("sending to a full sync folder: one sentence, exit 1, nothing changed; once there is room, it goes out")
    func sendingStops() throws {
        let mountPoint = try TemporaryFolder(prefix: "jvTests-syncfull")
        defer { _ = umount(mountPoint.path) }
        let machines = try Self.machines(on: mountPoint)
        let id = try machines.first.add("Written while the sync folder is full.")
        mountPoint.fill()
        let full = try machines.first.run(["sync"])
        #expect(full.status == 1 && full.errorLines.count == 1, "\(full)")
        #expect(full.err.contains("is full") && full.err.contains("nothing was changed") && !full.err.contains("could not be completed"), "\(full)")
        #expect(try machines.first.run(["sync", "status", "--json"]).object()["pending"] as? Int == 1)
        unlink(mountPoint.file("filler"))
        try machines.converge()
        #expect(try machines.second.show(id)["content"] as? String == "Written while the sync folder is full.")
    }

    @Test("receiving with the sync folder full: the packs apply, exit 0, and one sentence says the acks file waits; --compact there exits 1")
    func receivingStillApplies() throws {
        let mountPoint = try TemporaryFolder(prefix: "jvTests-syncfull")
        defer { _ = umount(mountPoint.path) }
        let machines = try Self.machines(on: mountPoint)
        _ = try machines.second.add("Sent by the second machine, so that it has a snapshot to write.")
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        let id = try machines.first.add("Sent before the sync folder filled up.")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        mountPoint.fill()
        let received = try machines.second.run(["sync"])
        #expect(received.status == 0, "\(received)")
        #expect(received.errorLines.count == 1 && received.err.contains("is full") && received.err.contains("acks file"), "\(received)")
        #expect(!received.err.contains("could not be completed"), "\(received)")
        #expect(try machines.second.show(id)["content"] as? String == "Sent before the sync folder filled up.")

        let compacted = try machines.second.run(["sync", "--compact"])
        #expect(compacted.status == 1, "nothing was compacted: \(compacted)")
        #expect(compacted.err.contains("is full") && compacted.err.contains("snapshot"), "\(compacted)")
        unlink(mountPoint.file("filler"))
        try machines.converge()
    }

    @Test("sending an attachment to a full sync folder: one sentence, exit 1, nothing changed, no blob file half written; once there is room, the same bytes arrive")
    func sendingAnAttachmentStops() throws {
        let mountPoint = try TemporaryFolder(prefix: "jvTests-syncfull")
        defer { _ = umount(mountPoint.path) }
        let machines = try Self.machines(on: mountPoint)
        let content = SyncAttachmentCommandTests.content(600 << 10, seed: 31)
        let id = try SyncAttachmentCommandTests.attach(machines.first, content, name: "harbour.jpg")
        let pending = try machines.first.run(["sync", "status", "--json"]).object()["pending"] as? Int
        // Room for a pack, not for the content: the blob file is begun, then stops the sync.
        mountPoint.fill(leaving: 64 << 10)
        let full = try machines.first.run(["sync"])
        #expect(full.status == 1 && full.errorLines.count == 1, "\(full)")
        #expect(full.err.contains("is full") && full.err.contains("nothing was changed"), "\(full)")
        #expect(try machines.first.run(["sync", "status", "--json"]).object()["pending"] as? Int == pending)
        #expect(try machines.first.run(["check"]).status == 0)
        let location = CrashMatrixTests.locationFiles(machines.location)
        #expect(location.temporaries == [] && location.blobs == [], "no blob file, whole or half written: \(location)")
        unlink(mountPoint.file("filler"))
        try machines.converge()
        #expect(try SyncAttachmentCommandTests.get(machines.second, id) == content)
        #expect(CrashMatrixTests.locationFiles(machines.location).blobs.count == 1)
    }
}
