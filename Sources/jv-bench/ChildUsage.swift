// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A whole process timed with its peak resident memory from `wait4`'s `ru_maxrss`, through a
/// launcher: `jv-bench --measure-child RESULT PROGRAM ARGS…` starts PROGRAM, waits for it and
/// writes `status nanoseconds maxrss-KiB` to the file RESULT.
///
/// Why a launcher: `ru_maxrss` counts the memory of whatever process a program was exec'ed
/// from (posix_spawn's vfork child runs in its parent's memory until exec, and exec records that
/// peak), so a child of the benchmark itself, which holds the corpus and its vaults, would be
/// charged the benchmark's hundreds of MiB. The launcher holds only the runtime (a few MiB),
/// which is then the floor of what is reported.
///
/// ```swift
/// let run = try ChildUsage.run("/path/jv", ["attach", id, file], environment: env, processes: processes, folder: folder)
/// print(run.duration, run.peakKiB)
/// ```
struct ChildUsage {
    static let flag = "--measure-child"

    var duration: Duration
    var peakKiB: Int

    /// Runs `program` through the launcher (its standard output to /dev/null, as ``ProcessRows/time(_:_:environment:runs:)`` does).
    static func run(_ program: String, _ arguments: [String], environment: [String], processes: ProcessRows, folder: String) throws -> ChildUsage {
        let result = folder + "/child-usage"
        unlink(result)
        _ = try processes.time(CommandLine.arguments[0], [flag, result, program] + arguments, environment: environment, runs: 1)
        let words = ((try? String(contentsOfFile: result, encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int($0) }
        guard words.count == 3, words[0] == 0 else {
            throw BenchError.wrongResult("\((program as NSString).lastPathComponent) \(arguments.first ?? "") failed under the launcher")
        }
        return ChildUsage(duration: .nanoseconds(words[1]), peakKiB: words[2])
    }

    /// The launcher's side: `arguments` are RESULT, PROGRAM and its arguments. Its environment is passed on.
    static func launch(_ arguments: [String]) -> Never {
        guard arguments.count >= 2 else { exit(2) }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.dropFirst().map { strdup($0) } + [nil]
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[1], nil, nil, argv, environ) == 0 else { exit(3) }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { exit(4) }
        let elapsed = clock.now - start
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        // ru_maxrss is in KiB on Linux.
        try? "\(status) \(nanoseconds) \(usage.ru_maxrss)".write(toFile: arguments[0], atomically: false, encoding: .utf8)
        exit(status == 0 ? 0 : 1)
    }
}
