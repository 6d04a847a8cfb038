// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

extension ManifestedTable {
    /// This device's sync settings (FORMAT.md §14.6), one row at most: covered by a manifest of
    /// format 2 as a whole rather than through triggers, since jv rewrites it only in its own
    /// transactions (FORMAT.md §11.2).
    static let syncDevice = ManifestedTable(name: "sync_device", columns: ["singleton", "device_id", "location", "last_pack", "clock", "keys_digest"])
}

extension Manifest {
    /// The stored manifest (``load(_:keys:)``), or nil for a vault from before the manifest that
    /// has not been written since (FORMAT.md §11.4). One whose keyslots are of format 2 has had
    /// one: without it, it is ``VaultError/manifestDamaged(_:)``.
    static func loadUnlessNotBuiltYet(_ db: Database, keys: VaultKeys) throws -> Manifest? {
        if let manifest = try load(db, keys: keys) { return manifest }
        if try Keyslot.readAll(db).contains(where: { $0.format >= Keyslot.format }) {
            throw VaultError.manifestDamaged("the manifest is missing")
        }
        return nil
    }

    /// The `sync_device` rows as they are now, counted and digested as §11.1 digests a table's.
    static func syncDeviceState(_ db: Database, keys: VaultKeys) throws -> TableState {
        var state = TableState()
        let table = ManifestedTable.syncDevice
        let statement = try db.makeStatement(sql: "SELECT \(table.selection) FROM \(table.name)")
        let rows = try Row.fetchCursor(statement)
        while try rows.next() != nil {
            state.add(try digest(ofCurrentRowOf: statement, in: table, key: keys.manifestKey))
        }
        return state
    }

    /// A manifest of format 2 lists the `sync_device` row: one added, removed or changed by
    /// anyone but jv (a location or device id of someone else's choosing) is refused.
    func verifySyncDevice(_ db: Database, keys: VaultKeys) throws {
        guard let syncDevice, try Self.syncDeviceState(db, keys: keys) != syncDevice else { return }
        throw VaultError.manifestDamaged("the sync settings (sync_device) were changed outside jv")
    }

    /// This manifest as a writer stores it after its transaction's changes: of format 2 (an
    /// instance id given once, when a vault of format 1 is first written, or anew when
    /// `renewing`), listing the `sync_device` row as the transaction left it.
    func sealingIdentity(_ db: Database, keys: VaultKeys, renewing: Bool = false) throws -> Manifest {
        var sealed = self
        sealed.instance = renewing ? UUID() : instance ?? UUID()
        sealed.syncDevice = try Self.syncDeviceState(db, keys: keys)
        return sealed
    }

    /// The identity this vault file keeps its high-water mark under (FORMAT.md §11.6): derived
    /// from the vault id and the authenticated ``instance``; a manifest of format 1 has none but
    /// the vault id.
    func markIdentity(vaultID: UUID) -> UUID {
        guard let instance else { return vaultID }
        return UUID(bytes: Blake2b.hash(Array("JVLT-high-water".utf8) + vaultID.bytes + instance.bytes, length: 16))
    }
}
