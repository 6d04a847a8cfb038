// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `jv unlock` / `jv lock`: an agent holds the key for the user's own commands, in a
/// private folder, until its timeout, `jv lock`, or its end; nothing is left after it.
@Suite("session agent", .tags(.e2e))
struct SessionTests {
    /// A sandbox with a vault of one entry, whose commands have no passphrase unless given one.
    private func lockedSandbox() throws -> (Sandbox, String) {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let id = try sandbox.add("Before the session. #walk", ["--at", "2026-11-20T09:00"])
        sandbox.environment["JV_PASSPHRASE_FILE"] = nil
        return (sandbox, id)
    }

    @discardableResult
    private func unlock(_ sandbox: Sandbox, _ options: [String] = []) throws -> [String: Any] {
        let result = try sandbox.run(["unlock", "--json", "--passphrase-file", sandbox.passphraseFile] + options)
        try Sandbox.requireSuccess(result)
        return try result.object()
    }

    private func session(_ sandbox: Sandbox) throws -> [String: Any]? {
        let result = try sandbox.run(["info", "--json"])
        try Sandbox.requireSuccess(result)
        return try result.object()["session"] as? [String: Any]
    }

    private func sessionFolder(_ sandbox: Sandbox) -> String { sandbox.runtime.path + "/jv" }

    /// The names of the sockets in the session folder (which also holds its salt).
    private func sockets(_ sandbox: Sandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: sessionFolder(sandbox))) ?? []).filter { $0.hasSuffix(".socket") }.sorted()
    }

    static func isRunning(_ pid: Int32) -> Bool {
        // A zombie has no memory left; only a live process counts.
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        return !status.contains("State:\tZ")
    }

    /// Whether the process `pid` ended within `seconds` (also for other suites' agents).
    static func waitUntilGone(_ pid: Int32, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Self.isRunning(pid) && Date() < deadline { usleep(50_000) }
        return !Self.isRunning(pid)
    }

    @Test("after jv unlock, commands need no passphrase; --no-agent and jv lock bring the question back")
    func commandsUseTheSession() throws {
        let (sandbox, id) = try lockedSandbox()
        let noPassphrase = try sandbox.run(["list"])
        #expect(noPassphrase.status == 64, "without a session there is nothing to unlock with: \(noPassphrase)")

        let unlocked = try unlock(sandbox)
        #expect(unlocked["idle_timeout_seconds"] as? Int == 900, "15 minutes by default")
        #expect(try sandbox.list().map { $0["id"] as? String } == [id])
        #expect(try sandbox.show(id)["content"] as? String == "Before the session. #walk")
        let added = try sandbox.add("During the session. #walk", ["--at", "2026-11-21T09:00"])
        let search = try sandbox.run(["search", "--json", "session"])
        try Sandbox.requireSuccess(search)
        #expect(try search.array().count == 2)
        #expect(try sandbox.run(["tags"]).out.contains("walk"))
        try Sandbox.requireSuccess(try sandbox.run(["check"]))

        let bypassed = try sandbox.run(["list", "--no-agent"])
        #expect(bypassed.status == 64, "--no-agent ignores the session: \(bypassed)")
        #expect(bypassed.err.contains("No passphrase"))

        let locked = try sandbox.run(["lock"])
        #expect(locked.status == 0 && locked.out.contains("Locked"), "\(locked)")
        #expect(try sandbox.run(["list"]).status == 64)
        #expect(sockets(sandbox).isEmpty, "the agent removes its socket")
        #expect(try sandbox.run(["lock"]).out.contains("No session"))
        // What the session wrote is in the vault, readable with the passphrase.
        let after = try sandbox.run(["list", "--json", "--passphrase-file", sandbox.passphraseFile])
        #expect(try after.array().map { $0["id"] as? String } == [id, added])
    }

    @Test("jv info shows the session: when it expires, its length, its agent; jv lock --all ends every one")
    func infoAndLockAll() throws {
        let (sandbox, _) = try lockedSandbox()
        #expect(try session(sandbox) == nil)
        #expect(try sandbox.run(["info"]).out.contains("session         none"))
        let started = try unlock(sandbox, ["--for", "1h30m"])
        let shown = try #require(try session(sandbox))
        #expect(shown["idle_timeout_seconds"] as? Int == 5400)
        #expect(shown["agent_pid"] as? Int == started["agent_pid"] as? Int)
        #expect((shown["expires_at"] as? String)?.isEmpty == false)
        #expect(try sandbox.run(["info"]).out.contains("1 hour 30 minutes after its last use"))

        // A second vault with its own session.
        let other = sandbox.folder.file("other/other.vault")
        try Sandbox.requireSuccess(try sandbox.run(["init", "--kdf", "interactive", "--vault", other, "--passphrase-file", sandbox.passphraseFile]))
        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--vault", other, "--passphrase-file", sandbox.passphraseFile]))
        #expect(sockets(sandbox).count == 2)
        let pid = try #require(started["agent_pid"] as? Int)
        let all = try sandbox.run(["lock", "--all", "--json"])
        #expect(try all.object()["ended"] as? Int == 2, "\(all)")
        #expect(Self.waitUntilGone(Int32(pid), seconds: 5))
        #expect(sockets(sandbox).isEmpty)
    }

    @Test("--for refuses what is not a length of at most 8 hours")
    func lengthIsChecked() throws {
        let (sandbox, _) = try lockedSandbox()
        for bad in ["0s", "9h", "15", "soon", "-5m"] {
            let result = try sandbox.run(["unlock", "--for", bad, "--passphrase-file", sandbox.passphraseFile])
            #expect(result.status == 64, "\(bad): \(result)")
        }
        #expect(sockets(sandbox).isEmpty)
    }

    @Test("the session folder is 0700 and the socket 0600, both the user's; a folder others can reach is not used")
    func folderAndSocketModes() throws {
        let (sandbox, _) = try lockedSandbox()
        try unlock(sandbox)
        var folder = stat(), socket = stat()
        #expect(lstat(sessionFolder(sandbox), &folder) == 0)
        #expect(folder.st_mode & 0o7777 == 0o700 && folder.st_uid == getuid())
        let socketPath = try #require(sockets(sandbox).first.map { sessionFolder(sandbox) + "/" + $0 })
        #expect(lstat(socketPath, &socket) == 0)
        #expect(socket.st_mode & S_IFMT == S_IFSOCK && socket.st_mode & 0o7777 == 0o600 && socket.st_uid == getuid())

        // Made reachable by others: no command hands a key through it.
        chmod(sessionFolder(sandbox), 0o755)
        let refused = try sandbox.run(["list"])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.err.contains("not a private folder"), "\(refused.err)")
        let info = try sandbox.run(["info", "--json"])
        #expect(info.status == 0 && info.err.contains("not a private folder"), "info still answers: \(info)")
        chmod(sessionFolder(sandbox), 0o700)
        try Sandbox.requireSuccess(try sandbox.run(["list"]))
    }

    @Test("the agent ends at its timeout: the process is gone and its socket removed", .tags(.slow), .notInQuickRun)
    func agentEndsAtItsTimeout() throws {
        let (sandbox, _) = try lockedSandbox()
        let pid = try #require(try unlock(sandbox, ["--for", "2s"])["agent_pid"] as? Int)
        #expect(Self.isRunning(Int32(pid)))
        // Each use starts the timeout again.
        usleep(1_200_000)
        try Sandbox.requireSuccess(try sandbox.run(["list"]))
        usleep(1_200_000)
        try Sandbox.requireSuccess(try sandbox.run(["list"]))
        #expect(Self.waitUntilGone(Int32(pid), seconds: 6))
        #expect(sockets(sandbox).isEmpty)
        #expect(try sandbox.run(["list"]).status == 64)
    }

    @Test("the agent holds its key in locked memory, cannot be dumped or traced, and holds no file open but the vault it indexes")
    func agentProcessIsHardened() throws {
        let (sandbox, _) = try lockedSandbox()
        let pid = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        defer { _ = try? sandbox.run(["lock"]) }
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let locked = status.split(separator: "\n").first { $0.hasPrefix("VmLck:") }.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "0" }
        // Where memory may not be locked (RLIMIT_MEMLOCK 0, not root), libsodium skips it; jv warns.
        let limits = (try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8)) ?? ""
        let memoryLock = limits.split(separator: "\n").first { $0.hasPrefix("Max locked memory") }
        if getuid() == 0 || memoryLock?.split(separator: " ").dropFirst(3).first != "0" {
            #expect(Int(locked ?? "0") ?? 0 > 0, "the key's pages are locked: \(locked ?? "no VmLck")")
        }
        // Not dumpable: its /proc files belong to root and ptrace is refused to same-user processes.
        #expect(status.contains("TracerPid:\t0"))
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        let targets = descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
        // The vault it indexes, read-only, with SQLite's own files beside it; no other file (but
        // its own memory map, which it reads for a moment as it locks its memory after a build).
        let vaultFiles = [sandbox.vault, sandbox.vault + "-wal", sandbox.vault + "-shm", "/proc/\(pid)/maps"]
        #expect(!targets.contains { $0.hasPrefix("/") && !vaultFiles.contains($0) && !$0.hasPrefix("/dev/null") && !$0.hasSuffix(".socket") },
                "the agent opens no file but the vault's: \(targets)")
        #expect(!targets.contains { $0.hasPrefix("/dev/pts") || $0.hasPrefix("/dev/tty") }, "no terminal: \(targets)")
        let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
        #expect(environment.isEmpty, "the agent runs with an empty environment")
    }

    @Test("a killed agent leaves nothing: the next command removes its socket and asks for the passphrase")
    func killedAgentLeavesNothing() throws {
        let (sandbox, _) = try lockedSandbox()
        let pid = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        kill(Int32(pid), SIGKILL)
        #expect(Self.waitUntilGone(Int32(pid), seconds: 5))
        #expect(try sandbox.run(["list"]).status == 64)
        #expect(sockets(sandbox).isEmpty, "the abandoned socket is removed")
        #expect(try session(sandbox) == nil)
        #expect(try sandbox.hiddenFiles(in: (sandbox.vault as NSString).deletingLastPathComponent).isEmpty)
        // A new session starts where the old one was.
        try unlock(sandbox)
        try Sandbox.requireSuccess(try sandbox.run(["list"]))
        try Sandbox.requireSuccess(try sandbox.run(["lock"]))
    }

    @Test("a wrong passphrase never starts an agent")
    func wrongPassphraseStartsNothing() throws {
        let (sandbox, _) = try lockedSandbox()
        let wrong = try sandbox.folder.write("wrong.txt", "not the passphrase\n")
        let result = try sandbox.run(["unlock", "--passphrase-file", wrong])
        #expect(result.status == 77, "\(result)")
        #expect(sockets(sandbox).isEmpty)
        #expect(try sandbox.run(["list"]).status == 64)
    }

    @Test("rekey ends the session that holds the old key; passwd and recovery-key still ask for the secret")
    func secretsCommandsDoNotUseTheSession() throws {
        let (sandbox, _) = try lockedSandbox()
        let pid = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        for command in [["passwd"], ["recovery-key"], ["rekey"]] {
            let result = try sandbox.run(command)
            #expect(result.status == 64, "\(command) asks for the secret even in a session: \(result)")
        }
        let rekeyed = try sandbox.run(["rekey", "--passphrase-file", sandbox.passphraseFile])
        try Sandbox.requireSuccess(rekeyed)
        #expect(rekeyed.err.contains("session holding the old key was ended"), "\(rekeyed.err)")
        #expect(Self.waitUntilGone(Int32(pid), seconds: 5))
        #expect(try sandbox.run(["list"]).status == 64)
    }

    @Test("a session whose key no longer opens the vault at its path is ended, and the command asks as without one")
    func staleSessionIsEnded() throws {
        let (sandbox, _) = try lockedSandbox()
        // A copy of the vault (the same id) rotated to a new key, and backed up.
        let copy = try copyOfVault(sandbox)
        try Sandbox.requireSuccess(try sandbox.run(["rekey", "--vault", copy, "--passphrase-file", sandbox.passphraseFile]))
        let backup = sandbox.folder.file("rekeyed.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup, "--vault", copy, "--passphrase-file", sandbox.passphraseFile]))
        let pid = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        #expect(Self.isRunning(Int32(pid)), "the session serves the original")
        // Restored over the vault: the file at the session's path is under the new key now.
        try Sandbox.requireSuccess(try sandbox.run(["restore", backup, "--force", "--passphrase-file", sandbox.passphraseFile]))
        let result = try sandbox.run(["list"])
        #expect(result.status == 64, "the old key does not open the rekeyed vault: \(result)")
        #expect(Self.waitUntilGone(Int32(pid), seconds: 5), "and the session holding it is ended")
    }

    /// A byte-for-byte copy of the sandbox's vault (the same vault id) in another folder.
    private func copyOfVault(_ sandbox: Sandbox) throws -> String {
        let copy = sandbox.folder.file("copy/journal.vault")
        try FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sandbox.vault, toPath: copy)
        return copy
    }

    @Test("a copy of the vault (the same id in another file) has its own session: neither ends nor serves the other's")
    func aCopyHasItsOwnSession() throws {
        let (sandbox, _) = try lockedSandbox()
        let copy = try copyOfVault(sandbox)
        let original = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        #expect(try sandbox.run(["list", "--vault", copy]).status == 64, "the original's session does not open the copy")
        let copied = try #require(try unlock(sandbox, ["--vault", copy])["agent_pid"] as? Int)
        #expect(Self.isRunning(Int32(original)), "unlocking the copy leaves the original's session open")
        #expect(sockets(sandbox).count == 2)
        #expect(try session(sandbox)?["agent_pid"] as? Int == original)
        let copyInfo = try sandbox.run(["info", "--json", "--vault", copy])
        #expect(try copyInfo.object()["session"].flatMap { $0 as? [String: Any] }?["agent_pid"] as? Int == copied, "\(copyInfo)")
        try Sandbox.requireSuccess(try sandbox.run(["list", "--vault", copy]))

        // Every name of the file finds its session: a link, a path through `..`.
        let link = sandbox.folder.file("link.vault")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.vault)
        for name in [link, sandbox.folder.file("copy/../vault/journal.vault")] {
            let info = try sandbox.run(["info", "--json", "--vault", name])
            #expect(try info.object()["session"].flatMap { $0 as? [String: Any] }?["agent_pid"] as? Int == original, "\(name): \(info)")
        }
        // A restore over the vault replaces the file at its path: its session stays its own.
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        try Sandbox.requireSuccess(try sandbox.run(["restore", backup, "--force", "--passphrase-file", sandbox.passphraseFile]))
        try Sandbox.requireSuccess(try sandbox.run(["list"]))

        let locked = try sandbox.run(["lock", "--vault", copy])
        #expect(locked.out.contains("Locked"), "\(locked)")
        #expect(Self.waitUntilGone(Int32(copied), seconds: 5))
        #expect(Self.isRunning(Int32(original)), "locking the copy leaves the original's session open")
        try Sandbox.requireSuccess(try sandbox.run(["list"]))
        #expect(try sandbox.run(["list", "--vault", copy]).status == 64)
        try Sandbox.requireSuccess(try sandbox.run(["lock"]))
    }

    @Test("a device that follows another's jv rekey through jv sync ends its session holding the old key")
    func followingARotationEndsTheSession() throws {
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("location") })
        let pid = try #require(try unlock(machines.second)["agent_pid"] as? Int)
        try Sandbox.requireSuccess(try machines.first.run(["rekey"]))
        // The second machine follows once a pack made under the new key reaches it.
        _ = try machines.first.add("Written under the new key.")
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        let followed = try machines.second.run(["sync", "--no-agent", "--json"])
        #expect(try followed.object()["rekeyed_to"] as? Int == 2, "\(followed)")
        #expect(Self.waitUntilGone(Int32(pid), seconds: 5), "the agent holding key version 1 is gone")
        #expect(try session(machines.second) == nil)
    }

    @Test("what others on the machine see of a session (/proc/net/unix, the agent's command line) names neither the vault nor its file")
    func othersCannotTellWhichVault() throws {
        let (sandbox, _) = try lockedSandbox()
        let vaultID = try #require(try sandbox.run(["info", "--json"]).object()["vault_id"] as? String)
        let pid = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        defer { _ = try? sandbox.run(["lock"]) }
        let name = try #require(sockets(sandbox).first)
        // Read to its end: procfs files report no size.
        let table = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/net/unix")).readDataToEndOfFile(), as: UTF8.self)
        #expect(table.contains(name), "every user reads the names of bound sockets")
        let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        for revealing in [vaultID, vaultID.replacingOccurrences(of: "-", with: ""), sandbox.vault, "journal.vault"] {
            #expect(!table.contains(revealing), "/proc/net/unix shows \(revealing)")
            #expect(!containsBytes(commandLine, Data(revealing.utf8)), "the agent's command line shows \(revealing)")
        }
        // Nor can someone who knows the vault's id and path compute the name: it is keyed by a
        // secret salt of the session folder, so another folder names the same file otherwise.
        var salt = stat()
        #expect(lstat(sessionFolder(sandbox) + "/salt", &salt) == 0 && salt.st_mode & 0o7777 == 0o600 && salt.st_size == 32)
        let otherRuntime = try TemporaryFolder(prefix: "jvTests-runtime", in: (sandbox.runtime.path as NSString).deletingLastPathComponent)
        let elsewhere: [String: String?] = ["XDG_RUNTIME_DIR": otherRuntime.path]
        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile], env: elsewhere))
        defer { _ = try? sandbox.run(["lock"], env: elsewhere) }
        let otherNames = try FileManager.default.contentsOfDirectory(atPath: otherRuntime.path + "/jv").filter { $0.hasSuffix(".socket") }
        #expect(otherNames.count == 1 && !otherNames.contains(name), "\(otherNames) beside \(name)")
    }

    @Test("a session folder whose path is longer than a socket address holds (108 bytes) serves sessions all the same")
    func longRuntimeFolder() throws {
        let (sandbox, _) = try lockedSandbox()
        let runtime = sandbox.runtime.path + "/" + String(repeating: "a-folder-with-a-long-name/", count: 5)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect((runtime + "/jv/").utf8.count > 108)
        sandbox.environment["XDG_RUNTIME_DIR"] = runtime
        let pid = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        try Sandbox.requireSuccess(try sandbox.run(["list"]))
        #expect(try session(sandbox)?["agent_pid"] as? Int == pid)
        let locked = try sandbox.run(["lock", "--all"])
        #expect(locked.out.contains("Ended 1 session"), "\(locked)")
        #expect(Self.waitUntilGone(Int32(pid), seconds: 5))
        // A killed agent's socket there is found and removed too.
        let killed = try #require(try unlock(sandbox)["agent_pid"] as? Int)
        kill(Int32(killed), SIGKILL)
        #expect(Self.waitUntilGone(Int32(killed), seconds: 5))
        #expect(try sandbox.run(["list"]).status == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime + "/jv").filter { $0.hasSuffix(".socket") }.isEmpty)
    }

    @Test("a crash signal ends the agent at once: its socket stops answering and commands ask for the passphrase")
    func crashedAgentEnds() throws {
        let (sandbox, _) = try lockedSandbox()
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            let pid = try #require(try unlock(sandbox)["agent_pid"] as? Int)
            kill(Int32(pid), signal)
            #expect(Self.waitUntilGone(Int32(pid), seconds: 3), "signal \(signal) left the agent running")
            #expect(try sandbox.run(["list"]).status == 64, "signal \(signal)")
            #expect(sockets(sandbox).isEmpty, "signal \(signal)")
        }
    }

    /// The request `jv info` sends (SessionWire: "JVS2", 'S', the session id its socket is named by), as hex.
    private func statusRequest(socket: String) -> String {
        "4a565332" + "53" + (socket as NSString).lastPathComponent.prefix(32)
    }

    @Test("the agent answers only its own user (SO_PEERCRED): another uid that reaches the socket gets nothing",
          .tags(.root), .enabled(if: getuid() == 0 && WithoutWriteAccess.setpriv != nil && JV.tool("perl") != nil,
                   "needs root, setpriv and perl to connect as nobody"))
    func anotherUserIsRefused() throws {
        let (sandbox, _) = try lockedSandbox()
        try unlock(sandbox)
        defer { _ = try? sandbox.run(["lock"]) }
        let socket = try #require(sockets(sandbox).first.map { sessionFolder(sandbox) + "/" + $0 })
        // A client that sends one request and prints how many bytes came back (-1: the
        // connection was reset).
        let client = """
            $SIG{PIPE} = "IGNORE"; use Socket; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
            connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!";
            syswrite($s, pack("H*", $ARGV[1])); my $n = sysread($s, my $answer, 4096);
            print defined $n ? $n : -1;
            """
        let perl = try #require(JV.tool("perl"))
        let asRoot = try sandbox.runTool(perl, ["-e", client, socket, statusRequest(socket: socket)])
        #expect(asRoot.out == "33", "the owner gets an answer: \(asRoot)")

        // The modes opened so that only the kernel's peer check stands between nobody and the key.
        for path in [sandbox.runtime.path, sessionFolder(sandbox)] { chmod(path, 0o711) }
        chmod(socket, 0o666)
        defer {
            for path in [sandbox.runtime.path, sessionFolder(sandbox)] { chmod(path, 0o700) }
            chmod(socket, 0o600)
        }
        let setpriv = try #require(WithoutWriteAccess.setpriv)
        let asNobody = try sandbox.runTool(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", perl, "-e", client, socket,
                                                     statusRequest(socket: socket)])
        #expect(asNobody.err.isEmpty, "nobody reached the socket: \(asNobody)")
        #expect(asNobody.status == 0 && ["0", "-1"].contains(asNobody.out), "nobody is disconnected without an answer: \(asNobody)")
        // The agent goes on serving its owner.
        for path in [sandbox.runtime.path, sessionFolder(sandbox)] { chmod(path, 0o700) }
        chmod(socket, 0o600)
        try Sandbox.requireSuccess(try sandbox.run(["list"]))
    }
}
