// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation
import JournalVault

/// A command from the person's settings (`$EDITOR`, `$JV_OPEN`) run on a private file jv guards
/// (``EditorFile``, `jv_guard_file`).
enum GuardedCommand {
    /// Runs `command` — which may carry its own flags, so it goes through `/bin/sh` as `$0` with
    /// `arguments` as `"$@"` — with the cleaned environment, on `terminal` when jv has one (else
    /// -1), in a process group of its own that a signal to jv ends whole: a program a wrapper
    /// script started must not outlive the file it was given. Its exit status, 127 when not
    /// found, or a negative number when it could not be started.
    static func run(_ command: String, _ arguments: [String], terminal: Int32) -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = (["/bin/sh", "-c", "exec $0 \"$@\"", command] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ChildEnvironment.entries().map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        return jv_run_guarded_child("/bin/sh", argv, envp, terminal)
    }
}
