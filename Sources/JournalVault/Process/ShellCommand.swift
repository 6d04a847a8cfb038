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

/// Why a ``ShellCommand`` could not start (`strerror`'s words).
public struct ShellCommandError: Error, Sendable {
    public let reason: String
}
