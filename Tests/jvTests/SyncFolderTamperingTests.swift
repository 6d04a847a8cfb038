// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The sync folder written by someone else: files that are not what their names say (garbage,
/// FIFOs, symbolic links, keys files that do not authenticate) change nothing of a device's state,
/// hang nothing and make jv write nowhere outside the location.
@Suite(.tags(.e2e)) struct SyncFolderTamperingTests {
    typealias Machines = SyncCommandTests.Machines

    /// `…/jv-sync/VAULT-ID` of the location, and `sandbox`'s device id and newest pack.
    static func place(_ sandbox: Sandbox, location: String) throws -> (root: String, device: String, lastPack: Int) {
        let status = try sandbox.run(["sync", "status", "--json"]).object()
        let vault = try #require(try FileManager.default.contentsOfDirectory(atPath: location + "/jv-sync").first)
        return ("\(location)/jv-sync/\(vault)", try #require(status["device"] as? String), try #require(status["last_pack"] as? Int))
    }

    static func packName(_ number: Int) -> String { String(format: "pack-%012d.jvp", number) }

    @Test("garbage named as a device's own next pack: the device keeps its id and keys file, and its real pack takes the name")
    func garbageAtTheNextPackName() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        _ = try machines.first.add("Before the garbage.")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        let (root, device, lastPack) = try Self.place(machines.first, location: machines.location)
        try Data(repeating: 0x41, count: 5000).write(to: URL(fileURLWithPath: "\(root)/\(device)/\(Self.packName(lastPack + 1))"))

        let id = try machines.first.add("After the garbage.")
        let synced = try machines.first.run(["sync"])
        #expect(synced.status == 0, "\(synced)")
        let after = try Self.place(machines.first, location: machines.location)
        #expect(after.device == device && after.lastPack == lastPack + 1, "the device keeps its id: \(after)")
        #expect(FileManager.default.fileExists(atPath: "\(root)/keys/\(device)"), "its keys file stays")
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        #expect(try machines.second.show(id)["content"] as? String == "After the garbage.")
    }

    @Test("FIFOs named as a pack, a snapshot, an acks, a rotation and a keys file hang neither jv sync nor jv sync clone")
    func fifosHangNothing() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        _ = try machines.second.add("From the second machine.")
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        let (root, second, lastPack) = try Self.place(machines.second, location: machines.location)
        let first = try Self.place(machines.first, location: machines.location).device
        for name in ["\(second)/\(Self.packName(lastPack + 1))", "\(first)/snap-000000000009.jvp", "\(second)/acks.jva",
                     "\(second)/rotation-0000000002.jvr", "keys/\(UUID().uuidString.lowercased())"] {
            unlink("\(root)/\(name)")
            #expect(mkfifo("\(root)/\(name)", 0o600) == 0, "\(name)")
        }
        let synced = try machines.first.start(["sync", "--compact"]).wait(timeout: 20)
        #expect(!synced.timedOut, "\(synced)")
        #expect(synced.status == 65 && synced.err.contains("pack \(lastPack + 1)"), "the FIFO is refused as a pack: \(synced)")
        let third = try Sandbox()
        let cloned = try third.start(["sync", "clone", machines.location]).wait(timeout: 20)
        #expect(!cloned.timedOut, "\(cloned)")
    }

    @Test("symbolic links for jv-sync/, the device folder or keys/: jv sync writes nothing through them, says so and changes nothing")
    func linksAreNotFollowed() throws {
        for link in ["jv-sync", "device", "keys"] {
            let machines = try Machines(location: { $0.folder.file("location") })
            let (root, device, _) = try Self.place(machines.first, location: machines.location)
            let outside = machines.first.folder.file("outside")
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            let linked = switch link {
            case "jv-sync": machines.location + "/jv-sync"
            case "device": "\(root)/\(device)"
            default: "\(root)/keys"
            }
            // The folder moves outside, and a link to it takes its place: followed, it would work.
            try FileManager.default.moveItem(atPath: linked, toPath: outside + "/moved")
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: outside + "/moved")
            if link == "keys" { try FileManager.default.removeItem(atPath: "\(outside)/moved/\(device)") }
            let before = try FileManager.default.subpathsOfDirectory(atPath: outside).sorted()
            _ = try machines.first.add("Not to be written outside.")
            let synced = try machines.first.run(["sync"])
            #expect(synced.status == 1 && synced.errorLines.count == 1 && synced.err.contains("symbolic link"), "\(link): \(synced)")
            #expect(try FileManager.default.subpathsOfDirectory(atPath: outside).sorted() == before, "\(link): nothing written outside")
            #expect(try machines.first.run(["sync", "status", "--json"]).object()["pending"] as? Int == 1, "\(link): nothing was changed")
        }
    }

    @Test("an empty keys file of a made-up device holds no compaction back, and jv sync status names it")
    func forgedKeysFileHoldsNothingBack() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        for round in 0..<3 {
            _ = try machines.first.add("Round \(round).")
            try machines.converge()
        }
        let (root, _, _) = try Self.place(machines.first, location: machines.location)
        let forged = UUID().uuidString.lowercased()
        #expect(FileManager.default.createFile(atPath: "\(root)/keys/\(forged)", contents: Data()))
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        let compacted = try machines.first.run(["sync", "--compact", "--json"])
        #expect(compacted.status == 0, "\(compacted)")
        let removed = try compacted.object()["packs_removed"] as? Int
        #expect((removed ?? 0) > 0, "\(compacted)")
        let status = try machines.first.run(["sync", "status"])
        #expect(status.status == 0 && status.out.contains(forged) && status.out.contains("does not authenticate"), "\(status)")
    }

    @Test("an rclone remote that begins with '-' is refused at sync init and when read back from the vault, and never reaches rclone as a flag",
          .tags(.externalTools))
    func remoteThatLooksLikeAFlag() throws {
        _ = try #require(JV.tool("rclone"), "rclone is not installed (make test installs it)")
        let sandbox = try Sandbox()
        sandbox.environment["XDG_CACHE_HOME"] = sandbox.folder.file("cache")
        try sandbox.initVault()
        let logs = sandbox.folder.file("logs")
        try FileManager.default.createDirectory(atPath: logs + "/x:", withIntermediateDirectories: true)
        let flag = "rclone:--log-file=\(logs)/x:/"
        let refused = try sandbox.run(["sync", "init", flag])
        #expect(refused.status == 1 && refused.errorLines.count == 1 && refused.err.contains("begins with"), "\(refused)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: logs) == ["x:"], "rclone wrote no log file")
        #expect(try sandbox.run(["sync", "clone", flag, "--to", sandbox.folder.file("other.vault")]).status == 1)

        // Set up through a folder, then the location is changed in the file to the flag.
        let location = sandbox.folder.file("location")
        try Sandbox.requireSuccess(try sandbox.run(["sync", "init", location]))
        try sandbox.sqlite("UPDATE sync_device SET location = '\(flag)'")
        let read = try sandbox.run(["sync"])
        #expect(read.status != 0, "\(read)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: logs) == ["x:"], "rclone wrote no log file")
    }
}
