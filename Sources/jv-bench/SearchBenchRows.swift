// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// Search, in process on the benchmark's vault: the in-memory index built from every
/// entry's document (its time, its database's bytes, `SearchIndex.memoryBytes`, and the resident
/// memory it added, against the entries' text), queries on it (a word, a phrase, an OR, a word
/// most entries have), and the scan without an index (every entry decrypted on all cores and
/// its document evaluated) beside plain SQLite reading and matching the same rows
/// (``PlainBaseline/search(_:)``). Each answer is checked: the index gives exactly the scan's
/// hits, and the word's hits are the entries plain SQLite finds.
/// `BENCH_ARGS="--entries 1000000 --only search"` runs these rows on a million entries.
struct SearchBenchRows {
    let bench: JVBench
    let journal: UnlockedVault
    let baseline: PlainBaseline

    func rows() throws -> [ReportRow] {
        let size = bench.size
        let atTarget = size == JVBench.targetSize
        var rows: [ReportRow] = []

        // The index, built as a session's agent builds it: from the same documents, a batch at a time.
        var index: SearchIndex?
        var textBytes = 0
        let residentBefore = ProcessMemory.kibibytes("VmRSS")
        let peak = try ProcessMemory.peakGrowth {
            let build = try SearchIndex()
            try build.change { changes in
                try journal.forEachSearchDocument(of: .entry, transform: SearchIndex.prepare) { batch in
                    textBytes += batch.reduce(0) { $0 + $1.document.text.utf8.count }
                    try changes.upsert(batch)
                }
            }
            index = build
        }
        guard let index else { throw BenchError.wrongResult("no index") }
        let retained = Double(max(0, ProcessMemory.kibibytes("VmRSS") - residentBefore)) * 1024
        // Timed on a second build (the first one's pages and tables are warm in the allocator).
        let build = try Timings.measure(1) {
            let again = try SearchIndex()
            try again.change { changes in
                try journal.forEachSearchDocument(of: .entry, transform: SearchIndex.prepare) { try changes.upsert($0) }
            }
        }
        let stored = try journal.stats(today: Instant.now().localDay).entries
        guard index.documentCount == stored else {
            throw BenchError.wrongResult("the index holds \(index.documentCount) documents")
        }
        let perText = Double(index.memoryBytes) / Double(max(textBytes, 1))
        rows.append(ReportRow(workload: "search index build (in process)", entries: size, vault: build,
                              throughput: String(format: "%.0f MiB text; index %.0f MiB (%.1f× text), RSS +%.0f MiB",
                                                 Double(textBytes) / 1_048_576, Double(index.memoryBytes) / 1_048_576, perText,
                                                 retained / 1_048_576),
                              memory: String(format: "%.0f MiB", peak),
                              target: atTarget ? "≤ 3 s, ≤ 4× text" : "", met: atTarget ? build.median <= .seconds(3) && perText <= 4 : nil))

        // Queries on the index, each checked against the scan.
        let queries: [(name: String, text: String, target: Duration?)] = [
            ("word", Corpus.needle, .milliseconds(15)),
            ("phrase", "\"morning coffee\"", .milliseconds(25)),
            ("OR", "\(Corpus.needle) OR jalapeño", .milliseconds(25)),
            ("broad word", "walk", nil),
        ]
        for query in queries {
            let parsed = try SearchQuery.parse(query.text)
            let request = SearchRequest(query: parsed, kinds: [.entry])
            let scanned = try journal.search(request)
            let indexed = try index.hits(parsed, kinds: [.entry], ranked: false)
            guard indexed == scanned else {
                throw BenchError.wrongResult("search \(query.text): the index found \(indexed.count), the scan \(scanned.count)")
            }
            let timings = try Timings.measure(9) { _ = try index.hits(parsed, kinds: [.entry], ranked: false) }
            let ranked = try Timings.measure(5) { _ = try index.hits(parsed, kinds: [.entry], ranked: true) }
            let met = query.target.map { timings.median <= $0 && ranked.median <= $0 }
            rows.append(ReportRow(workload: "search index: \(query.name) (newest first; ranked \(String(format: "%.1f", ranked.median.milliseconds)) ms)",
                                  entries: size, vault: timings, throughput: "\(indexed.count) hits",
                                  target: atTarget ? query.target.map { "≤ \(Int($0.milliseconds)) ms" } ?? "" : "", met: atTarget ? met : nil))
        }

        // The scan, against plain SQLite reading and matching the same rows.
        let word = try SearchQuery.parse(Corpus.needle)
        let found = try journal.search(SearchRequest(query: word, kinds: [.entry]))
        let plainFound = try baseline.search(Corpus.needle)
        guard Set(found.map(\.key)) == Set(plainFound.map(\.id.storageText)) else {
            throw BenchError.wrongResult("the scan found \(found.count) entries, plain SQLite \(plainFound.count)")
        }
        let scanMemory = try ProcessMemory.peakGrowth { _ = try journal.search(SearchRequest(query: word, kinds: [.entry])) }
        let scan = try Timings.measure(3) { _ = try journal.search(SearchRequest(query: word, kinds: [.entry])) }
        let plainScan = try Timings.measure(3) { _ = try baseline.search(Corpus.needle) }
        let ratio = scan.median.milliseconds / plainScan.median.milliseconds
        rows.append(ReportRow(workload: "search scan: word (no index)", entries: size, vault: scan, baseline: plainScan,
                              throughput: "\(found.count) hits", memory: String(format: "%.0f MiB", scanMemory),
                              target: atTarget ? "≤ 0.5 s, ≤ 1.5× plain" : "",
                              met: atTarget ? scan.median <= .milliseconds(500) && ratio <= 1.5 : nil))
        return rows
    }
}
