import Foundation

/// Timings of repeated runs and what the table shows of them.
struct Timings {
    var runs: [Duration] = []

    var median: Duration { sorted[sorted.count / 2] }
    var p95: Duration { sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)] }
    private var sorted: [Duration] { runs.sorted() }

    /// Runs `body` `count` times, timing each.
    static func measure(_ count: Int, _ body: () throws -> Void) rethrows -> Timings {
        var timings = Timings()
        let clock = ContinuousClock()
        for _ in 0..<count { timings.runs.append(try clock.measure(body)) }
        return timings
    }
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }

    var text: String {
        let ms = milliseconds
        return ms >= 1000 ? String(format: "%.2f s", ms / 1000) : ms >= 10 ? String(format: "%.0f ms", ms) : String(format: "%.2f ms", ms)
    }
}

/// The process's memory, from /proc/self/status; the peak can be reset (Linux ≥ 4.0).
enum ProcessMemory {
    static func kibibytes(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// Peak resident memory added while `body` ran, in MiB.
    static func peakGrowth(_ body: () throws -> Void) rethrows -> Double {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let before = kibibytes("VmRSS")
        try body()
        return Double(max(0, kibibytes("VmHWM") - before)) / 1024
    }
}
