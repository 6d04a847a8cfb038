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

    /// The triggers' names are read and counted here: SQLite counting them itself, against two
    /// lists of some thirty quoted names, cost each writing process a million instructions more
    /// (mostly preparing the lists) than handing over the fifty-odd names.
    static func read(_ db: Database) throws -> WriteTriggers {
        var manifest = 0, sync = 0
        let names = try String.fetchCursor(db.cachedStatement(sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'"))
        while let name = try names.next() {
            if Manifest.triggerNames.contains(name) { manifest += 1 }
            if SyncCapture.triggerNames.contains(name) { sync += 1 }
        }
        let syncs = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sync_device)")) ?? false
        return WriteTriggers(manifestComplete: manifest == Manifest.triggerNames.count,
                             syncIncomplete: syncs && sync != SyncCapture.triggerNames.count)
    }
}
