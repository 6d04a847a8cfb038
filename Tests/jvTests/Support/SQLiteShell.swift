// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The sqlite3 command-line shell on a vault file, as someone editing it behind jv's back
/// would use it. The shell has no `jv_manifest`, the function the row-set manifest's triggers
/// call, so the triggers are dropped for the edit and put back as they were afterwards (else
/// jv would refuse its own later writes, finding them gone).
enum SQLiteShell {
    /// Runs `sql` on `vault`; returns what the shell printed, or throws with what it said.
    static func run(_ sqlite3: String, vault: String, _ sql: String) throws -> String {
        let drop = try plain(sqlite3, vault, "SELECT group_concat('DROP TRIGGER ' || name, '; ') || ';' FROM sqlite_master WHERE type = 'trigger'")
        guard !drop.isEmpty else { return try plain(sqlite3, vault, sql) }
        let create = try plain(sqlite3, vault, "SELECT group_concat(sql, '; ') || ';' FROM sqlite_master WHERE type = 'trigger'")
        let output = try plain(sqlite3, vault, drop + "\n" + sql + "\n;\n")
        _ = try plain(sqlite3, vault, create)
        return output
    }

    private static func plain(_ sqlite3: String, _ vault: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sqlite3)
        process.arguments = [vault, sql]
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("sqlite3 failed (\(process.terminationStatus)) on `\(sql)`: \(String(decoding: said, as: UTF8.self))")
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
