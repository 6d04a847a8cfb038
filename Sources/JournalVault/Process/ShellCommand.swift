// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A command line run by `/bin/sh -c` for jv (an analyser, the pager, the passphrase command),
/// started as every child of jv is (``ChildProcess``: default signals, none blocked, jv's
/// environment without its secrets, no descriptor of jv's but those given).
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
                      setting additions: [String: String] = [:]) throws(ChildProcessError) -> pid_t {
        try ChildProcess("/bin/sh", arguments: ["-c", command])
            .spawn(standardInput: .descriptor(standardInput), standardOutput: standardOutput.map { .descriptor($0) } ?? .inherited,
                   ownProcessGroup: ownProcessGroup, setting: additions)
    }
}
