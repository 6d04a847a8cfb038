// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// One line of the benchmark table.
struct ReportRow {
    var workload: String
    var entries: Int
    var vault: Timings
    var baseline: Timings?
    var throughput: String = ""
    var memory: String = ""
    /// performance target (docs/performance.md), as text, and whether it was met (nil: no target).
    var target: String = ""
    var met: Bool?

    var ratio: Double? { baseline.map { vault.median.milliseconds / max($0.median.milliseconds, 0.000_001) } }

    var json: JSONValue {
        .object([
            ("workload", .string(workload)), ("entries", .integer(Int64(entries))),
            ("median_ms", .number(vault.median.milliseconds)), ("p95_ms", .number(vault.p95.milliseconds)),
            ("runs", .integer(Int64(vault.runs.count))),
            ("baseline_median_ms", baseline.map { .number($0.median.milliseconds) } ?? .null),
            ("ratio", ratio.map(JSONValue.number) ?? .null), ("throughput", .string(throughput)),
            ("peak_memory", .string(memory)), ("target", .string(target)), ("met", met.map(JSONValue.bool) ?? .null),
        ])
    }
}

enum Report {
    static func table(_ rows: [ReportRow]) -> String {
        let header = ["workload", "entries", "median", "p95", "plain SQLite", "ratio", "throughput", "peak mem", "target", ""]
        let cells = rows.map { row in
            [row.workload, String(row.entries), row.vault.median.text, row.vault.p95.text,
             row.baseline?.median.text ?? "—", row.ratio.map { String(format: "%.2f×", $0) } ?? "—",
             row.throughput, row.memory, row.target, row.met.map { $0 ? "✓" : "✗ MISSED" } ?? ""]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            "| " + zip(values, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
        }
        return ([line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"] + cells.map(line))
            .joined(separator: "\n")
    }
}
