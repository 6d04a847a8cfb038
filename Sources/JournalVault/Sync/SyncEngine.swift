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
    /// Attachments' contents brought into this vault file from the location (FORMAT.md §14.11).
    public var contentsFetched = 0
    /// Attachments' contents left at the location, as asked (``AttachmentSyncPolicy``): fetched
    /// when read.
    public var contentsLeft = 0
    /// Blob files of attachments' contents removed by `compact`: no device needs them any more.
    public var contentsRemoved = 0
    /// Attachments' contents whose blob file is not at the location (not arrived yet, or
    /// removed): their records are here; each is fetched at a later sync, or when read.
    public var contentsMissing = 0
    /// A dry run's count of the attachments' contents whose blob files sending would write: those
    /// of the records waiting to be sent that the location lacks.
    public var contentsToSend = 0
    /// A dry run's count of the attachments' contents whose records are here without them that
    /// the attachments policy would fetch (the packs not applied yet may name more).
    public var contentsToFetch = 0
    /// The key version this vault moved to, following a `jv rekey` made on another device. The
    /// vault was re-encrypted: the ``UnlockedVault`` the ``SyncEngine`` was made with is then out of
    /// date; open the vault again.
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

/// Syncs an unlocked vault with its other devices through a location (FORMAT.md §14): sends
/// this device's changes as packs, applies the other devices' packs, compacts, and follows a
/// `jv rekey` made on another device. It holds nothing but the vault; make one where needed.
///
/// ```swift
/// let engine = SyncEngine(journal)
/// _ = try engine.setUp(at: "/home/me/Sync/journal")    // once, on the first device
/// let report = try engine.sync()                         // then whenever wanted
/// let status = try engine.status()
/// let (other, _) = try SyncEngine.clone(from: "/home/me/Sync/journal", to: otherPath, credential: .passphrase(secret))
/// ```
public struct SyncEngine: Sendable {
    /// The vault synced.
    let vault: UnlockedVault

    /// An engine that syncs `vault` (set up or not yet).
    public init(_ vault: UnlockedVault) {
        self.vault = vault
    }

    /// The vault's keys as its current transaction sees them (``UnlockedVault/keys``).
    var keys: VaultKeys { vault.keys }
    var database: KeyFollowingDatabase { vault.database }

    /// Sets the vault up to sync through `location` (FORMAT.md §14): a new device id, every
    /// record marked to be sent, then a first ``sync(dryRun:compact:progress:)`` — which sends them
    /// all as this device's first pack and applies whatever other devices of this vault left there.
    ///
    /// ```swift
    /// try SyncEngine(journal).setUp(at: "/home/me/Sync/journal")
    /// ```
    public func setUp(at location: String, progress: ((SyncProgress) -> Void)? = nil) throws -> SyncReport {
        let place = try SyncLocation(location)
        return try SyncLock.holding(vault: database.path) {
            if let existing = try database.read({ db in try SyncState.load(db) }) {
                throw VaultError.syncAlreadySetUp(location: existing.location)
            }
            try place.prepareForFirstDevice()
            try place.fetch(vaultID: keys.vaultID, device: nil)
            // The write derives graph ids first where they are not yet (other devices derive the same
            // ids for the same nodes and relations, FORMAT.md §1.6); the records then all go out.
            try vault.write { db in
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
    /// `attachments`: which attachments' contents that this vault file lacks are brought in from
    /// the location (their records always are). A blob file that is damaged is refused as a pack
    /// is (``SyncReport/refused``), nothing of it stored.
    ///
    /// A second sync of the same vault file waits until this one is done (``SyncLock``).
    ///
    /// ```swift
    /// let report = try SyncEngine(journal).sync(compact: true)
    /// if report.rekeyedTo != nil { journal = try Vault.open(at: path).unlock(passphrase: secret) }
    /// ```
    public func sync(dryRun: Bool = false, compact: Bool = false, attachments: AttachmentSyncPolicy = .all,
                     progress: ((SyncProgress) -> Void)? = nil) throws -> SyncReport {
        try SyncLock.holding(vault: database.path) {
            try syncHoldingLock(dryRun: dryRun, compact: compact, attachments: attachments, progress: progress)
        }
    }

    private func syncHoldingLock(dryRun: Bool, compact: Bool, attachments: AttachmentSyncPolicy = .all,
                                 progress: ((SyncProgress) -> Void)?) throws -> SyncReport {
        guard var state = try database.read({ db in try SyncState.load(db) }) else {
            throw VaultError.syncNotSetUp
        }
        let location = try SyncLocation(state.location)
        try location.fetch(vaultID: keys.vaultID, device: state.device)
        let layout = location.layout(vaultID: keys.vaultID)
        for name in [SyncLayout.folderName(of: state.device), SyncLayout.keysFolderName] { try SyncLocation.folder(name, in: layout, create: false) }
        var report = SyncReport()
        if dryRun {
            report.pending = try database.read { db in try SyncState.pendingCount(db) }
            report.packsAvailable = try unappliedPacks(layout: layout, state: state).count
            (report.contentsToSend, report.contentsToFetch) = try contentsToMove(location: location, policy: attachments)
            return report
        }
        state = try continueAfterRollback(layout: layout, location: location, state: state)
        try finishInterruptedPush(layout: layout, state: state)
        // The contents' files go first: a device never finds a record of a content whose file is not there yet.
        let uploaded = try uploadBlobs(layout: layout, location: location, device: state.device)
        report.sent = try push(layout: layout, uploaded: uploaded, progress: progress)
        state = try database.read { db in try SyncState.load(db) } ?? state
        try unlessFull("keys file", layout: layout, report: &report) { try publishKeys(layout: layout, state: state) }
        try unlessFull("key rotation files", layout: layout, report: &report) { try publishRotations(layout: layout, device: state.device) }
        if let replaced = try unlessFull("snapshot in place of its lost packs", layout: layout, report: &report, {
            try replaceMissingPacks(layout: layout, device: state.device)
        }) ?? nil {
            (report.resent, report.snapshot) = (replaced.missing, replaced.snapshot)
        }
        try Self.delivering { try location.publishBlobs(vaultID: keys.vaultID) }
        try Self.delivering { try location.publish(vaultID: keys.vaultID, device: state.device) }
        // Following another device's rekey on the way gives a vault under the new key.
        let current = try pull(layout: layout, device: state.device, report: &report, progress: progress)
        // A node or relation parked as the same as another comes back once that one is gone,
        // which a change made here may have done (applying a pack looks at them too).
        if report.sent != nil { try current.unparkReady() }
        // Every blob row is where it stays by now (unparked ones too): their contents come in.
        let contents = try current.fetchContents(layout: layout, location: location, policy: attachments)
        (report.contentsFetched, report.contentsLeft, report.contentsMissing) = (contents.fetched, contents.left, contents.missing)
        report.refused += contents.refused
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
            try Self.delivering { try location.publishBlobs(vaultID: keys.vaultID) }
            try Self.delivering { try location.publish(vaultID: keys.vaultID, device: state.device) }
            try Self.delivering { try location.remove(vaultID: keys.vaultID, device: state.device, names: removed) }
            if report.notCompacted == nil {
                try Self.delivering { report.contentsRemoved = try current.removeUnneededBlobs(layout: layout, location: location, device: state.device) }
            }
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

    /// The set-up and what the local copy of the location shows (nothing is fetched), for
    /// `jv sync status`; a vault opened read-only does.
    ///
    /// ```swift
    /// let status = try SyncEngine(journal).status()
    /// ```
    public func status() throws -> SyncStatus {
        guard let location = try database.read({ db in try SyncState.load(db)?.location }) else {
            throw VaultError.syncNotSetUp
        }
        let unauthenticated = keysFiles(layout: try SyncLocation(location).layout(vaultID: keys.vaultID)).unauthenticated
        return try database.read { db in
            guard let state = try SyncState.load(db) else {
                throw VaultError.syncNotSetUp
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
}
