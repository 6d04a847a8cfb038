// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the real `jv` binary (and a few helper programs) as separate processes, the way a
/// person or a script does: arguments, a chosen environment, bytes on standard input, and the
/// exit status, standard output and standard error captured.
///
/// Children are started with `posix_spawn` in a session of their own (no controlling terminal,
/// so `jv` can never prompt and hang even when the tests are run from a terminal), with default
/// signal dispositions and an empty signal mask.
enum JV {
    /// The `jv` executable: `$JV_BINARY`, else the one built next to the test bundle.
    static let binary: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["JV_BINARY"], !path.isEmpty { return path }
        // On Linux the test runner is `<scratch>/debug/JournalVaultPackageTests.xctest`;
        // `jv` is built beside it. Walk up a few levels in case the layout differs.
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("jv").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
               access(candidate, X_OK) == 0 {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()

    /// The binary, or an error explaining how to point the tests at it.
    static func requireBinary() throws -> String {
        guard let binary else { throw HarnessError("The jv binary was not found beside the test runner (\(CommandLine.arguments[0])); set JV_BINARY.") }
        return binary
    }

    /// A helper program from the usual places, if installed (`sqlite3`, `script`).
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first { access($0, X_OK) == 0 }
    }

    /// SIGPIPE is ignored in the test process once, so that feeding standard input to a child
    /// that exits without reading it gives EPIPE instead of killing the test runner. Children
    /// get the default disposition back (see `spawn`).
    private static let spawnLock = NSLock()

    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN); return () }()

    /// Starts `executable` with exactly `arguments` and `environment`. Standard input is
    /// `stdin` through a pipe (written by a helper thread), or `/dev/null` when nil. Standard
    /// output and error go to files in `ioFolder` (no pipe can fill up and block the child).
    static func spawn(executable: String, arguments: [String], environment: [String: String],
                      stdin: Data?, ioFolder: String) throws -> ChildProcess {
        _ = ignoreSIGPIPE
        // One spawn at a time, so no child inherits another child's pipe before it is marked
        // close-on-exec (which would hold that child's standard input open).
        spawnLock.lock()
        defer { spawnLock.unlock() }
        let stem = ioFolder + "/" + UUID().uuidString
        let stdoutPath = stem + ".out", stderrPath = stem + ".err"
        let outFD = open(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let errFD = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard outFD >= 0, errFD >= 0 else { throw HarnessError("cannot create output files in \(ioFolder)") }
        defer { close(outFD); close(errFD) }

        var inputPipe: [Int32] = [-1, -1]
        if stdin != nil {
            guard pipe(&inputPipe) == 0 else { throw HarnessError("pipe failed: errno \(errno)") }
            _ = fcntl(inputPipe[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(inputPipe[1], F_SETFD, FD_CLOEXEC)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if stdin != nil {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outFD, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, errFD, STDERR_FILENO)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID is 0x80 on Linux (glibc ≥ 2.26); it may not be imported as a name.
        let setSID: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF) | setSID))
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        if stdin != nil { close(inputPipe[0]) }
        guard status == 0 else {
            if stdin != nil { close(inputPipe[1]) }
            throw HarnessError("cannot start \(executable): errno \(status)")
        }

        let child = ChildProcess(pid: pid, description: ([executable] + arguments).joined(separator: " "),
                                 stdoutPath: stdoutPath, stderrPath: stderrPath)
        if let stdin {
            let writeEnd = inputPipe[1]
            let done = child.stdinDone
            let thread = Thread {
                stdin.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let written = write(writeEnd, raw.baseAddress! + offset, raw.count - offset)
                        if written < 0 {
                            if errno == EINTR { continue }
                            break // EPIPE: the child stopped reading; that is its business.
                        }
                        offset += written
                    }
                }
                close(writeEnd)
                done.signal()
            }
            thread.start()
        } else {
            child.stdinDone.signal()
        }
        return child
    }
}

/// `kill(2)`, named apart from ``ChildProcess/kill(_:)``.
private func posixKill(_ pid: pid_t, _ signal: Int32) -> Int32 { kill(pid, signal) }

/// A started child process.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let description: String
    let stdoutPath: String
    let stderrPath: String
    let stdinDone = DispatchSemaphore(value: 0)
    private var result: JVResult?

    init(pid: pid_t, description: String, stdoutPath: String, stderrPath: String) {
        self.pid = pid
        self.description = description
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
    }

    /// Sends `signal` (e.g. SIGKILL) to the child, unless it has already been reaped (its pid
    /// may belong to another process by then).
    func kill(_ signal: Int32) {
        guard result == nil else { return }
        _ = posixKill(pid, signal)
    }

    /// Sends `signal` to the child's whole process group (its own: it leads a new session),
    /// reaching the programs it started too.
    func killGroup(_ signal: Int32) {
        guard result == nil else { return }
        _ = posixKill(-pid, signal)
    }

    /// Waits for the child to end (killing it after `timeout` seconds) and collects its output.
    func wait(timeout: TimeInterval = 90) -> JVResult {
        if let result { return result }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        var timedOut = false
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { break }
            if Date() > deadline && !timedOut {
                timedOut = true
                _ = posixKill(pid, SIGKILL)
            }
            usleep(2_000)
        }
        stdinDone.wait()
        let signalled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        let result = JVResult(
            command: description,
            status: signalled ? -1 : (status >> 8) & 0xff,
            signal: signalled ? status & 0x7f : nil,
            timedOut: timedOut,
            stdout: FileManager.default.contents(atPath: stdoutPath) ?? Data(),
            stderr: FileManager.default.contents(atPath: stderrPath) ?? Data())
        unlink(stdoutPath)
        unlink(stderrPath)
        self.result = result
        return result
    }
}

/// What a finished process did.
struct JVResult: Sendable, CustomStringConvertible {
    let command: String
    /// The exit status, or -1 when a signal ended the process.
    let status: Int32
    let signal: Int32?
    let timedOut: Bool
    let stdout: Data
    let stderr: Data

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }

    /// Standard output's lines, without empty ones.
    var lines: [String] { out.split(separator: "\n").map(String.init) }

    /// Standard error without `jv`'s memory-locking warning, which depends on the machine.
    var errorLines: [String] {
        err.split(separator: "\n").map(String.init).filter { !$0.contains("warning: this process may not lock memory") }
    }

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: stdout, options: [.fragmentsAllowed])
        } catch {
            throw HarnessError("stdout of `\(command)` is not JSON: \(out)")
        }
    }

    /// Standard output as a JSON object.
    func object() throws -> [String: Any] {
        guard let object = try json() as? [String: Any] else { throw HarnessError("stdout is not a JSON object: \(out)") }
        return object
    }

    /// Standard output as a JSON array of objects.
    func array() throws -> [[String: Any]] {
        guard let array = try json() as? [[String: Any]] else { throw HarnessError("stdout is not a JSON array of objects: \(out)") }
        return array
    }

    var description: String {
        let how = timedOut ? "TIMED OUT" : signal.map { "killed by signal \($0)" } ?? "exit \(status)"
        return "`\(command)` → \(how)\n--- stdout ---\n\(out.prefix(3000))\n--- stderr ---\n\(err.prefix(3000))"
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
