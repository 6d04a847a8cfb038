import Foundation
import GRDB
import VaultCrypto

/// Why the key of a pack is not at hand: it was made under a key version this device has not
/// followed yet, or under an earlier one whose rotation file has not arrived.
enum PackKeyUnavailable: Error {
    case newer(UInt32)
    case older(UInt32)
}

extension UnlockedVault {
    /// The keys that open packs made under key `version`: this vault's own, or an earlier
    /// version's through the rotation files in the location (FORMAT.md §14.8).
    func keys(forPacksOf version: UInt32, root: String) throws -> VaultKeys {
        if version == keys.keyVersion { return keys }
        if version > keys.keyVersion { throw PackKeyUnavailable.newer(version) }
        var current = keys
        while current.keyVersion > version {
            let at = current
            guard let (_, older) = SyncRotation.find(root: root, to: at.keyVersion, { try $0.oldKeys(opening: at) }) else {
                throw PackKeyUnavailable.older(version)
            }
            current = older
        }
        return current
    }

    /// Follows the rotation another device made (`jv rekey`) to the next key version: this
    /// vault is re-encrypted under the new key in one transaction, its passphrase keyslot
    /// re-wrapped, and the rotating device's recovery keyslot taken, so the recovery key shown
    /// there opens this vault too. Returns the vault under the new key; nil while the rotation's
    /// file or the rotating device's keys file of the new version has not arrived.
    func followRotation(root: String) throws -> UnlockedVault? {
        let target = keys.keyVersion + 1
        let current = keys
        guard let (rotation, newKeys) = SyncRotation.find(root: root, to: target, { try $0.newKeys(opening: current) }) else { return nil }
        guard let data = FileManager.default.contents(atPath: "\(root)/keys/\(rotation.device.storageText)"),
              let file = try? SyncKeysFile(parsing: Array(data)), try file.authenticates(with: newKeys),
              let recovery = file.slots.first(where: { $0.kind == .recovery }) else { return nil }
        guard unlockedSlot?.slot.kind == .passphrase else {
            throw VaultError.syncSetup("Another device rotated this vault's master key (jv rekey); to follow it, run jv sync "
                                       + "with this device's passphrase (not the recovery key, and not through a session: add --no-agent)")
        }
        return try rotate(to: newKeys, progress: nil) { _ in (recovery, nil) }.0
    }

    /// Writes the rotation files this device made that the location lacks.
    func publishRotations(root: String, device: UUID) throws {
        for (version, file) in try database.read({ db in try SyncRotation.stored(db) }) {
            let path = "\(root)/\(device.storageText)/\(SyncRotation.fileName(to: version))"
            guard !FileManager.default.fileExists(atPath: path) else { continue }
            try VaultDatabase.createPrivateFolder("\(root)/\(device.storageText)")
            try PrivateFiles.writeWhole(Array(file), to: path, replace: false)
        }
    }
}

extension SyncChange {
    /// The change with its record re-encrypted from `old` to `new` keys (a pack made under an
    /// earlier key version, before its device followed a rotation).
    func resealed(from old: VaultKeys, to new: VaultKeys) throws -> SyncChange {
        guard case .row(let values) = body else { return self }
        let row = try UnlockedVault.resealed(SealedRow(received: table, values: values), from: old, to: new).row
        return SyncChange(table: table, id: id, stamp: stamp, base: base, body: .row(row.values))
    }
}
