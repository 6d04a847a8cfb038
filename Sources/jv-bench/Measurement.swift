// SPDX-License-Identifier: Apache-2.0
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
    static func kibibytes(_ field: String, of process: String = "self") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
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

/// One `jv` process whose standard output is a pipe read here: when its first byte came, when
/// it ended, its peak resident memory, and what it printed, counted. The peak is the child's
/// VmHWM in /proc, sampled while it runs: wait4's ru_maxrss would report this process's own
/// (posix_spawn's vfork child starts in this process's memory, and exec records its peak).
struct StreamedRun {
    var firstByte = Duration.zero
    var total = Duration.zero
    var peakKiB = 0
    /// Occurrences of "\n\n".
    var blankLines = 0

    init(_ executable: String, _ arguments: [String], environment: [String]) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw BenchError.wrongResult("pipe failed") }
        let words = [executable] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = (environment + ["PATH=/usr/bin:/bin", "TZ=UTC"]).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else { throw BenchError.wrongResult("cannot start jv") }
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var previous: UInt8 = 0
        var sawAny = false
        var sampled = start
        while true {
            let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            if !sawAny {
                firstByte = clock.now - start
                sawAny = true
            }
            if clock.now - sampled > .milliseconds(5) {
                peakKiB = max(peakKiB, ProcessMemory.kibibytes("VmHWM", of: String(pid)))
                sampled = clock.now
            }
            for byte in buffer[0..<count] {
                if byte == 10 && previous == 10 { blankLines += 1 }
                previous = byte
            }
        }
        close(ends[0])
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid, status == 0 else { throw BenchError.wrongResult("jv \(arguments.joined(separator: " ")) failed") }
        total = clock.now - start
    }
}
