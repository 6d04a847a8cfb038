// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto

/// Whole `jv search` processes answered by a session's index, beside the same searches without
/// a session on 10,000 entries and less (the scan, after Argon2id with the vault's `moderate`
/// profile, as a person without a session pays it); and the index's build after `jv unlock`,
/// with its size. At 100,000 entries the build and `jv search WORD` are held to their targets.
/// ``ProcessRows`` must have run first (it sets the vault's profile).
struct SessionSearchBenchRows {
    let bench: JVBench
    let vaultPath: String
    let process: ProcessRows

    private static let queries: [(name: String, arguments: [String])] = [
        ("WORD", [Corpus.needle]),
        ("WORD --count", ["--count", Corpus.needle]),
        ("a phrase", ["\"morning coffee\""]),
        ("OR", ["quokka OR Zürich"]),
        ("a prefix", ["brû*"]),
        ("WORD --rank", ["--rank", "rain"]),
        ("broad WORD --count", ["--count", "café"]),
    ]

    func rows() throws -> [ReportRow] {
        let atTarget = bench.size == JVBench.targetSize
        let jv = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
        guard FileManager.default.isExecutableFile(atPath: jv) else { return [] }
        let runtime = bench.folder + "/search-runtime"
        let (withoutSession, inSession) = try process.environments(runtime: runtime)

        // The build: from the agent's start (the key unwrapped) until it answers "ready".
        _ = try process.time(jv, ["unlock", "--vault", vaultPath, "--for", "30m"], environment: withoutSession, runs: 1)
        defer { _ = try? process.time(jv, ["lock", "--all"], environment: inSession, runs: 1) }
        let (index, built) = try process.waitForIndex(runtime: runtime)
        var rows = [ReportRow(workload: "search index build, session", entries: bench.size, vault: Timings(runs: [built]),
                              memory: String(format: "%.1f MiB index, %.1f MiB locked", Double(index.bytes) / 1_048_576,
                                             Double(index.lockedBytes) / 1_048_576),
                              target: atTarget ? "≤ 3 s" : "", met: atTarget ? built <= .seconds(3) : nil)]
        for query in Self.queries {
            let arguments = ["search"] + query.arguments + ["--vault", vaultPath]
            let indexed = try process.time(jv, arguments, environment: inSession, runs: 10)
            // Without a session each search decrypts every entry: beside the index up to 10,000 entries.
            let scanned = bench.size <= 10_000 ? try process.time(jv, arguments + ["--no-agent"], environment: withoutSession, runs: 3) : nil
            let held = atTarget && query.name == "WORD"
            rows.append(ReportRow(workload: "process: jv search \(query.name), session index" + (scanned == nil ? "" : " against passphrase and scan"),
                                  entries: bench.size, vault: indexed, baseline: scanned,
                                  target: held ? "≤ 15 ms" : "", met: held ? indexed.median <= .milliseconds(15) : nil))
        }
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        defer { unsetenv("XDG_RUNTIME_DIR") }
        guard let searches = try Vault.open(at: vaultPath, access: .readOnly).session()?.index?.searches, searches == Self.queries.count * 10 else {
            throw BenchError.wrongResult("the session's index did not answer every search")
        }
        return rows
    }
}
