// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// What one `jv sync` did (or, with `dryRun`, would do).
public struct SyncReport: Sendable {
    /// This device's new pack and the changes in it; nil when there was nothing to send. (With
    /// `compact`, conflict copies made while applying go in one more pack, counted here too.)
    public var sent: (pack: UInt64, changes: Int)?
    /// Changes waiting to be sent (a dry run sends nothing).
    public var pending = 0
    /// Packs of other devices applied, and the changes in them.
    public var packsReceived = 0
    public var changesReceived = 0
    /// Packs of other devices there to apply (a dry run applies nothing).
    public var packsAvailable = 0
    /// Conflict copies made of concurrent edits.
    public var conflictCopies = 0
    /// Devices whose next pack has not arrived, or waits for another device's: one sentence each.
    public var waiting: [String] = []
    /// Packs refused (damaged, moved, replayed, foreign): one sentence each; nothing of them applied.
    public var refused: [String] = []
    /// The snapshot written by `compact` (or in place of lost packs, ``resent``), by the number of the newest pack it holds.
    public var snapshot: UInt64?
    /// This device's packs recorded as sent that the location had lost, in increasing order: the
    /// snapshot written then (``snapshot``) takes their place for the devices waiting for them.
    public var resent: [UInt64] = []
    /// This device's files that could not be written to the location once its pack had gone out
    /// and the other devices' had been applied — its keys, acks or rotation files, a snapshot in
    /// place of lost packs — each with why (its disk is full). Each is written at the next sync.
    public var unwritten: [(file: String, reason: String)] = []
    /// Why `compact` wrote no snapshot and removed nothing (the location's disk is full); nil
    /// when it compacted, or was not asked to.
    public var notCompacted: String?
    /// This device's packs removed by `compact`.
    public var packsRemoved = 0
    /// The key version this vault moved to, following a `jv rekey` made on another device. The
    /// vault was re-encrypted: this ``UnlockedVault`` is then out of date; open the vault again.
    public var rekeyedTo: UInt32?
}

/// Where a sync is, for a progress bar: changes written into this device's pack while sending,
/// bytes of packs read while receiving, of a known total.
public struct SyncProgress: Sendable {
    public enum Phase: String, Sendable { case sending, receiving }
    public let phase: Phase
    public let done: Int
    public let total: Int
}

/// This device's sync set-up and what it knows of the others.
public struct SyncStatus: Sendable {
    public struct Peer: Sendable {
        public let device: UUID
        /// Its packs applied here (1...applied).
        public let applied: UInt64
        /// Its newest pack in the local copy of the location.
        public let newest: UInt64
        /// Its next pack (applied + 1) when that is missing while later ones are there: nothing of
        /// that device applies until it arrives (or the snapshot its device sends in its place).
        public let missing: UInt64?
    }

    public let device: UUID
    public let location: String
    /// This device's newest pack.
    public let lastPack: UInt64
    /// Local changes not sent yet.
    public let pending: Int
    public let peers: [Peer]
    /// Devices whose keys file in the location does not authenticate (not written by a device of
    /// this vault, or damaged): they hold no compaction back.
    public let unauthenticatedKeysFiles: [UUID]
}

extension UnlockedVault {
    /// Sets this vault up to sync through `location` (FORMAT.md §14): a new device id, every
    /// record marked to be sent, then a first ``sync(dryRun:progress:)`` — which sends them all as
    /// this device's first pack and applies whatever other devices of this vault left there.
    ///
    /// ```swift
    /// try journal.setUpSync(at: "/home/me/Sync/journal")
    /// ```
    public func setUpSync(at location: String, progress: ((SyncProgress) -> Void)? = nil) throws -> SyncReport {
        let place = try SyncLocation(location)
        return try SyncLock.holding(vault: database.path) {
            if let existing = try database.read({ db in try SyncState.load(db) }) {
                throw VaultError.syncSetup("This vault already syncs through \(existing.location); it keeps one location")
            }
            try place.prepareForFirstDevice()
            try place.fetch(vaultID: keys.vaultID, device: nil)
            // The write derives graph ids first where they are not yet (other devices derive the same
            // ids for the same nodes and relations, FORMAT.md §1.6); the records then all go out.
            try write { db in
                try SyncState(device: UUID(), location: place.description, lastPack: 0, clock: HybridClock(last: 0), keysDigest: nil).save(db)
                for table in SealedTable.all {
                    try db.execute(sql: "INSERT OR IGNORE INTO sync_pending (tbl, id) SELECT ?, id FROM \(table.name)", arguments: [table.name])
                }
            }
            return try syncHoldingLock(dryRun: false, compact: false, progress: progress)
        }
    }

    /// Sends this device's changes as one new pack, then applies every other device's packs
    /// that can be (FORMAT.md §14.7). With the location unreachable it changes nothing and
    /// throws ``VaultError/syncUnavailable(_:)``. A refused pack stops only its device's pull.
    ///
    /// `compact`: then also writes a snapshot of the whole vault, from which new devices start,
    /// and removes this device's packs that snapshot holds and every other device has applied
    /// (FORMAT.md §14.9).
    ///
    /// A second sync of the same vault file waits until this one is done (``SyncLock``).
    public func sync(dryRun: Bool = false, compact: Bool = false, progress: ((SyncProgress) -> Void)? = nil) throws -> SyncReport {
        try SyncLock.holding(vault: database.path) { try syncHoldingLock(dryRun: dryRun, compact: compact, progress: progress) }
    }

    private func syncHoldingLock(dryRun: Bool, compact: Bool, progress: ((SyncProgress) -> Void)?) throws -> SyncReport {
        guard var state = try database.read({ db in try SyncState.load(db) }) else {
            throw VaultError.syncSetup("This vault does not sync yet: set it up with `jv sync init LOCATION` or `jv sync clone LOCATION`")
        }
        let location = try SyncLocation(state.location)
        try location.fetch(vaultID: keys.vaultID, device: state.device)
        let layout = location.layout(vaultID: keys.vaultID)
        for name in [SyncLayout.folderName(of: state.device), SyncLayout.keysFolderName] { try SyncLocation.folder(name, in: layout, create: false) }
        var report = SyncReport()
        if dryRun {
            report.pending = try database.read { db in try SyncState.pendingCount(db) }
            report.packsAvailable = try unappliedPacks(layout: layout, state: state).count
            return report
        }
        state = try continueAfterRollback(layout: layout, location: location, state: state)
        try finishInterruptedPush(layout: layout, state: state)
        report.sent = try push(layout: layout, progress: progress)
        state = try database.read { db in try SyncState.load(db) } ?? state
        try unlessFull("keys file", layout: layout, report: &report) { try publishKeys(layout: layout, state: state) }
        try unlessFull("key rotation files", layout: layout, report: &report) { try publishRotations(layout: layout, device: state.device) }
        if let replaced = try unlessFull("snapshot in place of its lost packs", layout: layout, report: &report, {
            try replaceMissingPacks(layout: layout, device: state.device)
        }) ?? nil {
            (report.resent, report.snapshot) = (replaced.missing, replaced.snapshot)
        }
        try Self.delivering { try location.publish(vaultID: keys.vaultID, device: state.device) }
        // Following another device's rekey on the way gives a vault under the new key.
        let current = try pull(layout: layout, device: state.device, report: &report, progress: progress)
        // A node or relation parked as the same as another comes back once that one is gone,
        // which a change made here may have done (applying a pack looks at them too).
        if report.sent != nil { try current.unparkReady() }
        let changed = try unlessFull("acks file", layout: layout, report: &report) { try current.publishAcks(layout: layout, device: state.device) } ?? false
        if compact {
            // Conflict copies made while applying are sent first: a snapshot holds only what was sent.
            if let sent = try current.push(layout: layout, progress: progress) {
                report.sent = (report.sent?.pack ?? sent.pack, (report.sent?.changes ?? 0) + sent.changes)
            }
            do {
                report.snapshot = try current.writeSnapshot(layout: layout, device: state.device) ?? report.snapshot
            } catch {
                guard let full = Self.fullDisk(error, layout: layout) else { throw error }
                report.notCompacted = "the disk holding \(full) is full"
            }
            // Removal needs the snapshot.
            let removed = report.notCompacted == nil ? try current.removeCompacted(layout: layout, device: state.device) : []
            report.packsRemoved = removed.filter { SyncLayout.number(.pack, inFileName: $0) != nil }.count
            // The snapshot is up before any pack it holds goes.
            try Self.delivering { try location.publish(vaultID: keys.vaultID, device: state.device) }
            try Self.delivering { try location.remove(vaultID: keys.vaultID, device: state.device, names: removed) }
        } else if changed {
            try Self.delivering { try location.publish(vaultID: keys.vaultID, device: state.device) }
        }
        return report
    }

    /// Writes one of this device's files to the location (`file` says which) after its pack: a
    /// full disk there is no failed sync — the changes went out and came in — so the file goes in
    /// ``SyncReport/unwritten``, to be written at the next sync. Returns nil then.
    @discardableResult
    private func unlessFull<Result>(_ file: String, layout: SyncLayout, report: inout SyncReport, _ body: () throws -> Result) throws -> Result? {
        do {
            return try body()
        } catch {
            guard let full = Self.fullDisk(error, layout: layout) else { throw error }
            report.unwritten.append((file, "the disk holding \(full) is full"))
            return nil
        }
    }

    /// The location's folder whose disk is full, when `error` came from writing a file there.
    /// (A full disk of the vault itself is not this: SQLite's errors are the vault's.)
    static func fullDisk(_ error: Error, layout: SyncLayout) -> String? {
        guard !(error is DatabaseError), case .diskFull(let folder)? = PrivateFiles.diskFull(error, writing: layout.root + "/file") else { return nil }
        return folder
    }

    /// Runs an upload to the location, or a removal there: once this device's pack is made, a
    /// failure is not "nothing changed" — the pack is kept, and the next sync delivers it.
    private static func delivering(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch VaultError.syncUnavailable(let reason) {
            throw VaultError.syncNotDelivered(reason)
        }
    }

    /// The set-up and what the local copy of the location shows (nothing is fetched).
    public func syncStatus() throws -> SyncStatus {
        guard let location = try database.read({ db in try SyncState.load(db)?.location }) else {
            throw VaultError.syncSetup("This vault does not sync: set it up with `jv sync init LOCATION` or `jv sync clone LOCATION`")
        }
        let unauthenticated = keysFiles(layout: try SyncLocation(location).layout(vaultID: keys.vaultID)).unauthenticated
        return try database.read { db in
            guard let state = try SyncState.load(db) else {
                throw VaultError.syncSetup("This vault does not sync: set it up with `jv sync init LOCATION` or `jv sync clone LOCATION`")
            }
            let layout = try SyncLocation(state.location).layout(vaultID: keys.vaultID)
            let applied = try SyncState.applied(db)
            let peers = Set(applied.keys).union(layout.devices()).subtracting([state.device]).sorted { $0.storageText < $1.storageText }
            return SyncStatus(device: state.device, location: state.location, lastPack: state.lastPack, pending: try SyncState.pendingCount(db),
                              peers: peers.map { peer in
                                  let numbers = Set(layout.numbers(of: .pack, device: peer))
                                  let next = (applied[peer] ?? 0) + 1
                                  return SyncStatus.Peer(device: peer, applied: next - 1, newest: numbers.max() ?? 0,
                                                         missing: !numbers.contains(next) && (numbers.max() ?? 0) > next ? next : nil)
                              },
                              unauthenticatedKeysFiles: unauthenticated)
        }
    }

    // MARK: Sending

    /// Writes every pending change into the next pack, in the transaction that marks them sent:
    /// the pack is complete on disk, under a temporary name, before that commits, and takes its
    /// name after — so a process killed at any point leaves either no pack and the changes still
    /// pending, or the pack and its number recorded (``finishInterruptedPush(layout:state:)``).
    func push(layout: SyncLayout, progress: ((SyncProgress) -> Void)?) throws -> (pack: UInt64, changes: Int)? {
        var written: (number: UInt64, device: UUID, temporary: String, final: String, changes: Int)?
        do {
            try write { db in
                guard var state = try SyncState.load(db) else { return }
                let pending = try Row.fetchAll(db, sql: "SELECT tbl, id FROM sync_pending").compactMap { row -> (Int, String)? in
                    guard let name = row[0] as String?, let id = row[1] as String?,
                          let index = SealedTable.all.firstIndex(where: { $0.name == name }) else { return nil }
                    return (index, id)
                }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
                guard !pending.isEmpty else { return }
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
                for (done, (tableIndex, id)) in pending.enumerated() {
                    let table = SealedTable.all[tableIndex]
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
    private func continueAfterRollback(layout: SyncLayout, location: SyncLocation, state: SyncState) throws -> SyncState {
        // Only a pack that authenticates as this device's says so: a file of that name proves nothing.
        let later = layout.numbers(of: .pack, device: state.device).filter { $0 > state.lastPack }
        guard later.contains(where: { isOwnPack(layout.file(.pack, of: state.device, number: $0), number: $0, device: state.device, layout: layout) }) else {
            return state
        }
        let reborn = try write { db -> SyncState in
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
    private func replaceMissingPacks(layout: SyncLayout, device: UUID) throws -> (missing: [UInt64], snapshot: UInt64)? {
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
    private func finishInterruptedPush(layout: SyncLayout, state: SyncState) throws {
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
    private func publishKeys(layout: SyncLayout, state: SyncState) throws {
        let slots = try database.read { db in try Keyslot.readAll(db) }
        let digest = Data(Blake2b.hash(slots.flatMap { Array($0.encoded) }))
        let path = layout.keysFile(of: state.device)
        guard digest != state.keysDigest || !FileManager.default.fileExists(atPath: path) else { return }
        try SyncLocation.folder(SyncLayout.keysFolderName, in: layout)
        let file = SyncKeysFile(vaultID: keys.vaultID, device: state.device, keyVersion: keys.keyVersion, slots: slots)
        try PrivateFiles.writeWhole(file.encoded(syncKey: keys.syncKey), to: path, replace: true)
        try write { db in
            var updated = try SyncState.load(db) ?? state
            updated.keysDigest = digest
            try updated.save(db)
        }
    }

    // MARK: Receiving

    /// Other devices' packs present and not applied yet, as (device, number, path).
    private func unappliedPacks(layout: SyncLayout, state: SyncState) throws -> [(device: UUID, number: UInt64, path: String)] {
        let applied = try database.read { db in try SyncState.applied(db) }
        return layout.devices().filter { $0 != state.device }.flatMap { device in
            layout.numbers(of: .pack, device: device).filter { $0 > applied[device] ?? 0 }.sorted()
                .map { (device, $0, layout.file(.pack, of: device, number: $0)) }
        }
    }

    /// Merges every change of `reader` (sealed under `packKeys`) in one transaction, which also
    /// records what is then applied of each device: `applied` for a pack, and for a snapshot
    /// what it holds, where that is more than was applied here.
    func apply(_ reader: SyncPack.Reader, keys packKeys: VaultKeys, applied: [UUID: UInt64],
               progress: (Int) -> Void) throws -> MergeTally {
        var tally = MergeTally()
        let snapshot = reader.header.clocks
        try database.syncCapture.applyingOtherDevices {
            try write { db in
                let rows = SyncRows(db: db)
                guard var state = try SyncState.load(db) else { return }
                let held = snapshot == nil ? [:] : try SyncState.clocks(db)
                var seen: [UUID: UInt64] = [:]
                var count = 0
                while var change = try reader.next() {
                    state.clock.observe(change.stamp.hlc)
                    seen[change.stamp.device] = max(seen[change.stamp.device] ?? 0, change.stamp.hlc)
                    if packKeys.keyVersion != keys.keyVersion { change = try change.resealed(from: packKeys, to: keys) }
                    if let snapshot {
                        try mergeFromSnapshot(change, clocks: snapshot, held: held, rows: rows, tally: &tally)
                    } else {
                        try merge(change, rows: rows, tally: &tally)
                    }
                    count += 1
                    if count % 1024 == 0 { progress(reader.bytesRead) }
                }
                try rows.unparkReady()
                let before = try SyncState.applied(db)
                for (device, number) in applied where device != state.device && number > before[device] ?? 0 {
                    try SyncState.setApplied(number, of: device, db)
                }
                for (device, clock) in seen.merging(snapshot ?? [:], uniquingKeysWith: max) where device != state.device {
                    try SyncState.raiseClock(clock, of: device, db)
                }
                try state.save(db)
            }
        }
        return tally
    }

    /// Moves back to their tables the parked records that can be (``SyncRows/unparkReady()``),
    /// in a transaction of its own, made only when records are parked.
    private func unparkReady() throws {
        guard try database.read({ db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_parked)") }) == true else { return }
        try database.syncCapture.applyingOtherDevices {
            try write { db in try SyncRows(db: db).unparkReady() }
        }
    }

    /// Applies, in causal order, every other device's next pack that is there and whose
    /// dependencies are met, until none is left; one transaction per pack.
    /// Returns the vault to go on with: this one, or after following another device's rekey
    /// the vault under the new key.
    private func pull(layout: SyncLayout, device me: UUID, report: inout SyncReport, progress: ((SyncProgress) -> Void)?) throws -> UnlockedVault {
        let state = try database.read { db in try SyncState.load(db) }
        guard let state else { return self }
        let available = try unappliedPacks(layout: layout, state: state)
        var applied = try database.read { db in try SyncState.applied(db) }
        let total = available.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int) ?? 0) }
        var bytesDone = 0
        var refused: Set<UUID> = []
        // Devices whose next pack is under a key not at hand yet, and why.
        var blocked: [UUID: String] = [:]
        let devices = layout.devices().filter { $0 != me }.sorted { $0.storageText < $1.storageText }
        var progressed = true
        while progressed {
            progressed = false
            for device in devices where !refused.contains(device) && blocked[device] == nil {
                let next = (applied[device] ?? 0) + 1
                guard let pack = available.first(where: { $0.device == device && $0.number == next }) else {
                    // Removed by that device's compaction: its snapshot holds it.
                    do {
                        if try recoverFromSnapshot(of: device, layout: layout, after: next - 1, progress: progress) {
                            applied = try database.read { db in try SyncState.applied(db) }
                            report.packsReceived += 1
                            progressed = true
                        }
                    } catch VaultError.syncPackRefused(let reason) {
                        refused.insert(device)
                        report.refused.append("the snapshot of device \(device.storageText.prefix(8)): \(reason)")
                    }
                    continue
                }
                do {
                    var packKeys = keys
                    let reader = try SyncPack.open(pack.path, kind: .pack, expected: (keys.vaultID, device, next)) { version in
                        packKeys = try self.keys(forPacksOf: version, layout: layout)
                        return packKeys.syncKey
                    }
                    guard reader.header.dependencies.allSatisfy({ $0.key == me || (applied[$0.key] ?? 0) >= $0.value }) else { continue }
                    let base = bytesDone
                    let tally = try apply(reader, keys: packKeys, applied: [device: next]) { read in
                        progress?(SyncProgress(phase: .receiving, done: base + read, total: total))
                    }
                    bytesDone += reader.bytesRead
                    progress?(SyncProgress(phase: .receiving, done: bytesDone, total: total))
                    applied[device] = next
                    report.packsReceived += 1
                    report.changesReceived += tally.applied
                    report.conflictCopies += tally.conflictCopies
                    progressed = true
                } catch PackKeyUnavailable.newer(let version) {
                    // Another device ran `jv rekey`: follow it, then go on under the new key.
                    if let rekeyed = try followRotation(layout: layout) {
                        report.rekeyedTo = rekeyed.keys.keyVersion
                        _ = try? vault.lockSession() // as after jv rekey: the agent holding the old key wipes it
                        return try rekeyed.pull(layout: layout, device: me, report: &report, progress: progress)
                    }
                    blocked[device] = "pack \(next) is under key version \(version) (a jv rekey on another device), whose key files have not all arrived"
                } catch PackKeyUnavailable.older(let version) {
                    blocked[device] = "pack \(next) is under the earlier key version \(version), whose rotation file has not arrived"
                } catch let error as VaultError {
                    switch error {
                    case .syncPackRefused(let reason), .tamperedRecord(_, _, let reason):
                        refused.insert(device)
                        report.refused.append("pack \(next) of device \(device.storageText.prefix(8)): \(reason)")
                    default:
                        throw error
                    }
                }
            }
        }
        for device in devices where !refused.contains(device) {
            if let reason = blocked[device] {
                report.waiting.append("device \(device.storageText.prefix(8)): \(reason)")
                continue
            }
            let next = (applied[device] ?? 0) + 1
            let later = available.filter { $0.device == device && $0.number >= next }
            guard let first = later.map(\.number).min() else { continue }
            report.waiting.append(first == next
                ? "device \(device.storageText.prefix(8)): pack \(next) waits for packs of another device that have not arrived"
                : "device \(device.storageText.prefix(8)): pack \(next) has not arrived yet; \(later.count) later pack\(later.count == 1 ? "" : "s") wait for it")
        }
        return self
    }
}
