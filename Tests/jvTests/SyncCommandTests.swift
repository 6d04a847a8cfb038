// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `jv sync` as people run it: two machines (two sandboxes, each with its own home and vault)
/// through a plain folder, an rclone local remote and an rclone WebDAV server on 127.0.0.1;
/// tampered packs, an unreachable location, a wrong passphrase, and `kill -9` mid-sync.
@Suite(.tags(.e2e)) struct SyncCommandTests {
    /// Two machines of one journal: `first` set up with `jv sync init location`, `second` made
    /// with `jv sync clone location`. `environment` is added to both (an rclone remote's settings).
    struct Machines {
        let first: Sandbox
        let second: Sandbox
        let location: String

        init(location: (Sandbox) throws -> String, environment: [String: String] = [:], prepare: (Sandbox) throws -> Void = { _ in }) throws {
            first = try Sandbox()
            second = try Sandbox()
            for sandbox in [first, second] {
                for (name, value) in environment { sandbox.environment[name] = value }
                sandbox.environment["XDG_CACHE_HOME"] = sandbox.folder.file("cache")
            }
            self.location = try location(first)
            try first.initVault()
            try prepare(first)
            let initialised = try first.run(["sync", "init", self.location, "--json"])
            try Sandbox.requireSuccess(initialised)
            let cloned = try second.run(["sync", "clone", self.location, "--json"])
            try Sandbox.requireSuccess(cloned)
        }

        /// Entry ids and texts, as `jv list` shows them.
        static func entries(_ sandbox: Sandbox) throws -> [String] {
            try sandbox.list(["--json"]).map { "\($0["id"] as? String ?? "?") \($0["content"] as? String ?? "?")" }.sorted()
        }

        /// Both sync (twice each, so each has what the other sent), then hold the same entries and pass `jv check`.
        func converge() throws {
            for sandbox in [first, second, first, second] { try Sandbox.requireSuccess(try sandbox.run(["sync", "--json"])) }
            #expect(try Self.entries(first) == Self.entries(second))
            for sandbox in [first, second] { #expect(try sandbox.run(["check"]).status == 0) }
        }
    }

    /// The round trip every location must carry: what either machine writes reaches the other,
    /// an edit and a delete too, and the location holds nothing readable.
    static func roundTrip(_ machines: Machines, files: () throws -> [Data]) throws {
        let (first, second) = (machines.first, machines.second)
        #expect(try Machines.entries(second).contains { $0.hasSuffix("Written before the first sync. #harbour") })
        let fromSecond = try second.add("Written on the second machine. #lighthouse")
        try Sandbox.requireSuccess(try second.run(["chat", "add", "--role", "user", "A question asked on the second machine."]))
        try machines.converge()
        #expect(try first.show(fromSecond)["content"] as? String == "Written on the second machine. #lighthouse")
        #expect(try first.run(["list", "--tag", "lighthouse", "--json"]).array().count == 1, "the tag index is rebuilt on arrival")
        let thread = try #require(try second.run(["chat", "list", "--json"]).array().first?["id"] as? String)
        #expect(try first.run(["chat", "show", thread, "--json"]).out.contains("A question asked on the second machine."))

        try Sandbox.requireSuccess(try first.run(["edit", fromSecond], input: "Changed on the first machine."))
        let doomed = try first.add("Deleted again soon.")
        try machines.converge()
        try Sandbox.requireSuccess(try second.run(["delete", doomed, "--yes"]))
        try machines.converge()
        #expect(try second.show(fromSecond)["content"] as? String == "Changed on the first machine.")
        #expect(try first.run(["show", doomed]).status != 0, "the delete reached the first machine")

        var secrets = ["Written before the first sync", "harbour", "lighthouse", "second machine", "Changed on the first", "A question asked"]
            .map { Data($0.utf8) }
        // Nor the entry's time: as jv shows it, in milliseconds as text, or as the 8 bytes stored.
        let created = try #require(try first.show(fromSecond)["created_at"] as? String)
        secrets.append(Data(created.utf8))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let millis = Int64((try #require(formatter.date(from: created)).timeIntervalSince1970 * 1000).rounded())
        secrets += [Data(String(millis).utf8), withUnsafeBytes(of: millis.bigEndian) { Data($0) }, withUnsafeBytes(of: millis.littleEndian) { Data($0) }]
        for file in try files() {
            for secret in secrets { #expect(!containsBytes(file, secret), "a file in the sync location holds \(secret.count) bytes of a secret") }
        }
    }

    /// Every regular file under `folder`.
    static func files(under folder: String) throws -> [Data] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var contents: [Data] = []
        while let relative = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            let path = folder + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                contents.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        return contents
    }

    static func writeBeforeFirstSync(_ sandbox: Sandbox) throws {
        _ = try sandbox.add("Written before the first sync. #harbour")
    }

    @Test("through a plain folder: both machines hold the same journal, edits and deletes travel, the folder holds no plaintext",
          .tags(.slow), .notInQuickRun)
    func throughAFolder() throws {
        let machines = try Machines(location: { $0.folder.file("Sync/journal") }, prepare: { sandbox in
            try FileManager.default.createDirectory(atPath: sandbox.folder.file("Sync"), withIntermediateDirectories: true)
            try Self.writeBeforeFirstSync(sandbox)
        })
        try Self.roundTrip(machines) { try Self.files(under: machines.location) }
        // Pack sizes say nothing finer than 4096 bytes.
        let packs = try FileManager.default.subpathsOfDirectory(atPath: machines.location).filter { $0.hasSuffix(".jvp") }
        #expect(!packs.isEmpty)
        for pack in packs {
            let size = try FileManager.default.attributesOfItem(atPath: machines.location + "/" + pack)[.size] as? Int ?? 0
            #expect(size > 0 && size % 4096 == 0, "\(pack): \(size) bytes")
        }
        let status = try machines.first.run(["sync", "status", "--json"]).object()
        #expect((status["devices"] as? [Any])?.count == 1 && status["pending"] as? Int == 0, "\(status)")
    }

    @Test("through an rclone local remote", .tags(.externalTools, .slow), .notInQuickRun)
    func throughAnRcloneLocalRemote() throws {
        let rclone = try #require(JV.tool("rclone"), "rclone is not installed (make test installs it)")
        _ = rclone
        let remoteFolder = try TemporaryFolder()
        let machines = try Machines(location: { _ in "rclone:here:\(remoteFolder.path)/journal" },
                                    environment: ["RCLONE_CONFIG_HERE_TYPE": "local"], prepare: Self.writeBeforeFirstSync)
        try Self.roundTrip(machines) { try Self.files(under: remoteFolder.path) + Self.files(under: machines.first.folder.file("cache")) }
        // Compaction removes the packs on the remote too, and a clone then starts from the snapshot there.
        let packs = { try FileManager.default.subpathsOfDirectory(atPath: remoteFolder.path).filter { ($0 as NSString).lastPathComponent.hasPrefix("pack-") } }
        let before = try packs().count
        try Sandbox.requireSuccess(try machines.second.run(["sync", "--compact"]))
        try Sandbox.requireSuccess(try machines.first.run(["sync", "--compact"]))
        let after = try packs()
        #expect(after.count < before, "before: \(before), after: \(after)")
        let third = try Sandbox()
        third.environment["XDG_CACHE_HOME"] = third.folder.file("cache")
        third.environment["RCLONE_CONFIG_HERE_TYPE"] = "local"
        try Sandbox.requireSuccess(try third.run(["sync", "clone", machines.location]))
        #expect(try Machines.entries(third) == Machines.entries(machines.first))
    }

    @Test("through rclone to a WebDAV server on 127.0.0.1; with the server gone, sync says so and changes nothing",
          .tags(.externalTools, .network, .slow), .notInQuickRun)
    func throughWebDAV() throws {
        let rclone = try #require(JV.tool("rclone"), "rclone is not installed (make test installs it)")
        let served = try TemporaryFolder()
        let port = try Self.freePort()
        let server = try JV.spawn(executable: rclone, arguments: ["serve", "webdav", served.path, "--addr", "127.0.0.1:\(port)"],
                                  environment: ["PATH": "/usr/bin:/bin", "HOME": served.path], stdin: nil, ioFolder: served.path)
        defer { server.kill(SIGKILL); _ = server.wait() }
        try Self.waitForListener(port: port)
        let settings = ["RCLONE_CONFIG_DAV_TYPE": "webdav", "RCLONE_CONFIG_DAV_URL": "http://127.0.0.1:\(port)", "RCLONE_CONFIG_DAV_VENDOR": "other"]
        let machines = try Machines(location: { _ in "rclone:dav:journal" }, environment: settings, prepare: Self.writeBeforeFirstSync)
        try Self.roundTrip(machines) {
            try Self.files(under: served.path).filter { !$0.isEmpty }
        }

        server.kill(SIGKILL)
        _ = server.wait()
        _ = try machines.first.add("Written while the server is down.")
        let sqlite = try #require(JV.tool("sqlite3"))
        let before = try machines.first.runTool(sqlite, [machines.first.vault, ".dump"]).out
        let unreachable = try machines.first.run(["sync"])
        #expect(unreachable.status == 1 && unreachable.errorLines.count == 1, "\(unreachable)")
        #expect(unreachable.err.contains("nothing was changed"), "\(unreachable)")
        #expect(try machines.first.runTool(sqlite, [machines.first.vault, ".dump"]).out == before, "the vault is unchanged")
        #expect(try machines.first.run(["sync", "status", "--json"]).object()["pending"] as? Int == 1)
    }

    @Test("a tampered pack is refused with exit 65 and nothing of it applied; the untouched one after repair applies")
    func tamperedPackIsRefused() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        let id = try machines.second.add("Only in a pack that will be damaged.")
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        let device = try #require(try machines.second.run(["sync", "status", "--json"]).object()["device"] as? String)
        let vaultRoot = try #require(try FileManager.default.contentsOfDirectory(atPath: machines.location + "/jv-sync").first)
        let pack = "\(machines.location)/jv-sync/\(vaultRoot)/\(device)/pack-000000000001.jvp"
        let original = try Data(contentsOf: URL(fileURLWithPath: pack))
        var flipped = original
        flipped[flipped.count / 3] ^= 0x01
        try flipped.write(to: URL(fileURLWithPath: pack))
        let refused = try machines.first.run(["sync"])
        #expect(refused.status == 65, "\(refused)")
        #expect(try machines.first.run(["show", id]).status != 0, "nothing of the refused pack was applied")
        try original.write(to: URL(fileURLWithPath: pack))
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        #expect(try machines.first.show(id)["content"] as? String == "Only in a pack that will be damaged.")
    }

    @Test("jv sync clone with a wrong passphrase exits 77 and makes no vault")
    func cloneWithAWrongPassphrase() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        let wrong = try machines.second.folder.write("wrong.txt", "not the passphrase at all\n")
        let target = machines.second.folder.file("third/journal.vault")
        let refused = try machines.second.run(["sync", "clone", machines.location, "--to", target], env: ["JV_PASSPHRASE_FILE": wrong])
        #expect(refused.status == 77, "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("jv sync killed at seeded random moments, on either side, then run again: both machines converge and check passes",
          .tags(.slow), .notInQuickRun)
    func killedSyncConverges() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        var generator = SeededGenerator(seed: 1313)
        for round in 0..<6 {
            let writer = round % 2 == 0 ? machines.second : machines.first
            let reader = round % 2 == 0 ? machines.first : machines.second
            let batch = (0..<60).map { String(format: "[2026-0%d-%02d 10:%02d] Entry %d of round %d #round%d\n\n", round + 1, $0 % 28 + 1, $0, $0, round, round) }
            let imported = try writer.folder.write("batch-\(round).txt", batch.joined())
            try Sandbox.requireSuccess(try writer.run(["import", "--format", "jrnl-txt", imported]))
            // Killed while sending, then while receiving; each at a moment of its own.
            for sandbox in [writer, reader] {
                let child = try sandbox.start(["sync"])
                Thread.sleep(forTimeInterval: Double(generator.next() % 400) / 1000)
                child.kill(SIGKILL)
                _ = child.wait()
            }
            try machines.converge()
            #expect(try machines.first.run(["list", "--tag", "round\(round)", "--json"]).array().count == 60, "round \(round)")
        }
    }

    @Test("jv passwd on a synced machine reaches the location at its next jv sync: a new machine then joins with the new passphrase only")
    func passwdReachesTheLocation() throws {
        let machines = try Machines(location: { $0.folder.file("location") }, prepare: Self.writeBeforeFirstSync)
        let newPassphrase = try machines.first.folder.write("new.txt", "an entirely new passphrase\n")
        try Sandbox.requireSuccess(try machines.first.run(["passwd", "--new-passphrase-file", newPassphrase]))
        machines.first.environment["JV_PASSPHRASE_FILE"] = newPassphrase
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        // The second machine still has (and keys file still shows) the old one; the first's shows the new one.
        let third = try Sandbox()
        third.environment["XDG_CACHE_HOME"] = third.folder.file("cache")
        third.environment["JV_PASSPHRASE_FILE"] = newPassphrase
        let joined = try third.run(["sync", "clone", machines.location])
        #expect(joined.status == 0, "\(joined)")
        #expect(try Machines.entries(third) == Machines.entries(machines.first))
    }

    @Test("jv rekey on one machine: the other follows at its next jv sync, and the recovery key printed opens both", .tags(.slow), .notInQuickRun)
    func rekeyReachesTheOtherMachine() throws {
        let machines = try Machines(location: { $0.folder.file("location") }, prepare: Self.writeBeforeFirstSync)
        let beforeOnSecond = try machines.second.add("Written on the second machine before the rotation.")
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        let rotated = try machines.first.run(["rekey", "--json"])
        try Sandbox.requireSuccess(rotated)
        let recoveryKey = try #require(try rotated.object()["recovery_key"] as? String)
        let afterOnFirst = try machines.first.add("Written on the first machine under the new key.")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        #expect(try machines.first.show(beforeOnSecond)["content"] as? String == "Written on the second machine before the rotation.",
                "a pack made under the old key still applies")

        let followed = try machines.second.run(["sync", "--json"])
        #expect(followed.status == 0, "\(followed)")
        #expect(try followed.object()["rekeyed_to"] as? Int == 2, "\(followed)")
        #expect(try machines.second.sqlite("SELECT key_version FROM vault_header") == "2")
        #expect(try machines.second.show(afterOnFirst)["content"] as? String == "Written on the first machine under the new key.")
        let keyFile = try machines.second.folder.write("recovery.key", recoveryKey + "\n")
        #expect(try machines.second.run(["list", "--recovery-key-file", keyFile], env: ["JV_PASSPHRASE_FILE": nil]).status == 0,
                "the recovery key printed on the first machine opens the second")
        try machines.converge()
    }

    @Test("jv sync --compact: a snapshot replaces the packs both machines hold; a machine cloned afterwards holds everything",
          .tags(.slow), .notInQuickRun)
    func compactionFromTheCommandLine() throws {
        let machines = try Machines(location: { $0.folder.file("location") }, prepare: Self.writeBeforeFirstSync)
        for round in 0..<3 {
            _ = try machines.first.add("Round \(round) on the first machine. #round")
            try machines.converge()
        }
        let compacted = try machines.first.run(["sync", "--compact", "--json"])
        try Sandbox.requireSuccess(compacted)
        let report = try compacted.object()
        #expect(report["snapshot"] as? Int != nil && (report["packs_removed"] as? Int ?? 0) > 0, "\(report)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: machines.location)
        #expect(files.contains { $0.hasSuffix(".jvp") && ($0 as NSString).lastPathComponent.hasPrefix("snap-") }, "\(files)")
        #expect(try machines.first.run(["sync", "--compact", "--dry-run"]).status == 64)

        let third = try Sandbox()
        third.environment["XDG_CACHE_HOME"] = third.folder.file("cache")
        try Sandbox.requireSuccess(try third.run(["sync", "clone", machines.location]))
        #expect(try Machines.entries(third) == Machines.entries(machines.first))
        #expect(try third.run(["list", "--tag", "round", "--json"]).array().count == 3)
        #expect(try third.run(["check"]).status == 0)
    }

    /// A TCP port nothing listens on now.
    static func freePort() throws -> Int {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(socket, raw, length) == 0, getsockname(socket, raw, &length) == 0 else { throw HarnessError("no free port") }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func waitForListener(port: Int) throws {
        for _ in 0..<100 {
            let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(socket)
            if connected == 0 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessError("the WebDAV server did not start on port \(port)")
    }
}
