// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The environment of every program jv starts — the editor, the pager, an analyser, the
/// passphrase command, rclone, and jv's own background check of a session: jv's own, without
/// the variables that name or hold one of jv's secrets. Those programs are the user's (or
/// serve the user's), so everything else is kept: they need their own settings (`TERM`, `HOME`,
/// `LESS`, `GPG_TTY`, `RCLONE_CONFIG_PASS`…). Only the session agent, jv itself, starts with
/// an empty environment (SECURITY.md).
///
/// ```swift
/// let envp = ChildEnvironment.entries(setting: ["LESS": "FRX"])   // ["HOME=/home/me", …, "LESS=FRX"]
/// ```
public enum ChildEnvironment {
    /// jv's variables that name or hold a secret (`JV_PASSPHRASE`, `JV_PASSPHRASE_FILE`,
    /// `JV_PASSPHRASE_COMMAND`, `JV_RECOVERY_KEY_FILE`, `JV_NEW_PASSPHRASE_FILE`).
    static let secretVariablePrefixes = ["JV_PASSPHRASE", "JV_RECOVERY_KEY", "JV_NEW_PASSPHRASE"]

    /// The environment as `NAME=value` entries (for `posix_spawn` and `execve`), with
    /// `additions` set where jv's own environment does not have them (the pager's `LESS`).
    public static func entries(setting additions: [String: String] = [:]) -> [String] {
        var entries: [String] = []
        var names: Set<Substring> = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if !secretVariablePrefixes.contains(where: { text.hasPrefix($0) }) {
                entries.append(text)
                names.insert(text.prefix { $0 != "=" })
            }
            pointer += 1
        }
        for (name, value) in additions.sorted(by: { $0.key < $1.key }) where !names.contains(Substring(name)) {
            entries.append(name + "=" + value)
        }
        return entries
    }
}
