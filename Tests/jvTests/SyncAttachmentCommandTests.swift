// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// Attachments through `jv sync` as people run it: attached on one machine, read byte for byte on
/// the other; left at the location with `--attachments none` and fetched by `jv attachment get`;
/// a damaged blob file refused (exit 65) with nothing stored; `kill -9` while a content goes up
/// or comes down, then a sync that completes.
@Suite(.tags(.e2e)) struct SyncAttachmentCommandTests {
    typealias Machines = SyncCommandTests.Machines

    /// `count` bytes of a seeded sequence.
    static func content(_ count: Int, seed: UInt64) -> Data {
        var generator = SeededGenerator(seed: seed)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Attaches `content` as `name` to a new entry on `sandbox`; the attachment's id.
    static func attach(_ sandbox: Sandbox, _ content: Data, name: String) throws -> String {
        let entry = try sandbox.add("With \(name).")
        let path = sandbox.folder.file(name)
        try content.write(to: URL(fileURLWithPath: path))
        let attached = try sandbox.run(["attach", entry, path])
        try Sandbox.requireSuccess(attached)
        return attached.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The attachment's content as `jv attachment get --output` writes it.
    static func get(_ sandbox: Sandbox, _ id: String) throws -> Data? {
        let output = sandbox.folder.file("got-\(UUID().uuidString)")
        let result = try sandbox.run(["attachment", "get", id, "--output", output])
        guard result.status == 0 else { return nil }
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    static func stored(_ sandbox: Sandbox, _ id: String) throws -> Bool? {
        try sandbox.run(["attachments", "--json"]).array().first { $0["id"] as? String == id }?["stored"] as? Bool
    }

    /// Every file under `folder` (a location, a cache), by path.
    static func files(under folder: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).map { "\(folder)/\($0)" }
    }

    /// The blob files under `folder`, complete (not a temporary being written).
    static func blobFiles(_ folder: String) -> [String] {
        files(under: folder).filter { $0.hasSuffix(".jvb") && !($0 as NSString).lastPathComponent.hasPrefix(".") }
    }

    @Test("attached on one machine, jv attachment get on the other gives the same bytes; the same file attached again is one blob file")
    func attachedOnOneMachineReadOnTheOther() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        let content = Self.content(3 << 20, seed: 23)
        let id = try Self.attach(machines.first, content, name: "ridge.jpg")
        try machines.converge()
        #expect(try Self.stored(machines.second, id) == true)
        #expect(try Self.get(machines.second, id) == content)
        let again = try Self.attach(machines.second, content, name: "ridge again.jpg")
        try machines.converge()
        #expect(try Self.get(machines.first, again) == content)
        #expect(Self.blobFiles(machines.location).count == 1)
    }

    @Test("jv sync --dry-run counts the contents it would send and fetch; jv sync clone --attachments none leaves them at the location")
    func aDryRunCountsContentsAndACloneCanLeaveThem() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        let content = Self.content(1_500_000, seed: 31)
        let id = try Self.attach(machines.first, content, name: "harbour.jpg")
        let dry = try machines.first.run(["sync", "--dry-run", "--json"]).object()
        #expect(dry["dry_run"] as? Bool == true && dry["contents_to_send"] as? Int == 1 && dry["contents_to_fetch"] as? Int == 0, "\(dry)")
        let said = try machines.first.run(["sync", "--dry-run"])
        #expect(said.out.contains("(with 1 attachment's content)") && said.out.contains("nothing was changed"), "\(said)")
        #expect(Self.blobFiles(machines.location).isEmpty, "a dry run writes nothing")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))

        let third = try Sandbox()
        third.environment["XDG_CACHE_HOME"] = third.folder.file("cache")
        let cloned = try third.run(["sync", "clone", machines.location, "--attachments", "none", "--json"])
        #expect(cloned.status == 0, "\(cloned)")
        #expect(try cloned.object()["contents_left"] as? Int == 1, "\(cloned)")
        #expect(try Self.stored(third, id) == false)
        #expect(try third.run(["sync", "--dry-run", "--json"]).object()["contents_to_fetch"] as? Int == 1)
        #expect(try third.run(["sync", "--dry-run", "--attachments", "none", "--json"]).object()["contents_to_fetch"] as? Int == 0)
        #expect(try Self.get(third, id) == content)
        #expect(try third.run(["sync", "clone", machines.location, "--to", third.folder.file("other.vault"), "--attachments", "some"]).status == 64)
    }

    @Test("jv sync --attachments none leaves the content at the location; jv attachment get fetches it")
    func leftAtTheLocationFetchedOnGet() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        let content = Self.content(1_500_000, seed: 24)
        let id = try Self.attach(machines.first, content, name: "memo.m4a")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        let synced = try machines.second.run(["sync", "--attachments", "none"])
        #expect(synced.status == 0 && synced.out.contains("Left 1 attachment's content at the location"), "\(synced)")
        #expect(try Self.stored(machines.second, id) == false)
        #expect(try machines.second.run(["check"]).status == 0)
        #expect(try Self.get(machines.second, id) == content)
        #expect(try Self.stored(machines.second, id) == true)
        #expect(try machines.second.run(["check"]).status == 0)
        #expect(try machines.second.run(["sync", "--attachments", "some"]).status == 64)

        // The config file's [sync] attachments does the same; --attachments overrides it.
        let other = try Self.attach(machines.first, Self.content(70_000, seed: 27), name: "second.m4a")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        try machines.second.folder.write("config/jv/config.toml", "[sync]\nattachments = \"none\"\n")
        machines.second.environment["XDG_CONFIG_HOME"] = machines.second.folder.file("config")
        #expect(try machines.second.run(["sync"]).status == 0)
        #expect(try Self.stored(machines.second, other) == false)
        #expect(try machines.second.run(["sync", "--attachments", "all"]).out.contains("Fetched 1 attachment's content"))
        #expect(try Self.stored(machines.second, other) == true)
        try machines.second.folder.write("config/jv/config.toml", "[sync]\nattachments = \"some\"\n")
        #expect(try machines.second.run(["sync"]).status == 64)
    }

    @Test("a damaged blob file in the location: jv sync applies the records, stores nothing of the content, says so and exits 65")
    func aDamagedBlobFileExits65() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        let content = Self.content(2_500_000, seed: 25)
        let id = try Self.attach(machines.first, content, name: "scan.pdf")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        let file = try #require(Self.blobFiles(machines.location).first)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        var damaged = original
        damaged[damaged.count / 2] ^= 0x40
        try damaged.write(to: URL(fileURLWithPath: file))
        let synced = try machines.second.run(["sync"])
        #expect(synced.status == 65 && synced.err.contains("Refused: the blob file of content"), "\(synced)")
        #expect(try Self.stored(machines.second, id) == false)
        #expect(try machines.second.run(["check"]).status == 0)
        // Read, the content is fetched and refused again: nothing written.
        let output = machines.second.folder.file("scan-out.pdf")
        #expect(try machines.second.run(["attachment", "get", id, "--output", output]).status == 65)
        #expect(!FileManager.default.fileExists(atPath: output))

        try original.write(to: URL(fileURLWithPath: file))
        #expect(try machines.second.run(["sync"]).status == 0)
        #expect(try Self.get(machines.second, id) == content)
    }

    @Test("jv sync killed at seeded moments while a content goes up and while it comes down: the next sync completes and check passes",
          .tags(.slow), .notInQuickRun)
    func killedWhileContentsMove() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        var generator = SeededGenerator(seed: 2323)
        for round in 0..<3 {
            let content = Self.content(12 << 20, seed: UInt64(round))
            let id = try Self.attach(machines.first, content, name: "video-\(round).mp4")
            for sandbox in [machines.first, machines.second] {
                let child = try sandbox.start(["sync"])
                Thread.sleep(forTimeInterval: Double(generator.next() % 300) / 1000)
                child.kill(SIGKILL)
                _ = child.wait()
            }
            try machines.converge()
            #expect(try Self.get(machines.second, id) == content, "round \(round)")
            let leftovers = Self.files(under: machines.location).filter { $0.contains(".jvb.") }
            #expect(leftovers.isEmpty)
        }
        #expect(Self.blobFiles(machines.location).count == 3)
    }

    @Test("through an rclone local remote: the content goes up before its pack, comes down when fetched, and the cache keeps no copy",
          .tags(.externalTools, .slow), .notInQuickRun)
    func throughAnRcloneRemote() throws {
        _ = try #require(JV.tool("rclone"), "rclone is not installed (make test installs it)")
        let remoteFolder = try TemporaryFolder()
        let machines = try Machines(location: { _ in "rclone:here:\(remoteFolder.path)/journal" }, environment: ["RCLONE_CONFIG_HERE_TYPE": "local"])
        let content = Self.content(2_200_000, seed: 26)
        let id = try Self.attach(machines.first, content, name: "harbour.heic")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        #expect(Self.blobFiles(remoteFolder.path + "/journal").count == 1)
        let synced = try machines.second.run(["sync", "--attachments", "none"])
        #expect(synced.status == 0, "\(synced)")
        #expect(try Self.get(machines.second, id) == content)
        for sandbox in [machines.first, machines.second] {
            #expect(Self.files(under: sandbox.folder.file("cache")).filter { $0.contains(".jvb") }.isEmpty)
            #expect(try sandbox.run(["check"]).status == 0)
        }
    }
}
