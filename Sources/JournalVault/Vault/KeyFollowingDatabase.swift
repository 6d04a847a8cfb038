// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The vault's file as an ``UnlockedVault`` reaches it: every read and write transaction first
/// follows a `jv rekey` that another process committed since the vault was unlocked
/// (``UnlockedVault/followKeyRotation(_:)``), so that the keys a transaction uses and the records
/// it reads are of one snapshot. Without it a reader unlocked just before a rekey's commit read
/// every record under a key they were no longer sealed with, and took them all for tampered.
struct KeyFollowingDatabase {
    let base: VaultDatabase
    let journal: UnlockedVault

    var path: String { base.path }
    var pool: any DatabaseWriter { base.pool }
    var manifestRecorder: ManifestRecorder { base.manifestRecorder }
    var syncCapture: SyncCapture { base.syncCapture }

    func appliedMigrations() throws -> [String] { try base.appliedMigrations() }

    func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try base.read { db in
            try journal.followKeyRotation(db)
            return try body(db)
        }
    }

    /// One transaction: all of `body` or nothing.
    func write<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try base.write { db in
            try journal.followKeyRotation(db)
            return try body(db)
        }
    }
}
