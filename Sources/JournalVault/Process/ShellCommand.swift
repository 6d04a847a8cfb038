// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A command line run by `/bin/sh -c` for jv (an analyser, the pager, the passphrase command).
/// Whatever jv's own signal state, the command starts with the default handling of every
/// signal jv handles (reset by `exec`) or ignores (`SIGPIPE`, reset here), with no signal
/// blocked, and with jv's environment without its secrets (``ChildEnvironment``).
///
/// ```swift
/// let pid = try ShellCommand("less").spawn(standardInput: pipeEnd, setting: ["LESS": "FRX"])
/// ```
public struct ShellCommand: Sendable {
    public let command: String

    public init(_ command: String) { self.command = command }

    /// Starts the command with `standardInput` (and `standardOutput`, if given) as its own;
    /// in a process group of its own when `ownProcessGroup` (so that killing the group ends the
    /// shell and everything it started). `setting` adds variables missing from the environment.
    /// Returns its pid, or throws the `strerror` text of why it could not start.
    public func spawn(standardInput: Int32, standardOutput: Int32? = nil, ownProcessGroup: Bool = false,
                      setting additions: [String: String] = [:]) throws(ShellCommandError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, standardInput, STDIN_FILENO)
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, STDOUT_FILENO) }
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if ownProcessGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ChildEnvironment.entries(setting: additions).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        guard status == 0 else { throw ShellCommandError(reason: String(cString: strerror(status))) }
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

    /// The status as a shell says it: the exit status, or 128 + the signal.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        }
    }
}

/// Why a ``ShellCommand`` could not start (`strerror`'s words).
public struct ShellCommandError: Error, Sendable {
    public let reason: String
}
