// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto

/// Looking back, as a person runs it: whole `jv stats` and `jv report --year` processes, in a
/// session whose agent has built its index (`jv stats` is answered from its figures), on a vault of the benchmark's entries that each carry measures (a mood from 1 to 10,
/// hours of sleep, and on one entry in three whether it rained), with each process's peak
/// resident memory (``ChildUsage``). The vault is one of its own, made by importing the corpus
/// with its measures, so that no other row sees them. The plain column is the `sqlite3` shell
/// counting the entries and their characters per month on the plain database.
///
/// ```swift
/// rows += try LookingBackRows(bench: self, process: process, year: year).rows()
/// ```
struct LookingBackRows {
    let bench: JVBench
    let process: ProcessRows
    let year: Int
    private let jv: String
    private let sqlite3 = ["/usr/bin/sqlite3", "/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    init(bench: JVBench, process: ProcessRows, year: Int) {
        self.bench = bench
        self.process = process
        self.year = year
        jv = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
    }

    /// The corpus's measures, drawn from a seed of their own: the same for every run.
    static func measures(of entries: [Entry]) throws -> [UUID: Measures] {
        var random = Corpus.Generator(state: 25)
        var measures: [UUID: Measures] = [:]
        for entry in entries {
            var these = Measures()
            try these.set("mood", to: .number(Double(Int.random(in: 1...10, using: &random))))
            try these.set("sleep", to: .number(Double(Int.random(in: 8...18, using: &random)) / 2))
            if Int.random(in: 0..<3, using: &random) == 0 { try these.set("rain", to: .flag(Bool.random(using: &random))) }
            measures[entry.id] = these
        }
        return measures
    }

    /// Whether `--only WORD` selects a row of these (their vault takes a whole import to make).
    static func selected(by only: String) -> Bool {
        ["process: jv stats, measures, session", "process: jv report --year"].contains { $0.contains(only) }
    }

    func rows() throws -> [ReportRow] {
        guard FileManager.default.isExecutableFile(atPath: jv) else { return [] }
        let vaultPath = bench.folder + "/measures.vault"
        let secret = try SecureBytes(copying: Array(JVBench.passphrase.utf8))
        do {
            let (journal, _) = try Vault.create(at: vaultPath, passphrase: secret, kdf: .profile(.interactive))
            var snapshot = VaultSnapshot()
            snapshot.entries = bench.corpus.entries
            snapshot.measures = try Self.measures(of: bench.corpus.entries)
            try journal.importSnapshot(snapshot)
        }

        let runtime = bench.folder + "/measures-runtime"
        let (withoutSession, inSession) = try process.environments(runtime: runtime)
        _ = try process.time(jv, ["unlock", "--vault", vaultPath, "--for", "30m"], environment: withoutSession, runs: 1)
        defer { _ = try? process.time(jv, ["lock", "--all"], environment: inSession, runs: 1) }
        // As a person who unlocked a while ago: the agent's index and figures are built.
        _ = try process.waitForIndex(runtime: runtime, vault: vaultPath)

        let perMonth = "SELECT substr(local_day, 1, 7), count(*), sum(length(content)) FROM entry GROUP BY 1"
        let plain = try sqlite3.map { try process.time($0, [bench.folder + "/plain.sqlite", perMonth], environment: [], runs: 5) }
        let yearEntries = bench.corpus.entries.filter { $0.localDay.year == year }.count
        let report = bench.folder + "/report.html"
        let commands: [(name: String, arguments: [String], runs: Int, target: Duration)] = [
            ("jv stats", ["stats"], 10, .milliseconds(500)),
            ("jv report --year \(year) (\(yearEntries) entries)", ["report", "--year", String(year), "--output", report, "--force"], 3, .seconds(3)),
        ]
        var rows: [ReportRow] = []
        for command in commands {
            var timings = Timings()
            var peakKiB = 0
            for _ in 0..<command.runs {
                let run = try ChildUsage.run(jv, command.arguments + ["--vault", vaultPath], environment: inSession, processes: process, folder: bench.folder)
                timings.runs.append(run.duration)
                peakKiB = max(peakKiB, run.peakKiB)
            }
            let memory = Double(peakKiB) / 1024
            rows.append(ReportRow(workload: "process: \(command.name), measures, session", entries: bench.size, vault: timings, baseline: plain,
                                  memory: String(format: "%.0f MiB", memory),
                                  target: "≤ \(command.target.text), ≤ 128 MiB", met: timings.median <= command.target && memory <= 128))
        }
        let answered = try process.waitForIndex(runtime: runtime, vault: vaultPath).index.statsAnswered
        guard answered == commands[0].runs else {
            throw BenchError.wrongResult("the session agent answered \(answered) of \(commands[0].runs) jv stats")
        }
        guard let page = try? String(contentsOfFile: report, encoding: .utf8), page.contains("<svg") else {
            throw BenchError.wrongResult("jv report wrote no page of charts")
        }
        return rows
    }
}
