// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The session's search index: `jv search` in a session is answered by the agent's
/// index, which gives exactly what the scan gives, stays current with every write (through the
/// session or not, imports, `jv sync`), writes no file, dies with the session and answers only
/// its own user.
@Suite("session search index", .tags(.e2e))
struct SessionSearchTests {
    /// Words of many scripts, with diacritics, case, width and emoji: what a corpus and its
    /// queries are drawn from.
    private static let words = [
        "tea", "Tea", "café", "CAFE", "cafeteria", "naïve", "résumé", "morning", "rain", "Straße", "strasse", "καλημέρα", "ΚΑΛΗΜΕΡΑ",
        "привет", "Привет", "東京", "タワー", "京都", "ไทย", "🙂", "☕", "e-mail", "don't", "coffee", "green", "walk", "ｆｕｌｌ", "full",
        "lake", "lakes", "über", "uber", "niño", "nino", "42", "2026",
    ]

    private struct Corpus {
        var random: SeededGenerator

        mutating func word() -> String { SessionSearchTests.words.randomElement(using: &random)! }

        /// Some words between spaces and punctuation; now and then a long text.
        mutating func text() -> String {
            let count = Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 200...600, using: &random) : Int.random(in: 1...25, using: &random)
            var text = word()
            for _ in 1..<count { text += [" ", " ", ", ", ". ", "\n", " (", "-"].randomElement(using: &random)! + word() }
            return text
        }

        mutating func instant() -> String {
            let seconds = Int.random(in: 1_700_000_000...1_790_000_000, using: &random)
            return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }

        /// A jv-export document of `entries` entries, a thread of `messages` messages, and an
        /// analysis of each of the first `analyses` entries.
        mutating func document(entries: Int, messages: Int, analyses: Int) -> [String: Any] {
            let entryIDs = (0..<entries).map { _ in UUID().uuidString.lowercased() }
            let entryRecords = entryIDs.map { ["id": $0, "created_at": instant(), "content": text()] }
            let messageRecords = (0..<messages).map { index in
                ["id": UUID().uuidString.lowercased(), "role": index % 2 == 0 ? "user" : "assistant", "content": text(), "timestamp": instant()]
            }
            let thread: [String: Any] = ["id": UUID().uuidString.lowercased(), "created_at": instant(), "title": "t", "messages": messageRecords]
            let analysisRecords = entryIDs.prefix(analyses).map { id -> [String: Any] in
                ["id": UUID().uuidString.lowercased(), "entry_id": id, "model": "m", "processed_at": instant(), "sentiment": word(),
                 "themes": [word(), word()], "entities": ["people": [word()], "count": 3]]
            }
            return ["format": "jv-export", "version": 1, "entries": entryRecords, "threads": messages > 0 ? [thread] : [], "analyses": analysisRecords]
        }

        /// A query of the language: words, prefixes, phrases, OR, exclusions; with options.
        mutating func query() -> [String] {
            let atom = { (corpus: inout Corpus) -> String in
                switch Int.random(in: 0..<5, using: &corpus.random) {
                case 0: return String(corpus.word().prefix(Int.random(in: 1...3, using: &corpus.random))) + "*"
                case 1: return "\"\(corpus.word()) \(corpus.word())\""
                default: return corpus.word()
                }
            }
            var parts = [atom(&self)]
            switch Int.random(in: 0..<4, using: &random) {
            case 0: parts += ["OR", atom(&self)]
            case 1: parts += ["-" + word()]
            case 2: parts = ["-" + word()]
            default: break
            }
            var options: [String] = []
            if Bool.random(using: &random) { options += ["--rank"] }
            if Int.random(in: 0..<3, using: &random) == 0 { options += ["--kind", ["entry", "chat", "analysis"].randomElement(using: &random)!] }
            return options + ["--", parts.joined(separator: " ")]
        }
    }

    private func importDocument(_ sandbox: Sandbox, _ document: [String: Any], _ options: [String] = []) throws {
        let path = try sandbox.folder.write("import-\(UUID().uuidString).json", try JSONSerialization.data(withJSONObject: document))
        try Sandbox.requireSuccess(try sandbox.run(["import", path, "--format", "json"] + options))
    }

    private func searches(_ sandbox: Sandbox) throws -> Int {
        try #require(try sandbox.sessionIndex()?["searches"] as? Int)
    }

    /// `jv search --json` with the session and with `--no-agent` (the scan) print the same bytes,
    /// and the first was answered by the index.
    private func compare(_ sandbox: Sandbox, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try searches(sandbox)
        let indexed = try sandbox.run(["search", "--json"] + arguments)
        let scanned = try sandbox.run(["search", "--json", "--no-agent", "--passphrase-file", sandbox.passphraseFile] + arguments)
        #expect(indexed.status == scanned.status, "\(arguments): \(indexed) against \(scanned)", sourceLocation: sourceLocation)
        #expect(indexed.out == scanned.out, "\(arguments): the index and the scan differ", sourceLocation: sourceLocation)
        #expect(try searches(sandbox) == before + (indexed.status == 0 ? 1 : 0), "\(arguments) was not answered by the index",
                sourceLocation: sourceLocation)
    }

    @Test("jv search --json gives the same bytes in a session (the index) and with --no-agent (the scan), through adds, edits, deletes, an import, a write without the session and a jv sync",
          .tags(.slow), .notInQuickRun, arguments: [1, 2] as [UInt64])
    func indexMatchesTheScan(seed: UInt64) throws {
        var corpus = Corpus(random: SeededGenerator(seed: 2400 + seed))
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("location") })
        let sandbox = machines.first
        try importDocument(sandbox, corpus.document(entries: 40, messages: 12, analyses: 10))
        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile]))
        defer { _ = try? sandbox.run(["lock"]) }
        try sandbox.waitUntilIndexReady()
        let queryRound = { (corpus: inout Corpus) in
            for _ in 0..<8 { try self.compare(sandbox, corpus.query()) }
        }
        try queryRound(&corpus)

        // Through the session: adds, a message, edits, deletes.
        var ids: [String] = []
        for _ in 0..<3 { ids.append(try sandbox.add(corpus.text())) }
        try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", corpus.text()]))
        try queryRound(&corpus)
        try Sandbox.requireSuccess(try sandbox.run(["edit", ids[0]], input: corpus.text()))
        try Sandbox.requireSuccess(try sandbox.run(["delete", "--yes", ids[1]]))
        let listed = try sandbox.list(["--json"]).ids
        try Sandbox.requireSuccess(try sandbox.run(["edit", listed[5]], input: corpus.text()))
        try Sandbox.requireSuccess(try sandbox.run(["delete", "--yes", listed[7]]))
        try queryRound(&corpus)

        // An import, and a write that never went through the session.
        try importDocument(sandbox, corpus.document(entries: 25, messages: 5, analyses: 5))
        try Sandbox.requireSuccess(try sandbox.run(["add", "--no-agent", "--passphrase-file", sandbox.passphraseFile, corpus.text()]))
        try queryRound(&corpus)

        // Another device's writes, which jv sync applies here: new entries, an edit and a
        // deletion of entries this device wrote.
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        for _ in 0..<4 { _ = try machines.second.add(corpus.text()) }
        try Sandbox.requireSuccess(try machines.second.run(["edit", ids[2]], input: corpus.text()))
        try Sandbox.requireSuccess(try machines.second.run(["delete", "--yes", listed[9]]))
        try Sandbox.requireSuccess(try machines.second.run(["sync"]))
        try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        try queryRound(&corpus)
        let indexed = try #require(try sandbox.sessionIndex())
        let counts = try #require(try sandbox.run(["info", "--json"]).object()["counts"] as? [String: Any])
        #expect(indexed["documents"] as? Int == ["entries", "messages", "analyses"].compactMap { counts[$0] as? Int }.reduce(0, +), "\(indexed) \(counts)")
    }

    @Test("a write made without the session is found by the very next search in the session")
    func currentAfterAWriteWithoutTheSession() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        _ = try sandbox.add("An ordinary morning.")
        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile]))
        defer { _ = try? sandbox.run(["lock"]) }
        try sandbox.waitUntilIndexReady()
        for round in 0..<3 {
            let word = "zebra\(round)"
            _ = try sandbox.run(["add", "--no-agent", "--passphrase-file", sandbox.passphraseFile, "Saw a \(word) today."])
            let before = try searches(sandbox)
            let found = try sandbox.run(["search", "--json", word])
            try Sandbox.requireSuccess(found)
            #expect(try found.array().contents == ["Saw a \(word) today."], "round \(round): \(found)")
            #expect(try searches(sandbox) == before + 1, "the index answered")
        }
    }

    @Test("jv info shows the index: its records, its size, and the agent's memory locked in RAM")
    func infoShowsTheIndex() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        for index in 0..<5 { _ = try sandbox.add("Entry \(index) about tea.") }
        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile]))
        defer { _ = try? sandbox.run(["lock"]) }
        let index = try sandbox.waitUntilIndexReady()
        #expect(index["documents"] as? Int == 5)
        #expect((index["bytes"] as? Int ?? 0) > 0)
        #expect((index["locked_bytes"] as? Int ?? 0) > 0, "the key's page at least is locked: \(index)")
        let text = try sandbox.run(["info"])
        #expect(text.out.contains("search index    ready: 5 records in"), "\(text.out)")
    }

    private func unlockWithIndex(_ sandbox: Sandbox, _ options: [String] = []) throws -> Int32 {
        let unlocked = try sandbox.run(["unlock", "--json", "--passphrase-file", sandbox.passphraseFile] + options)
        try Sandbox.requireSuccess(unlocked)
        let pid = try #require(try unlocked.object()["agent_pid"] as? Int)
        try sandbox.waitUntilIndexReady()
        return Int32(pid)
    }

    /// Each thread of `pid` by thread id: its nice value and the CPU time it used, in clock ticks
    /// (`/proc/PID/task/TID/stat`, fields 19, 14 and 15).
    private func threads(of pid: Int32) throws -> [Int32: (nice: Int32, ticks: Int)] {
        var threads: [Int32: (nice: Int32, ticks: Int)] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)
            // After the command name in parentheses, which may hold spaces: state is field 3.
            let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
            threads[try #require(Int32(task))] = (try #require(Int32(fields[16])), try #require(Int(fields[11])) + (try #require(Int(fields[12]))))
        }
        return threads
    }

    @Test("the index is built at the lowest priority: its work is done at nice 19, the agent's serving and index threads keep their own")
    func indexBuildYieldsTheCores() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        var corpus = Corpus(random: SeededGenerator(seed: 24))
        try importDocument(sandbox, corpus.document(entries: 3000, messages: 0, analyses: 0))
        let pid = try unlockWithIndex(sandbox)
        defer { _ = try? sandbox.run(["lock"]) }
        let threads = try threads(of: pid)
        let summary = threads.map { "\($0.key): nice \($0.value.nice), \($0.value.ticks) ticks" }.sorted()
        #expect(threads[pid]?.nice == 0, "the serving thread answers commands at the usual priority: \(summary)")
        #expect(threads.values.contains { $0.nice == 19 }, "the index's helpers yield to every command: \(summary)")
        #expect(threads.values.count { $0.nice == 0 } >= 2, "the index thread answers queries at the usual priority: \(summary)")
        // The first build's work (the threads that did it at nice 19 may have ended since) is
        // not on the threads at the usual priority: they used a small part of the agent's CPU.
        let total = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8).split(separator: ")").last.map { $0.split(separator: " ") }
        let processTicks = try #require(total.flatMap { Int($0[11]) }) + (try #require(total.flatMap { Int($0[12]) }))
        let usualTicks = threads.filter { $0.value.nice == 0 }.map(\.value.ticks).reduce(0, +)
        #expect(processTicks >= 20 && usualTicks * 5 <= processTicks, "\(usualTicks) of \(processTicks) ticks at nice 0: \(summary)")
    }

    @Test("the agent lives through its first build on a busy machine: again and again the index comes up ready and the agent answers")
    func firstBuildOnABusyMachine() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        var corpus = Corpus(random: SeededGenerator(seed: 25))
        try importDocument(sandbox, corpus.document(entries: 600, messages: 0, analyses: 0))
        // Two processes that keep both cores busy: the build's thread, at the lowest priority,
        // is then preempted at any moment (it once was just after handing its result back).
        let burners = try (0..<2).map { _ in try Process.run(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "while :; do :; done"]) }
        // SIGKILL: the shell of a test process may have SIGTERM blocked.
        defer { for burner in burners { kill(burner.processIdentifier, SIGKILL); burner.waitUntilExit() } }
        for round in 0..<4 {
            let unlocked = try sandbox.run(["unlock", "--json", "--passphrase-file", sandbox.passphraseFile])
            try Sandbox.requireSuccess(unlocked)
            let pid = try #require(try unlocked.object()["agent_pid"] as? Int)
            let index = try sandbox.waitUntilIndexReady(seconds: 30)
            #expect(kill(pid_t(pid), 0) == 0, "round \(round): the agent is gone")
            #expect(index["documents"] as? Int == 600, "round \(round): \(index)")
            try Sandbox.requireSuccess(try sandbox.run(["lock"]))
        }
    }

    @Test("after jv lock and jv rekey no agent remains, and with it the index")
    func indexEndsWithLockAndRekey() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        for index in 0..<20 { _ = try sandbox.add("Entry \(index) about tea and rain.") }
        let locked = try unlockWithIndex(sandbox)
        try Sandbox.requireSuccess(try sandbox.run(["lock"]))
        #expect(SessionTests.waitUntilGone(locked, seconds: 5))
        let rekeyed = try unlockWithIndex(sandbox)
        try Sandbox.requireSuccess(try sandbox.run(["rekey", "--passphrase-file", sandbox.passphraseFile]))
        #expect(SessionTests.waitUntilGone(rekeyed, seconds: 5))
        #expect(try sandbox.sessionIndex() == nil)
    }

    @Test("the agent ends at its idle timeout with a built index", .tags(.slow), .notInQuickRun)
    func indexEndsAtExpiry() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        _ = try sandbox.add("Entry about tea.")
        let pid = try unlockWithIndex(sandbox, ["--for", "3s"])
        #expect(SessionTests.waitUntilGone(pid, seconds: 8))
        #expect(try sandbox.sessionIndex() == nil)
    }

    @Test("after jv restore replaced the file, the index follows the new file, and what is written to it after stays in it")
    func indexFollowsARestore() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        for index in 0..<5 { _ = try sandbox.add("Entry \(index) about tea.") }
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        for index in 0..<3 { _ = try sandbox.add("Entry \(index) about rain.") }
        _ = try unlockWithIndex(sandbox)
        defer { _ = try? sandbox.run(["lock"]) }
        try compare(sandbox, ["rain"])
        try Sandbox.requireSuccess(try sandbox.run(["restore", backup, "--force", "--passphrase-file", sandbox.passphraseFile]))
        try compare(sandbox, ["rain"])
        try compare(sandbox, ["tea"])
        _ = try sandbox.add("Snow after the restore.")
        try Sandbox.requireSuccess(try sandbox.run(["add", "--no-agent", "--passphrase-file", sandbox.passphraseFile, "More snow."]))
        try compare(sandbox, ["snow"])
        try Sandbox.requireSuccess(try sandbox.run(["lock"]))
        let after = try sandbox.run(["list", "--json", "--no-agent", "--passphrase-file", sandbox.passphraseFile])
        #expect(try after.array().count == 7, "\(after)")
        try Sandbox.requireSuccess(try sandbox.run(["check", "--no-agent", "--passphrase-file", sandbox.passphraseFile]))
    }

    @Test("the agent ends its session itself when the file at its path no longer opens with its key: a nudge makes it look",
          .enabled(if: JV.tool("perl") != nil, "needs perl to send the nudge alone"))
    func agentEndsWhenItsKeyNoLongerOpens() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        _ = try sandbox.add("Before the rotation.")
        // The same vault under a new key, as a backup to restore over it.
        let copy = sandbox.folder.file("copy/journal.vault")
        try FileManager.default.createDirectory(atPath: sandbox.folder.file("copy"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sandbox.vault, toPath: copy)
        try Sandbox.requireSuccess(try sandbox.run(["rekey", "--vault", copy, "--passphrase-file", sandbox.passphraseFile]))
        let backup = sandbox.folder.file("rekeyed.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup, "--vault", copy, "--passphrase-file", sandbox.passphraseFile]))
        let pid = try unlockWithIndex(sandbox)
        try Sandbox.requireSuccess(try sandbox.run(["restore", backup, "--force", "--passphrase-file", sandbox.passphraseFile]))
        #expect(SessionTests.isRunning(pid), "nothing asked the agent yet")
        let folder = sandbox.runtime.path + "/jv"
        let socket = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".socket") }.map { folder + "/" + $0 })
        let nudge = "4a565332" + "4e" + (socket as NSString).lastPathComponent.prefix(32)
        let client = """
            use Socket; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!"; connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!";
            syswrite($s, pack("H*", $ARGV[1])); my $n = sysread($s, my $answer, 4096); print $n;
            """
        let sent = try sandbox.runTool(try #require(JV.tool("perl")), ["-e", client, socket, nudge])
        #expect(sent.out == "33", "the nudge is answered at once: \(sent)")
        #expect(SessionTests.waitUntilGone(pid, seconds: 10), "the agent found that its key does not open the file, and ended")
    }

    /// The thread ids of the process `pid` in strace's `-ff` logs (`<prefix>.<tid>`): it and every
    /// thread it or its threads cloned.
    private func threads(of pid: Int32, logs prefix: String) -> [String: String] {
        var found: [String: String] = [:]
        var pending = [String(pid)]
        while let tid = pending.popLast() {
            guard found[tid] == nil, let log = try? String(contentsOfFile: "\(prefix).\(tid)", encoding: .utf8) else { continue }
            found[tid] = log
            for line in log.split(separator: "\n") where line.hasPrefix("clone") {
                if let result = line.split(separator: "=").last?.trimmingCharacters(in: .whitespaces), Int(result) != nil { pending.append(result) }
            }
        }
        return found
    }

    @Test("over a session's life — unlock, the index built, searches, writes with and without the session, lock — the agent creates or writes no file but its socket and SQLite's own files of the vault",
          .tags(.externalTools), .enabled(if: JV.tool("strace") != nil, "needs strace (make test-deps)"))
    func agentWritesNoFile() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        for index in 0..<30 { _ = try sandbox.add("Entry \(index): green tea by the lake, #walk") }
        let logs = sandbox.folder.file("strace/log")
        try FileManager.default.createDirectory(atPath: sandbox.folder.file("strace"), withIntermediateDirectories: true)
        let strace = try #require(JV.tool("strace"))
        try FileManager.default.createDirectory(atPath: sandbox.folder.file(".strace-io"), withIntermediateDirectories: true)
        let traced = try JV.spawn(executable: strace, arguments: ["-f", "-ff", "-qq", "-o", logs, "-e", "trace=%file,%process", "--",
                                                                  sandbox.binary, "unlock", "--passphrase-file", sandbox.passphraseFile],
                                  environment: sandbox.environment, stdin: nil, ioFolder: sandbox.folder.file(".strace-io"))
        var stopped = false
        defer { if !stopped { _ = try? sandbox.run(["lock"]); _ = traced.wait(timeout: 30) } }
        try sandbox.waitUntilIndexReady(seconds: 120)
        let pid = try #require((try sandbox.run(["info", "--json"]).object()["session"] as? [String: Any])?["agent_pid"] as? Int)
        try compare(sandbox, ["tea"])
        _ = try sandbox.add("A new entry about rain.")
        try compare(sandbox, ["rain OR lake"])
        try Sandbox.requireSuccess(try sandbox.run(["add", "--no-agent", "--passphrase-file", sandbox.passphraseFile, "Snow."]))
        try compare(sandbox, ["snow"])
        try Sandbox.requireSuccess(try sandbox.run(["lock"]))
        let ended = traced.wait(timeout: 60)
        stopped = true
        #expect(ended.status == 0, "\(ended)")

        let socketFolder = sandbox.runtime.path + "/jv/"
        let allowed = [sandbox.vault, sandbox.vault + "-wal", sandbox.vault + "-shm", "/dev/null"]
        let writing = ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
        let changing = ["mkdir", "rename", "link", "symlink", "truncate", "unlink", "chmod", "chown", "mknod", "utime"]
        let agent = threads(of: Int32(pid), logs: logs)
        #expect(agent.count > 1, "the agent's index thread was traced too: \(agent.keys.sorted())")
        var violations: [String] = []
        for (tid, log) in agent {
            for line in log.split(separator: "\n") {
                let call = line.prefix { $0 != "(" }
                guard let path = line.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false).dropFirst().first.map(String.init) else { continue }
                let opensForWriting = (call == "open" || call == "openat" || call == "creat") && writing.contains { line.contains($0) }
                guard opensForWriting || changing.contains(where: { call.hasPrefix($0) }) else { continue }
                // Its socket (and the check's outcome beside it, which the agent removes).
                if path.hasPrefix(socketFolder) && (path.hasSuffix(".socket") || path.hasSuffix(".socket.checked")) { continue }
                if allowed.contains(path) { continue }
                violations.append("\(tid): \(line)")
            }
        }
        #expect(violations.isEmpty, "the agent wrote files: \(violations)")
    }

    /// The bytes of a `Q` request (FORMAT.md §13) for the word `tea` in entries, as hex.
    private func queryRequest(socket: String) -> String {
        "4a565332" + "51" + (socket as NSString).lastPathComponent.prefix(32) + "00" + "01" + "0000000e"
            + "0001" + "0001" + "00" + "0001" + "0003" + "746561" + "0000"
    }

    @Test("another uid that reaches the socket cannot query the index (SO_PEERCRED): it gets no byte",
          .tags(.root), .enabled(if: getuid() == 0 && WithoutWriteAccess.setpriv != nil && JV.tool("perl") != nil,
                                 "needs root, setpriv and perl to connect as nobody"))
    func anotherUserCannotQuery() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        _ = try sandbox.add("Green tea by the lake.")
        _ = try unlockWithIndex(sandbox)
        defer { _ = try? sandbox.run(["lock"]) }
        let folder = sandbox.runtime.path + "/jv"
        let socket = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".socket") }.map { folder + "/" + $0 })
        let client = """
            $SIG{PIPE} = "IGNORE"; use Socket; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
            connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!";
            syswrite($s, pack("H*", $ARGV[1])); my $all = ""; while (1) { my $n = sysread($s, my $part, 65536); last unless $n; $all .= $part; }
            print unpack("H*", $all);
            """
        let perl = try #require(JV.tool("perl"))
        let asOwner = try sandbox.runTool(perl, ["-e", client, socket, queryRequest(socket: socket)])
        // The fixed answer (33 bytes), then hits: result 0, a payload of one entry's hit.
        #expect(asOwner.out.count > 2 * 38 && asOwner.out.dropFirst(66).hasPrefix("00"), "the owner gets the hits: \(asOwner)")
        for path in [sandbox.runtime.path, folder] { chmod(path, 0o711) }
        chmod(socket, 0o666)
        defer {
            for path in [sandbox.runtime.path, folder] { chmod(path, 0o700) }
            chmod(socket, 0o600)
        }
        let setpriv = try #require(WithoutWriteAccess.setpriv)
        let asNobody = try sandbox.runTool(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", perl, "-e", client, socket,
                                                     queryRequest(socket: socket)])
        #expect(asNobody.err.isEmpty, "nobody reached the socket: \(asNobody)")
        #expect(asNobody.status == 0 && asNobody.out.isEmpty, "nobody is disconnected without a byte: \(asNobody)")
    }

    @Test("without CAP_IPC_LOCK and with RLIMIT_MEMLOCK at 8 MiB, the agent locks what the limit allows, region by region, and no more",
          .tags(.root), .enabled(if: getuid() == 0 && WithoutWriteAccess.setpriv != nil && JV.tool("prlimit") != nil,
                                 "needs root, setpriv and prlimit to drop CAP_IPC_LOCK"))
    func lockingWithinTheLimit() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        var corpus = Corpus(random: SeededGenerator(seed: 8))
        try importDocument(sandbox, corpus.document(entries: 300, messages: 0, analyses: 0))
        let limit = 8 << 20
        let setpriv = try #require(WithoutWriteAccess.setpriv), prlimit = try #require(JV.tool("prlimit"))
        let unlocked = try sandbox.runTool(setpriv, ["--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock", prlimit, "--memlock=\(limit):\(limit)",
                                                     sandbox.binary, "unlock", "--passphrase-file", sandbox.passphraseFile])
        try Sandbox.requireSuccess(unlocked)
        defer { _ = try? sandbox.run(["lock"]) }
        let index = try sandbox.waitUntilIndexReady()
        let locked = try #require(index["locked_bytes"] as? Int)
        #expect(locked > 1 << 20 && locked <= limit, "locked \(locked) bytes under a limit of \(limit)")
        #expect(index["documents"] as? Int == 300)
        try compare(sandbox, ["tea"])
    }

    @Test("in a session, whether times show their UTC offset is the agent's answer for the dates searched, the same as the file's")
    func offsetsShownAsWithoutTheSession() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        for (day, zone) in [("2026-01-10", "UTC"), ("2026-01-11", "Asia/Tokyo"), ("2026-02-10", "UTC"), ("2026-02-11", "UTC")] {
            try Sandbox.requireSuccess(try sandbox.run(["add", "tea on \(day)", "--at", day + " 09:00"], env: ["TZ": zone]))
        }
        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile]))
        defer { _ = try? sandbox.run(["lock"]) }
        try sandbox.waitUntilIndexReady()
        for (range, spans) in [([String](), true), (["--from", "2026-01-01", "--to", "2026-01-31"], true), (["--from", "2026-02"], false)] {
            let arguments = ["search", "tea", "--no-pager"] + range
            let inSession = try sandbox.run(arguments, env: ["TZ": "UTC"])
            let without = try sandbox.run(arguments + ["--no-agent", "--passphrase-file", sandbox.passphraseFile], env: ["TZ": "UTC"])
            try Sandbox.requireSuccess(inSession)
            #expect(inSession.out == without.out, "\(range): the session and the file differ")
            #expect(inSession.out.contains("+09:00") == spans && inSession.out.contains("+00:00") == spans, "\(range): \(inSession.out)")
        }
    }
}

