// SPDX-License-Identifier: Apache-2.0
import GRDB

/// Whether the triggers that every write relies on are in the file: the manifest's (migration
/// 0005), which hand each row change to ``ManifestRecorder``, and, in a vault that syncs, sync's
/// (migration 0006), which note each change to send (FORMAT.md §11, §14.6). A write checks them
/// before anything else (``UnlockedVault/manifestForWritingWithTriggers(_:)``) and
/// ``UnlockedVault/check()`` reports them, both through ``read(_:)``.
///
/// ```swift
/// let triggers = try WriteTriggers.read(db)
/// if triggers.syncIncomplete { /* a change written now would never reach the other devices */ }
/// ```
struct WriteTriggers: Sendable {
    /// Every trigger of the manifest is there.
    let manifestComplete: Bool
    /// The vault syncs and a trigger of sync is missing: a change written without it would never
    /// reach the other devices.
    let syncIncomplete: Bool

    /// Counted by SQLite in one statement, since it runs before every write: reading the name of
    /// every trigger into Swift strings cost more than a small write itself. The names are made
    /// of table names (letters and underscores), so they are quoted as they are: escaping them
    /// with Foundation's `replacingOccurrences` cost each writing process 1.3 M instructions.
    private static let countSQL: String = {
        func count(_ names: Set<String>) -> String {
            let quoted = names.sorted().map { name in
                precondition(!name.utf8.contains(UInt8(ascii: "'")), "a trigger name with a quote: \(name)")
                return "'" + name + "'"
            }
            return "(SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (\(quoted.joined(separator: ", "))))"
        }
        return "SELECT \(count(Manifest.triggerNames)), \(count(SyncCapture.triggerNames)), EXISTS (SELECT 1 FROM sync_device)"
    }()

    /// The triggers of the file `db` reads.
    static func read(_ db: Database) throws -> WriteTriggers {
        guard let present = try Row.fetchOne(db.cachedStatement(sql: countSQL)) else { throw VaultError.storage("cannot read the schema") }
        return WriteTriggers(manifestComplete: present[0] as Int == Manifest.triggerNames.count,
                             syncIncomplete: present[2] as Bool && present[1] as Int != SyncCapture.triggerNames.count)
    }
}
