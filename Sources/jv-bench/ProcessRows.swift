// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto

/// Whole `jv` processes, start to exit, as a person runs them: each command with a session
/// (`jv unlock`) and, on the 10,000-entry vault, without one (the passphrase from a file and the
/// default `moderate` Argon2id profile). The plain column is the `sqlite3` shell answering the
/// same question from the plain database, when the shell is installed.
struct ProcessRows {
    let bench: JVBench
    let vaultPath: String
    let plainPath: String
    let secret: SecureBytes
    private let jv: String
    private let sqlite3 = ["/usr/bin/sqlite3", "/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    init(bench: JVBench, vaultPath: String, plainPath: String, secret: SecureBytes) {
        self.bench = bench
        self.vaultPath = vaultPath
        self.plainPath = plainPath
        self.secret = secret
        jv = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
    }

    /// One command: its arguments, the plain shell's SQL, the target with a session (ms) and
    /// the runs to time.
    private struct Command {
        let name: String
        let arguments: [String]
        let sql: String?
        let sessionTarget: Double?
    }

    func rows(day: CivilDay, month: (CivilDay, CivilDay), year: Int) throws -> [ReportRow] {
        guard FileManager.default.isExecutableFile(atPath: jv) else { return [] }
        // The default profile a person's vault has, for the rows without a session.
        try Vault.open(at: vaultPath).unlock(passphrase: secret).changePassphrase(to: secret, kdf: .profile(.moderate))
        let someID = try Vault.open(at: vaultPath).unlock(passphrase: secret).entries(EntryQuery()).first!.id.uuidString.lowercased()
        let listLimit = bench.size == JVBench.targetSize ? 100.0 : 50.0
        let columns = "id, created_at, content"
        let commands = [
            Command(name: "jv --version", arguments: ["--version"], sql: nil, sessionTarget: nil),
            Command(name: "jv list -n 10", arguments: ["list", "-n", "10"],
                    sql: "SELECT \(columns) FROM entry ORDER BY created_at DESC LIMIT 10", sessionTarget: listLimit),
            Command(name: "jv list --on DAY", arguments: ["list", "--on", day.description],
                    sql: "SELECT \(columns) FROM entry WHERE local_day = '\(day)' ORDER BY created_at", sessionTarget: listLimit),
            Command(name: "jv list (a month)", arguments: ["list", "--from", month.0.description, "--to", month.1.description],
                    sql: "SELECT \(columns) FROM entry WHERE local_day BETWEEN '\(month.0)' AND '\(month.1)' ORDER BY created_at",
                    sessionTarget: listLimit),
            // A tag on 1 entry in 200: a listing one reads.
            Command(name: "jv list --tag \(Corpus.rareTag)", arguments: ["list", "--tag", Corpus.rareTag],
                    sql: "SELECT e.id, e.created_at, e.content FROM entry e JOIN entry_tag t ON t.entry_seq = e.seq WHERE t.tag = '\(Corpus.rareTag)' ORDER BY e.created_at",
                    sessionTarget: listLimit),
            // A tag on 39 % of the entries: at 100,000 it prints 38,423 of them (≈ 40 MB), which
            // the sqlite3 shell alone takes longer than 100 ms to do, so it is timed against
            // plain SQLite there rather than held to the listing target.
            Command(name: "jv list --tag garden", arguments: ["list", "--tag", "garden"],
                    sql: "SELECT e.id, e.created_at, e.content FROM entry e JOIN entry_tag t ON t.entry_seq = e.seq WHERE t.tag = 'garden' ORDER BY e.created_at",
                    sessionTarget: bench.size == JVBench.targetSize ? nil : listLimit),
            Command(name: "jv show ID", arguments: ["show", someID],
                    sql: "SELECT \(columns) FROM entry WHERE id = '\(someID)'", sessionTarget: listLimit),
            Command(name: "jv add TEXT", arguments: ["add", "A benchmark entry, written by a whole process."],
                    // A UUID-shaped id, as every other row's: later rows read the plain table back as entries.
                    sql: "INSERT INTO entry (id, created_at, modified_at, utc_offset, local_day, version, starred, content, tags) "
                        + "SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-' || substr(h, 13, 4) || '-' || substr(h, 17, 4) || '-' || substr(h, 21), "
                        + "0, 0, 0, '1970-01-01', 1, 0, 'A benchmark entry.', '[]' FROM (SELECT lower(hex(randomblob(16))) AS h)",
                    sessionTarget: listLimit),
            Command(name: "jv calendar YYYY", arguments: ["calendar", String(year)],
                    sql: "SELECT local_day, count(*) FROM entry WHERE local_day LIKE '\(year)-%' GROUP BY local_day", sessionTarget: listLimit),
            Command(name: "jv search WORD", arguments: ["search", Corpus.needle],
                    sql: "SELECT \(columns) FROM entry WHERE content LIKE '%\(Corpus.needle)%' ORDER BY created_at",
                    sessionTarget: bench.size == JVBench.targetSize ? nil : 80),
        ]
        let runtime = bench.folder + "/runtime"
        let (withoutSession, inSession) = try environments(runtime: runtime)
        _ = try time(jv, ["unlock", "--vault", vaultPath, "--for", "30m"], environment: withoutSession, runs: 1)
        defer { _ = try? time(jv, ["lock", "--all"], environment: inSession, runs: 1) }

        // Right after `jv unlock` the agent builds its search index (at the lowest priority):
        // the first commands share the cores with it. The rows after it time the session as it
        // then is, index built.
        let listTen = commands[1]
        let duringBuild = try time(jv, listTen.arguments + ["--vault", vaultPath], environment: inSession, runs: 3)
        var rows = [ReportRow(workload: "process: \(listTen.name), session, while its index builds", entries: bench.size, vault: duringBuild,
                              baseline: try listTen.sql.flatMap { sql in try sqlite3.map { try time($0, [plainPath, sql], environment: [], runs: 3) } })]
        _ = try waitForIndex(runtime: runtime)
        for command in commands {
            let vaultArguments = command.arguments == ["--version"] ? command.arguments : command.arguments + ["--vault", vaultPath]
            let session = try time(jv, vaultArguments, environment: inSession, runs: 10)
            let plain = try command.sql.flatMap { sql in try sqlite3.map { try time($0, [plainPath, sql], environment: [], runs: 10) } }
                ?? (command.arguments == ["--version"] ? try sqlite3.map { try time($0, ["--version"], environment: [], runs: 10) } : nil)
            rows.append(ReportRow(workload: "process: \(command.name)" + (command.arguments == ["--version"] ? "" : ", session"),
                                  entries: bench.size, vault: session, baseline: plain,
                                  target: command.sessionTarget.map { "≤ \(Int($0)) ms" } ?? "",
                                  met: command.sessionTarget.map { session.median <= .milliseconds($0) }))
            // Without a session each run pays Argon2id (moderate); 10,000 entries only, as jrnl was measured.
            if bench.size <= 10_000, command.arguments != ["--version"] {
                let asked = try time(jv, vaultArguments + ["--no-agent"], environment: withoutSession, runs: 3)
                rows.append(ReportRow(workload: "process: \(command.name), passphrase", entries: bench.size, vault: asked, baseline: plain))
            }
        }
        return rows
    }

    /// Waits until the session agent of the vault at `path` (the rows' own without one),
    /// listening in `runtime`, has built its search index; the index as it then is, and how
    /// long the wait took.
    func waitForIndex(runtime: String, vault path: String? = nil) throws -> (index: SessionIndexStatus, waited: Duration) {
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        defer { unsetenv("XDG_RUNTIME_DIR") }
        let vault = try Vault.open(at: path ?? vaultPath, access: .readOnly)
        let clock = ContinuousClock()
        let started = clock.now
        var index = try vault.session()?.index
        while index?.state == .building {
            usleep(5_000)
            index = try vault.session()?.index
        }
        guard let index, index.state == .ready else { throw BenchError.wrongResult("the session's index was not built: \(String(describing: index))") }
        return (index, clock.now - started)
    }

    /// The environments of commands without a session (the passphrase from a file) and in one,
    /// whose agents listen in the new private folder `runtime`.
    func environments(runtime: String) throws -> (withoutSession: [String], inSession: [String]) {
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let passphraseFile = bench.folder + "/passphrase"
        try JVBench.passphrase.write(toFile: passphraseFile, atomically: true, encoding: .utf8)
        return (["JV_PASSPHRASE_FILE=" + passphraseFile, "XDG_RUNTIME_DIR=" + runtime], ["XDG_RUNTIME_DIR=" + runtime])
    }

    /// `executable` run `runs` times through posix_spawn and waitpid (Foundation's Process adds
    /// tens of milliseconds of its own), standard output to /dev/null; a failure is an error.
    func time(_ executable: String, _ arguments: [String], environment: [String], runs: Int) throws -> Timings {
        let words = [executable] + arguments
        let variables = ["PATH=/usr/bin:/bin", "TZ=UTC"] + environment
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        return try Timings.measure(runs) {
            var pid: pid_t = 0
            var status: Int32 = 0
            guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0, waitpid(pid, &status, 0) == pid, status == 0 else {
                throw BenchError.wrongResult("\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status))")
            }
        }
    }
}
