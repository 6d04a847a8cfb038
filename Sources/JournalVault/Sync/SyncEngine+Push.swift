// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Sending: this device's changes as its next pack, and what a sync repairs on this device's
/// side first (a pack interrupted, packs lost, a vault rolled back) and writes after (its keys file).
extension SyncEngine {
    /// Writes every pending change into the next pack, in the transaction that marks them sent:
    /// the pack is complete on disk, under a temporary name, before that commits, and takes its
    /// name after — so a process killed at any point leaves either no pack and the changes still
    /// pending, or the pack and its number recorded (``finishInterruptedPush(layout:state:)``).
    ///
    /// The blob files of the attachments' contents it names are at the location before it is
    /// (``uploadBlobs(layout:location:device:)`` wrote them, `uploaded` says which; any added
    /// since are written here, in its transaction).
    func push(layout: SyncLayout, uploaded: Set<UUID> = [], progress: ((SyncProgress) -> Void)?) throws -> (pack: UInt64, changes: Int)? {
        var written: (number: UInt64, device: UUID, temporary: String, final: String, changes: Int)?
        do {
            try vault.write { db in
                guard var state = try SyncState.load(db) else { return }
                // Parents before children (SealedTable.all's order), then in order of id text (FORMAT.md §14.3).
                let pending = try Row.fetchAll(db, sql: "SELECT tbl, id FROM sync_pending").compactMap { row -> (Int, String)? in
                    guard let name = row[0] as String?, let id = row[1] as String?,
                          let position = SealedTable.all.firstIndex(where: { $0.name == name }) else { return nil }
                    return (position, id)
                }.sorted { $0 < $1 }.map { (SealedTable.all[$0.0], $0.1) }
                guard !pending.isEmpty else { return }
                var present = uploaded.union(layout.blobStreams())
                try ensureBlobFiles(db, layout: layout, device: state.device, present: &present)
                let number = state.lastPack + 1
                try SyncLocation.folder(SyncLayout.folderName(of: state.device), in: layout)
                let temporary = layout.temporaryPackFile(of: state.device, number: number)
                unlink(temporary)
                let handle = try PrivateFiles.create(temporary)
                written = (number, state.device, temporary, layout.file(.pack, of: state.device, number: number), 0)
                defer { try? handle.close() }
                let header = SyncPack.Header(vaultID: keys.vaultID, device: state.device, number: number, keyVersion: keys.keyVersion,
                                             createdAt: Instant.now().millis, dependencies: try SyncState.applied(db))
                let writer = try SyncPack.Writer(header: header, syncKey: keys.syncKey, to: handle)
                let rows = SyncRows(db: db)
                for (done, (table, id)) in pending.enumerated() {
                    guard let uuid = UUID(storageText: id) else { continue }
                    let known = try KnownRevision.load(table, id, db)
                    let base = known.flatMap { $0.deleted ? nil : $0.stamp }
                    let stamp = SyncStamp(hlc: state.clock.tick(), device: state.device)
                    if let current = try rows.current(table, id) {
                        try writer.append(SyncChange(table: table, id: uuid, stamp: stamp, base: base, body: .row(current.values)))
                        try KnownRevision(stamp: stamp, deleted: false, rank: stamp).save(table, id, db)
                    } else if let base {
                        try writer.append(SyncChange(table: table, id: uuid, stamp: stamp, base: base, body: .tombstone))
                        try KnownRevision(stamp: stamp, deleted: true, rank: base).save(table, id, db)
                    }
                    if done % 1024 == 0 { progress?(SyncProgress(phase: .sending, done: done, total: pending.count)) }
                }
                try db.execute(sql: "DELETE FROM sync_pending")
                guard writer.changes > 0 else {
                    // Only records made and deleted again since the last pack: nothing to say.
                    try? handle.close()
                    unlink(temporary)
                    written = nil
                    try state.save(db)
                    return
                }
                try writer.finish()
                try handle.synchronize()
                written?.changes = writer.changes
                state.lastPack = number
                try state.save(db)
            }
        } catch {
            guard let written else { throw error }
            unlink(written.temporary)
            // The pack's own disk full: its transaction was rolled back, nothing changed.
            throw Self.fullDisk(error, layout: layout).map { VaultError.diskFull(folder: $0) } ?? error
        }
        guard let written else { return nil }
        try namePack(written.temporary, as: written.final, number: written.number, device: written.device, layout: layout)
        return (written.number, written.changes)
    }

    /// Gives the complete pack `temporary` its name `final`. A file already of that name is kept
    /// only when it is this very pack (a run killed between naming it and removing the temporary
    /// name); anything else there — garbage, a FIFO, a link someone put in this device's folder —
    /// is no pack of this device's, and the pack replaces it.
    private func namePack(_ temporary: String, as final: String, number: UInt64, device: UUID, layout: SyncLayout) throws {
        var status = stat()
        guard lstat(final, &status) == 0 else { return try PrivateFiles.commit(temporary, to: final, replace: false) }
        if isOwnPack(final, number: number, device: device, layout: layout) {
            unlink(temporary)
        } else {
            try PrivateFiles.commit(temporary, to: final, replace: true)
        }
    }

    /// Whether the file at `path` is `device`'s pack `number` as a device of this vault wrote it:
    /// its header authenticates under a key at hand (a later version's too, through the rotation
    /// files) and names this vault, that device and that number. Only such a file says anything
    /// of this device's own state.
    func isOwnPack(_ path: String, number: UInt64, device: UUID, layout: SyncLayout) -> Bool {
        (try? SyncPack.open(path, kind: .pack, expected: (keys.vaultID, device, number)) { try self.keys(anyVersion: $0, layout: layout).syncKey }) != nil
    }

    /// A vault restored from an older copy of itself (a backup, a copied file) has sent fewer
    /// packs than its folder in the location holds: those after were sent by a later state of
    /// it, whose changes it lacks. It goes on as a new device, and applies those packs as
    /// another device's; its old keys file goes (a device that never acknowledges anything
    /// would hold back every other device's compaction), unless it is of a later key version.
    /// Returns the state to go on with.
    func continueAfterRollback(layout: SyncLayout, location: SyncLocation, state: SyncState) throws -> SyncState {
        // Only a pack that authenticates as this device's says so: a file of that name proves nothing.
        let later = layout.numbers(of: .pack, device: state.device).filter { $0 > state.lastPack }
        guard later.contains(where: { isOwnPack(layout.file(.pack, of: state.device, number: $0), number: $0, device: state.device, layout: layout) }) else {
            return state
        }
        let reborn = try vault.write { db -> SyncState in
            var reborn = try SyncState.load(db) ?? state
            try SyncState.setApplied(reborn.lastPack, of: reborn.device, db)
            reborn.device = UUID()
            reborn.lastPack = 0
            reborn.keysDigest = nil
            try reborn.save(db)
            return reborn
        }
        // Unless the later state rotated the master key (jv rekey): its keys file, of a later key
        // version than this file's, is how this device and every other follow that rotation. Only
        // a keys file that authenticates is kept for that: anyone can write one that claims it.
        let oldKeys = SyncLocationFile.contents(layout.keysFile(of: state.device)).flatMap { try? SyncKeysFile(parsing: Array($0)) }
        if let oldKeys, oldKeys.device == state.device, oldKeys.keyVersion > keys.keyVersion,
           (try? oldKeys.authenticates(with: self.keys(anyVersion: oldKeys.keyVersion, layout: layout))) == true {
            return reborn
        }
        try location.removeKeysFile(vaultID: keys.vaultID, device: state.device)
        return reborn
    }

    /// This device's packs recorded as sent that its folder lacks, above its newest snapshot
    /// (which holds those before): lost on the way, or removed by someone. They cannot be made
    /// again as they were, so a snapshot of the whole vault, numbered as the newest pack, takes
    /// their place: a device waiting for one of them applies it instead (FORMAT.md §14.9) and goes
    /// on with the packs after it. Nothing is pending here (the pack just sent took it all), as a
    /// snapshot needs. Returns the missing numbers and the snapshot's; nil when none is missing.
    func replaceMissingPacks(layout: SyncLayout, device: UUID) throws -> (missing: [UInt64], snapshot: UInt64)? {
        guard let state = try database.read({ db in try SyncState.load(db) }) else { return nil }
        let held = newestSnapshot(of: device, layout: layout)?.number ?? 0
        guard state.lastPack > held else { return nil }
        let present = Set(layout.numbers(of: .pack, device: device))
        let missing = ((held + 1)...state.lastPack).filter { !present.contains($0) }
        guard !missing.isEmpty, let snapshot = try writeSnapshot(layout: layout, device: device) else { return nil }
        return (missing, snapshot)
    }

    /// A pack whose number was recorded but that was killed before taking its name takes it
    /// now; temporary packs of numbers never recorded are removed.
    func finishInterruptedPush(layout: SyncLayout, state: SyncState) throws {
        let folder = layout.deviceFolder(of: state.device)
        // Snapshots, acks, rotation and keys files half written by a killed sync.
        PrivateFiles.removeAbandoned(in: folder, where: SyncLayout.isTemporaryWrite)
        PrivateFiles.removeAbandoned(beside: layout.keysFile(of: state.device), purposes: .writing)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where SyncLayout.isTemporaryPackName(name) {
            if name == SyncLayout.temporaryPackName(state.lastPack) {
                try namePack("\(folder)/\(name)", as: layout.file(.pack, of: state.device, number: state.lastPack), number: state.lastPack,
                             device: state.device, layout: layout)
            } else {
                unlink("\(folder)/\(name)")
            }
        }
    }

    /// Writes `keys/DEVICE-ID` when this device's keyslots changed since it was last written
    /// (after `jv passwd` or `jv recovery-key`), or when it is missing.
    func publishKeys(layout: SyncLayout, state: SyncState) throws {
        let slots = try database.read { db in try Keyslot.readAll(db) }
        let digest = Data(Blake2b.hash(slots.flatMap { Array($0.encoded) }))
        let path = layout.keysFile(of: state.device)
        guard digest != state.keysDigest || !FileManager.default.fileExists(atPath: path) else { return }
        try SyncLocation.folder(SyncLayout.keysFolderName, in: layout)
        let file = SyncKeysFile(vaultID: keys.vaultID, device: state.device, keyVersion: keys.keyVersion, slots: slots)
        try PrivateFiles.writeWhole(file.encoded(syncKey: keys.syncKey), to: path, replace: true)
        try vault.write { db in
            var updated = try SyncState.load(db) ?? state
            updated.keysDigest = digest
            try updated.save(db)
        }
    }
}
