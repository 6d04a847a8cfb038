// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto

/// `jv sync` through a folder, on the benchmark's vault: setting it up (every record sent as
/// the first pack), a whole `jv sync clone` process making a second vault from that pack, then
/// one changed entry sent by one vault and applied by the other (the library's `sync()` timed
/// alone, so unlocking is not in it; and as whole `jv sync` processes), and the pack bytes per
/// changed entry. Each result is checked: the first pack holds every entry, the clone checks
/// clean with as many, and each changed text arrives.
///
/// The plain columns: for the first pack, every row of the plain database written to one file
/// and synced (``PlainBaseline/dump(to:)``); for the clone, that file's rows inserted into a
/// new plain database (``PlainBaseline/load(dump:)``). An incremental sync has no plain
/// counterpart worth the name.
struct SyncBenchRows {
    let bench: JVBench
    let vaultPath: String
    let recoveryKey: RecoveryKey
    let baseline: PlainBaseline
    let secret: SecureBytes

    /// Runs of the one-change sync, in process and as processes.
    static let incrementalRuns = 9
    static let processRuns = 5
    /// Changed entries whose pack is weighed.
    static let changeCounts = [1, 100, 1000]

    func rows() throws -> [ReportRow] {
        let size = bench.size
        let atTarget = size == JVBench.targetSize
        let location = bench.folder + "/sync-location"
        let clonePath = bench.folder + "/sync-clone.vault"
        let keyFile = bench.folder + "/recovery-key"
        try recoveryKey.text.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let passphraseFile = bench.folder + "/passphrase"
        try JVBench.passphrase.write(toFile: passphraseFile, atomically: true, encoding: .utf8)
        let processes = ProcessRows(bench: bench, vaultPath: vaultPath, plainPath: bench.folder + "/plain.sqlite", secret: secret)
        let jv = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
        let haveJV = FileManager.default.isExecutableFile(atPath: jv)
        var rows: [ReportRow] = []

        // Sync set up on the benchmark's own vault: these rows come last, so what they change
        // is measured by nothing else.
        // Set-up: every record marked and sent as this device's first pack.
        let journal = try Vault.open(at: vaultPath).unlock(recoveryKey: recoveryKey)
        let before = try journal.check()
        guard before.isClean, let entries = before.checked["entry"] else { throw BenchError.wrongResult("check before sync init") }
        var first: SyncReport?
        let initTime = try Timings.measure(1) { first = try SyncEngine(journal).setUp(at: location) }
        guard let sent = first?.sent, sent.changes == entries else {
            throw BenchError.wrongResult("sync init sent \(first?.sent?.changes ?? 0) changes, expected \(entries) entries")
        }
        let device = try SyncEngine(journal).status().device
        let firstPack = try packSize(sent.pack, device: device, location: location)
        let plainDump = bench.folder + "/plain-dump.bin"
        var plain = (bytes: 0, rows: 0)
        let plainInit = try Timings.measure(1) { plain = try baseline.dump(to: plainDump) }
        rows.append(ReportRow(workload: "sync init (first pack) of \(entries) entries", entries: size, vault: initTime, baseline: plainInit,
                              throughput: String(format: "%.0f MiB, %d B/entry (plain %d B/entry)", Double(firstPack) / 1_048_576,
                                                 firstPack / entries, plain.bytes / max(plain.rows, 1))))

        // Clone: a new vault made from the location, as a person runs it on a second machine
        // (the passphrase from a file: Argon2id of the keys file's profile is in the time).
        let clone: Timings
        let cloneName: String
        if haveJV {
            clone = try processes.time(jv, ["sync", "clone", location, "--to", clonePath, "--no-agent"],
                                       environment: ["JV_PASSPHRASE_FILE=" + passphraseFile], runs: 1)
            cloneName = "process: jv sync clone (\(entries) entries)"
        } else {
            clone = try Timings.measure(1) { _ = try SyncEngine.clone(from: location, to: clonePath, credential: .passphrase(secret)) }
            cloneName = "sync clone (\(entries) entries)"
        }
        let plainCopy = try PlainBaseline(path: bench.folder + "/plain-clone.sqlite")
        var loaded = 0
        let plainClone = try Timings.measure(1) { loaded = try plainCopy.load(dump: plainDump) }
        guard loaded == plain.rows else { throw BenchError.wrongResult("plain load of the dump: \(loaded) of \(plain.rows) rows") }
        let cloned = try Vault.open(at: clonePath).unlock(recoveryKey: recoveryKey)
        let cloneCheck = try cloned.check()
        guard cloneCheck.isClean, cloneCheck.checked["entry"] == entries else {
            throw BenchError.wrongResult("the clone holds \(cloneCheck.checked["entry"] ?? 0) entries, expected \(entries)")
        }
        rows.append(ReportRow(workload: cloneName, entries: size, vault: clone, baseline: plainClone,
                              throughput: String(format: "%.0f entries/s", Double(entries) / (clone.median.milliseconds / 1000)),
                              target: atTarget ? "≤ 15 s" : "", met: atTarget ? clone.median <= .seconds(15) : nil))

        // One changed entry: sent by the vault it was changed in, applied by the other.
        let clock = ContinuousClock()
        var push = Timings(), pull = Timings()
        var edit = 0
        func editOne() throws -> (id: UUID, text: String) {
            let entry = bench.corpus.entries[(edit * 7919 + 13) % size]
            let text = entry.content + " Edited for the sync benchmark (\(edit))."
            edit += 1
            try journal.updateEntry(id: entry.id, content: text)
            return (entry.id, text)
        }
        for _ in 0..<Self.incrementalRuns {
            let (id, text) = try editOne()
            var sentReport: SyncReport?, receivedReport: SyncReport?
            push.runs.append(try clock.measure { sentReport = try SyncEngine(journal).sync() })
            pull.runs.append(try clock.measure { receivedReport = try SyncEngine(cloned).sync() })
            guard sentReport?.sent?.changes == 1, receivedReport?.changesReceived == 1, receivedReport?.packsReceived == 1,
                  try cloned.entry(id: id).content == text else {
                throw BenchError.wrongResult("sync of one change: sent \(sentReport?.sent?.changes ?? 0), received \(receivedReport?.changesReceived ?? 0)")
            }
        }
        rows.append(ReportRow(workload: "sync: send 1 changed entry", entries: size, vault: push,
                              target: atTarget ? "≤ 50 ms" : "", met: atTarget ? push.median <= .milliseconds(50) : nil))
        rows.append(ReportRow(workload: "sync: receive 1 changed entry", entries: size, vault: pull,
                              target: atTarget ? "≤ 50 ms" : "", met: atTarget ? pull.median <= .milliseconds(50) : nil))

        // The same as whole `jv sync` processes, unlocked with the recovery key (no Argon2id):
        // process start and the unlock are in these, as in "unlock excl. Argon2id".
        if haveJV {
            var pushProcess = Timings(), pullProcess = Timings()
            for _ in 0..<Self.processRuns {
                let (id, text) = try editOne()
                pushProcess.runs += try processes.time(jv, ["sync", "run", "--vault", vaultPath, "--no-agent"],
                                                       environment: ["JV_RECOVERY_KEY_FILE=" + keyFile], runs: 1).runs
                pullProcess.runs += try processes.time(jv, ["sync", "run", "--vault", clonePath, "--no-agent"],
                                                       environment: ["JV_RECOVERY_KEY_FILE=" + keyFile], runs: 1).runs
                guard try cloned.entry(id: id).content == text else { throw BenchError.wrongResult("jv sync did not carry a change") }
            }
            rows.append(ReportRow(workload: "process: jv sync, send 1 changed entry", entries: size, vault: pushProcess))
            rows.append(ReportRow(workload: "process: jv sync, receive 1 changed entry", entries: size, vault: pullProcess))
        }

        // Pack bytes per changed entry (a pack is padded to a multiple of 4,096 bytes).
        let textBytes = bench.corpus.entries.reduce(0) { $0 + $1.content.utf8.count } / size
        var largest: (count: Int, pull: Timings)?
        for count in Self.changeCounts where count <= size {
            // Distinct entries, spread over the vault.
            var changed: [(UUID, String)] = []
            for index in 0..<count {
                let entry = bench.corpus.entries[(3 + index * (size / count)) % size]
                let text = entry.content + " Changed with \(count - 1) others."
                try journal.updateEntry(id: entry.id, content: text)
                changed.append((entry.id, text))
            }
            var report: SyncReport?
            let send = try Timings.measure(1) { report = try SyncEngine(journal).sync() }
            guard let pack = report?.sent, pack.changes == count else {
                throw BenchError.wrongResult("sync of \(count) changes sent \(report?.sent?.changes ?? 0)")
            }
            let bytes = try packSize(pack.pack, device: device, location: location)
            var received: SyncReport?
            let receive = try Timings.measure(1) { received = try SyncEngine(cloned).sync() }
            guard received?.changesReceived == count, try changed.allSatisfy({ try cloned.entry(id: $0.0).content == $0.1 }) else {
                throw BenchError.wrongResult("the clone received \(received?.changesReceived ?? 0) of \(count) changes")
            }
            rows.append(ReportRow(workload: "sync: send \(count) changed entr\(count == 1 ? "y" : "ies"), pack size", entries: size, vault: send,
                                  throughput: "\(bytes / count) B/entry (pack \(bytes) B; texts avg \(textBytes) B)"))
            largest = (count, receive)
        }
        if let largest {
            rows.append(ReportRow(workload: "sync: receive \(largest.count) changed entries", entries: size, vault: largest.pull))
        }
        return rows
    }

    /// The size of this device's pack `number` in the location.
    private func packSize(_ number: UInt64, device: UUID, location: String) throws -> Int {
        let digits = String(number)
        let name = "pack-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits + ".jvp"
        let suffix = "/" + device.uuidString.lowercased() + "/" + name
        guard let path = FileManager.default.subpaths(atPath: location)?.first(where: { ("/" + $0).hasSuffix(suffix) }),
              let size = try FileManager.default.attributesOfItem(atPath: location + "/" + path)[.size] as? Int else {
            throw BenchError.wrongResult("pack \(number) of this device is not in \(location)")
        }
        return size
    }
}
