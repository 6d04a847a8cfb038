// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Why the key of a pack is not at hand: it was made under a key version this device has not
/// followed yet, or under an earlier one whose rotation file has not arrived.
enum PackKeyUnavailable: Error {
    case newer(UInt32)
    case older(UInt32)
}

extension SyncEngine {
    /// The keys that open packs made under key `version`: this vault's own, or an earlier
    /// version's through the rotation files in the location (FORMAT.md §14.8).
    func keys(forPacksOf version: UInt32, layout: SyncLayout) throws -> VaultKeys {
        if version == keys.keyVersion { return keys }
        if version > keys.keyVersion { throw PackKeyUnavailable.newer(version) }
        var current = keys
        while current.keyVersion > version {
            let at = current
            guard let (_, older) = SyncRotation.find(layout, to: at.keyVersion, { try $0.oldKeys(opening: at) }) else {
                throw PackKeyUnavailable.older(version)
            }
            current = older
        }
        return current
    }

    /// The keys of key `version` where they can be had: this vault's, an earlier version's
    /// (``keys(forPacksOf:layout:)``), or a later one's through the forward boxes of the rotation
    /// files — to authenticate a file of the location, not to follow the rotation.
    func keys(anyVersion version: UInt32, layout: SyncLayout) throws -> VaultKeys {
        guard version > keys.keyVersion else { return try keys(forPacksOf: version, layout: layout) }
        var current = keys
        while current.keyVersion < version {
            let at = current
            guard let (_, newer) = SyncRotation.find(layout, to: at.keyVersion + 1, { try $0.newKeys(opening: at) }) else {
                throw PackKeyUnavailable.newer(version)
            }
            current = newer
        }
        return current
    }

    /// Follows the rotations other devices made (`jv rekey`), through every rotation file there
    /// is, to the newest key version a device's keys file shows: this vault is re-encrypted
    /// under that key in one transaction, its passphrase keyslot re-wrapped, and that keys
    /// file's recovery keyslot taken, so the recovery key shown on the rotating device opens
    /// this vault too. Returns the vault under the new key; nil while the files it needs have
    /// not arrived.
    func followRotation(layout: SyncLayout) throws -> UnlockedVault? {
        var chain: [VaultKeys] = []
        while true {
            let at = chain.last ?? keys
            guard let (_, next) = SyncRotation.find(layout, to: at.keyVersion + 1, { try $0.newKeys(opening: at) }) else { break }
            chain.append(next)
        }
        let keysFiles = layout.keysFileDevices().compactMap { device in
            SyncLocationFile.contents(layout.keysFile(of: device)).flatMap { try? SyncKeysFile(parsing: Array($0)) }
        }
        // The newest version reached whose keys some device's keys file holds, with its recovery keyslot.
        let reached = chain.reversed().lazy.compactMap { newKeys in
            keysFiles.lazy.compactMap { file -> (VaultKeys, Keyslot)? in
                guard (try? file.authenticates(with: newKeys)) == true, let recovery = file.slots.first(where: { $0.kind == .recovery }) else { return nil }
                return (newKeys, recovery)
            }.first
        }.first
        guard let (newKeys, recovery) = reached else { return nil }
        guard vault.unlockedSlot?.slot.kind == .passphrase else {
            throw VaultError.syncSetup("Another device rotated this vault's master key (jv rekey); to follow it, run jv sync "
                                       + "with this device's passphrase (not the recovery key, and not through a session: add --no-agent)")
        }
        return try vault.rotate(to: newKeys, progress: nil) { _ in (recovery, nil) }.0
    }

    /// Writes the rotation files this device made that the location lacks.
    func publishRotations(layout: SyncLayout, device: UUID) throws {
        for (version, file) in try database.read({ db in try SyncRotation.stored(db) }) {
            let path = layout.rotationFile(of: device, to: version)
            guard !FileManager.default.fileExists(atPath: path) else { continue }
            try SyncLocation.folder(SyncLayout.folderName(of: device), in: layout)
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
