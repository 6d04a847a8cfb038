// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

extension SyncEngine {
    /// Joins, as a new device, the vault that syncs through `location` (FORMAT.md §14.5): its
    /// keys are opened with the passphrase or recovery key of any device (from the keys files
    /// there), a new vault file is made at `path` with the same vault id, master key and
    /// keyslots and a new device id, and every pack there is applied. `attachments` says which
    /// attachments' contents are brought into the new file, as for ``sync(dryRun:compact:attachments:progress:)``.
    ///
    /// ```swift
    /// let (journal, report) = try SyncEngine.clone(from: "rclone:b2:journal", to: path, credential: .passphrase(secret), attachments: .none)
    /// ```
    public static func clone(from location: String, to path: String, credential: @autoclosure () throws -> VaultCredential,
                             attachments: AttachmentSyncPolicy = .all,
                             progress: ((SyncProgress) -> Void)? = nil) throws -> (vault: UnlockedVault, report: SyncReport) {
        if FileManager.default.fileExists(atPath: path) { throw VaultError.vaultExists(path: path) }
        let place = try SyncLocation(location)
        let vaults = try place.vaultIDs()
        guard let vaultID = vaults.first else { throw VaultError.syncUnavailable("no jv vault syncs through \(place.description)") }
        guard vaults.count == 1 else {
            throw VaultError.severalVaultsAtLocation(location: place.description, vaults: vaults.map(\.storageText))
        }
        // Asked for once the location is known to hold the vault, before anything is fetched.
        let credential = try credential()
        try place.fetch(vaultID: vaultID, device: nil)
        let (file, unlocked) = try openKeys(layout: place.layout(vaultID: vaultID), vaultID: vaultID, credential: credential)
        let keys = try VaultKeys(vaultID: vaultID, keyVersion: file.keyVersion, masterKey: unlocked.masterKey)
        let header = VaultHeader(vaultID: vaultID, formatVersion: VaultHeader.formatVersion, keyVersion: file.keyVersion,
                                 createdAt: Instant.now().millis)
        let database = try VaultDatabase.create(path: path) { db in
            try header.insert(db)
            for slot in file.slots { try slot.save(db) }
            try SyncState(device: UUID(), location: place.description, lastPack: 0, clock: HybridClock(last: 0), keysDigest: nil).save(db)
            try Manifest.empty(keyVersion: header.keyVersion).sealingIdentity(db, keys: keys).save(db, keys: keys)
            // Empty yet: nodes and relations made here get the ids the other devices derive
            // (FORMAT.md §1.6); those received keep the ids they came with.
            try DerivedGraphIDs.markInForce(db)
        }
        do {
            let vault = try Vault(database: database).unlock(masterKey: unlocked.masterKey, slot: unlocked)
            let engine = SyncEngine(vault)
            // The newest snapshot first, when there is one: older packs may be gone (compaction).
            let started = try engine.startFromSnapshot(layout: place.layout(vaultID: vaultID), progress: progress)
            var report = try engine.sync(attachments: attachments, progress: progress)
            report.changesReceived += started?.applied ?? 0
            report.conflictCopies += started?.conflictCopies ?? 0
            return (vault, report)
        } catch {
            // A clone that failed leaves no half-made vault behind.
            try? database.pool.close()
            PrivateFiles.removeDatabase(path)
            throw error
        }
    }

    /// Of the keys files at the location that `credential` opens, the one of the newest key
    /// version (a device that has not followed a `jv rekey` yet still shows the older one).
    private static func openKeys(layout: SyncLayout, vaultID: UUID, credential: VaultCredential) throws -> (SyncKeysFile, UnlockedSlot) {
        var refusal: Error = VaultError.syncUnavailable("the location holds no keys file for vault \(vaultID.storageText)")
        var newest: (SyncKeysFile, UnlockedSlot)?
        for device in layout.keysFileDevices() {
            do {
                guard let data = SyncLocationFile.contents(layout.keysFile(of: device)) else { continue }
                let file = try SyncKeysFile(parsing: Array(data))
                guard file.vaultID == vaultID, file.keyVersion > newest?.0.keyVersion ?? 0 else { continue }
                newest = (file, try file.unlock(with: credential))
            } catch let error as VaultError {
                // A wrong passphrase here may be right for another device's keyslots.
                refusal = error
            }
        }
        guard let newest else { throw refusal }
        return newest
    }
}
