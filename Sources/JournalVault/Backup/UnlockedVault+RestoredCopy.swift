// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// Makes a restored file a vault file of its own beside the original (FORMAT.md §8.3), in one
    /// transaction: a new instance id, so its own high-water mark (writes here no longer make the
    /// original look rolled back); and for a vault that synced, out of its location — its device
    /// id is the original's, under which both would number packs. It keeps what it knows of the
    /// other devices, and notes that it holds the original device's packs up to the backup, so a
    /// later `jv sync init` joins it as a new device that applies the original's later packs as
    /// another device's. Returns the location it left.
    func becomeACopyOfItsOwn() throws -> String? {
        try write(renewingInstance: true) { db in
            guard let state = try SyncState.load(db) else { return nil }
            try SyncState.setApplied(state.lastPack, of: state.device, db)
            try db.execute(sql: "DELETE FROM sync_device")
            try db.execute(sql: "DELETE FROM sync_pending")
            return state.location
        }
    }
}
