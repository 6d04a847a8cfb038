// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The environment of the programs jv runs (an analyser, the editor): jv's own, without the
/// variables that name or hold a secret. Those programs are someone else's.
///
/// ```swift
/// process.environment = ChildEnvironment.withoutSecrets
/// ```
public enum ChildEnvironment {
    /// jv's variables that name or hold a secret (`JV_PASSPHRASE`, `JV_PASSPHRASE_FILE`,
    /// `JV_PASSPHRASE_COMMAND`, `JV_RECOVERY_KEY_FILE`, `JV_NEW_PASSPHRASE_FILE`).
    static let secretVariablePrefixes = ["JV_PASSPHRASE", "JV_RECOVERY_KEY", "JV_NEW_PASSPHRASE"]

    /// The environment as `NAME=value` entries.
    private static func entries() -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if !secretVariablePrefixes.contains(where: { text.hasPrefix($0) }) { entries.append(text) }
            pointer += 1
        }
        return entries
    }

    /// The environment by name (for Foundation's `Process`).
    public static var withoutSecrets: [String: String] {
        var variables: [String: String] = [:]
        for entry in entries() {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            variables[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return variables
    }
}
