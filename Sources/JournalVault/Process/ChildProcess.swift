// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation

/// A program jv starts, and how jv starts one: the analyser, the pager and the
/// passphrase command (``ShellCommand``, through `/bin/sh -c`), rclone (`SyncLocation`) and
/// jv's own background check of a session (`SessionCheckCommand`). Whatever jv's own state,
/// the child starts
/// - with jv's environment without the variables that name or hold a secret
///   (``ChildEnvironment``), and `setting`'s variables where it has none of their names;
/// - with the default handling of every signal jv handles (reset by `exec`) or ignores
///   (`SIGPIPE`, reset here), and no signal blocked;
/// - with its standard input, output and error as asked (jv's own, `/dev/null`, or a
///   descriptor of jv's), and no other descriptor of jv open: not the vault file, not the other
///   end of a pipe, not the terminal jv opened;
/// - in a process group of its own when `ownProcessGroup` (so that killing the group ends it
///   and everything it started), else in jv's.
///
/// ``Termination/init(waitingFor:)`` waits for it, through interrupted waits, and says how it
/// ended. Two children are started in C instead: the session agent (`jv_spawn_detached`: a
/// session of its own and an empty environment) and the editor (`jv_run_guarded_child`, which
/// guards the terminal while it runs).
///
/// ```swift
/// let pid = try ChildProcess("/usr/bin/rclone", arguments: ["lsf", "--", "b2:journal"])
///     .spawn(standardInput: .null, standardOutput: .descriptor(pipeEnd))
/// Termination(waitingFor: pid)   // .exited(0)
/// ```
public struct ChildProcess: Sendable {
    /// Where one of the child's standard descriptors leads.
    public enum Stream: Sendable {
        /// To jv's own.
        case inherited
        /// To `/dev/null`.
        case null
        /// To this descriptor of jv's (jv's copy stays open: the caller closes it).
        case descriptor(Int32)
    }

    /// The program's path (not looked up in `PATH`); also the child's `argv[0]`.
    public let executable: String
    public let arguments: [String]

    public init(_ executable: String, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    /// The program `name` in the first folder of `PATH` that has it as an executable file
    /// (`/usr/local/bin:/usr/bin:/bin` without `PATH`); nil where none has: `onPath("rclone")`.
    public static func onPath(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the program; returns its pid, or throws the `strerror` text of why it could not start.
    /// `environment`, when given, is the child's whole environment (`NAME=value` entries) instead
    /// of jv's: a program that needs none of the user's settings (the thumbnailer) gets none.
    public func spawn(standardInput: Stream = .inherited, standardOutput: Stream = .inherited, standardError: Stream = .inherited,
                      ownProcessGroup: Bool = false, setting additions: [String: String] = [:],
                      environment: [String]? = nil) throws(ChildProcessError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        var failure: Int32 = 0
        func check(_ status: Int32) { if failure == 0 { failure = status } }
        for (stream, target) in [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)] {
            switch stream {
            case .inherited: break
            case .null: check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0))
            case .descriptor(let descriptor): check(posix_spawn_file_actions_adddup2(&actions, descriptor, target))
            }
        }
        check(jv_spawn_actions_close_from(&actions, STDERR_FILENO + 1))
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if ownProcessGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            check(posix_spawnattr_setpgroup(&attributes, 0))
        }
        check(posix_spawnattr_setflags(&attributes, Int16(flags)))
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigemptyset(&empty)
        check(posix_spawnattr_setsigdefault(&attributes, &defaults))
        check(posix_spawnattr_setsigmask(&attributes, &empty))
        guard failure == 0 else { throw ChildProcessError(reason: String(cString: strerror(failure))) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = (environment ?? ChildEnvironment.entries(setting: additions)).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw ChildProcessError(reason: String(cString: strerror(status))) }
        return pid
    }
}

/// How a child process ended, as `waitpid` reports it.
public enum Termination: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)

    /// The termination a `waitpid` status describes.
    public init(waitStatus status: Int32) {
        self = status & 0x7f != 0 ? .signalled(status & 0x7f) : .exited((status >> 8) & 0xff)
    }

    /// Waits for the child `pid` to end (through interrupted waits) and says how it did.
    public init(waitingFor pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        self.init(waitStatus: status)
    }

    /// Waits for the child `pid` to end until `deadline` (polling: waitpid has no timeout) and
    /// says how it did; nil if it is still running then (the caller kills it).
    public init?(waitingFor pid: pid_t, until deadline: ContinuousClock.Instant) {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno != EINTR) { break }
            if ContinuousClock.now >= deadline { return nil }
            usleep(2_000)
        }
        self.init(waitStatus: status)
    }

    /// The status as a shell says it: the exit status, or 128 + the signal.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        }
    }
}

/// Why a ``ChildProcess`` could not start (`strerror`'s words).
public struct ChildProcessError: Error, Sendable {
    public let reason: String
}
