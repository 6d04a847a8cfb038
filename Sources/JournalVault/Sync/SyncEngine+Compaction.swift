// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Compaction (FORMAT.md §14.9): a snapshot of the whole vault as a device holds it, from which
/// a new device starts instead of every pack; acks, by which each device learns which of its
/// own packs every other has applied; and the removal of a device's own packs once every
/// device has applied them and every device's newest snapshot holds what they said.
extension SyncEngine {
    /// Writes `acks.jva` when what this device has applied changed since it was written.
    /// Returns whether it was written.
    func publishAcks(layout: SyncLayout, device: UUID) throws -> Bool {
        let applied = try database.read { db in try SyncState.applied(db) }
        let acks = SyncAcks(vaultID: keys.vaultID, device: device, keyVersion: keys.keyVersion, applied: applied)
        let path = layout.acksFile(of: device)
        if let data = SyncLocationFile.contents(path),
           let written = try? SyncAcks(parsing: Array(data), keys: { try self.keys(forPacksOf: $0, layout: layout) }), written == acks { return false }
        try SyncLocation.folder(SyncLayout.folderName(of: device), in: layout)
        try PrivateFiles.writeWhole(acks.encoded(syncKey: keys.syncKey), to: path, replace: true)
        return true
    }

    /// Writes `snap-N.jvp`, N being this device's newest pack: every record as this device
    /// holds it (tombstones too, so a late concurrent edit is decided as everywhere else), under
    /// the stamp of the revision held, with what it has applied of every other device. Every
    /// change made here must have been sent first. Returns N, or nil when it has sent nothing.
    func writeSnapshot(layout: SyncLayout, device: UUID) throws -> UInt64? {
        var written: UInt64?
        try database.read { db in
            guard let state = try SyncState.load(db), state.lastPack > 0, try SyncState.pendingCount(db) == 0 else { return }
            let path = layout.file(.snapshot, of: device, number: state.lastPack)
            guard !FileManager.default.fileExists(atPath: path) else { return }
            try SyncLocation.folder(SyncLayout.folderName(of: device), in: layout)
            let (temporary, handle) = try PrivateFiles.createLockedTemporary(beside: path, purpose: .writing)
            do {
                let header = SyncPack.Header(vaultID: keys.vaultID, device: device, number: state.lastPack, keyVersion: keys.keyVersion,
                                             createdAt: Instant.now().millis, dependencies: try SyncState.applied(db),
                                             clocks: try SyncState.clocks(db))
                let writer = try SyncPack.Writer(header: header, syncKey: keys.syncKey, kind: .snapshot, to: handle)
                try Self.everyRecord(db) { try writer.append($0) }
                try writer.finish()
                try handle.synchronize()
                try handle.close()
                try PrivateFiles.commit(temporary, to: path, replace: false)
            } catch {
                try? handle.close()
                unlink(temporary)
                throw error
            }
            written = state.lastPack
        }
        return written
    }

    /// Every record this device knows, as the change that would bring an empty vault to it.
    private static func everyRecord(_ db: Database, _ body: (SyncChange) throws -> Void) throws {
        for table in SealedTable.all {
            let columns = table.columns.map { "t.\($0)" }.joined(separator: ", ")
            let rows = try Row.fetchCursor(db, sql: """
                SELECT r.hlc, r.device, \(columns) FROM sync_record r JOIN \(table.name) t ON t.id = r.id
                WHERE r.tbl = ? AND r.deleted = 0
                """, arguments: [table.name])
            while let row = try rows.next() {
                guard let stamp = SyncStamp(row, hlc: 0, device: 1), let id = UUID(storageText: row[2 + table.idIndex]) else { continue }
                try body(SyncChange(table: table, id: id, stamp: stamp, base: nil, body: .row((0..<table.columns.count).map { row[2 + $0] })))
            }
        }
        let parked = try Row.fetchCursor(db, sql: """
            SELECT r.hlc, r.device, p.change FROM sync_parked p JOIN sync_record r ON r.tbl = p.tbl AND r.id = p.id WHERE r.deleted = 0
            """)
        while let row = try parked.next() {
            guard let stamp = SyncStamp(row, hlc: 0, device: 1), let data = row[2] as Data? else { continue }
            let change = try SyncChange.decode(Array(data))
            try body(SyncChange(table: change.table, id: change.id, stamp: stamp, base: nil, body: change.body))
        }
        let tombstones = try Row.fetchCursor(db, sql: "SELECT tbl, id, hlc, device, rank_hlc, rank_device FROM sync_record WHERE deleted = 1")
        while let row = try tombstones.next() {
            guard let name = row[0] as String?, let table = SealedTable.named(name),
                  let id = UUID(storageText: row[1]), let stamp = SyncStamp(row, hlc: 2, device: 3), let rank = SyncStamp(row, hlc: 4, device: 5) else { continue }
            // A tombstone ranks as its base: the revision it deleted.
            try body(SyncChange(table: table, id: id, stamp: stamp, base: rank, body: .tombstone))
        }
    }

    typealias Snapshot = (device: UUID, number: UInt64, covers: [UUID: UInt64], createdAt: Int64, path: String)

    /// `device`'s newest snapshot in the location numbered above `after`, authenticated (its
    /// header is what its device wrote): its number, what it holds of each device, its path.
    func newestSnapshot(of device: UUID, layout: SyncLayout, after: UInt64 = 0) -> Snapshot? {
        for number in layout.numbers(of: .snapshot, device: device).filter({ $0 > after }).sorted(by: >) {
            let path = layout.file(.snapshot, of: device, number: number)
            guard let reader = try? SyncPack.open(path, kind: .snapshot, expected: (keys.vaultID, device, number), syncKey: {
                try self.keys(forPacksOf: $0, layout: layout).syncKey
            }) else { continue }
            var covers = reader.header.dependencies
            covers[device] = number
            return (device, number, covers, reader.header.createdAt, path)
        }
        return nil
    }

    /// Removes this device's own packs that its newest snapshot holds and every other device
    /// (each with a keys file in the location) has applied, and its own older snapshots. A
    /// device the removal did not know of (one that joined meanwhile) finds the packs it lacks
    /// in that snapshot (``recoverFromSnapshot(of:layout:after:progress:)``). Returns the names
    /// removed, relative to its folder.
    func removeCompacted(layout: SyncLayout, device: UUID) throws -> [String] {
        let others = keysFiles(layout: layout).authentic.filter { $0 != device }
        let acked = others.map { acks(of: $0, layout: layout)?.applied[device] ?? 0 }.min() ?? UInt64.max
        guard let own = newestSnapshot(of: device, layout: layout) else { return [] }
        let limit = min(acked, own.number)
        let folder = try SyncLocation.folder(SyncLayout.folderName(of: device), in: layout, create: false)
        let packs = layout.numbers(of: .pack, device: device).filter { $0 <= limit }.map { SyncLayout.fileName(.pack, $0) }
        let olderSnapshots = layout.numbers(of: .snapshot, device: device).filter { $0 < own.number }.map { SyncLayout.fileName(.snapshot, $0) }
        for name in olderSnapshots + packs { unlink("\(folder)/\(name)") }
        return olderSnapshots + packs
    }

    /// `other`'s acks file, authenticated and naming this vault and that device; nil when it has none.
    func acks(of other: UUID, layout: SyncLayout) -> SyncAcks? {
        guard let data = SyncLocationFile.contents(layout.acksFile(of: other)),
              let acks = try? SyncAcks(parsing: Array(data), keys: { try self.keys(forPacksOf: $0, layout: layout) }),
              acks.vaultID == keys.vaultID, acks.device == other else { return nil }
        return acks
    }

    /// The devices of the location's keys files (FORMAT.md §14.5): those whose file authenticates
    /// under a key at hand (this vault's, or another version's through the rotation files) and
    /// names the device it is named by, and the others. A file anyone could have put there holds
    /// no compaction back.
    func keysFiles(layout: SyncLayout) -> (authentic: [UUID], unauthenticated: [UUID]) {
        var result: (authentic: [UUID], unauthenticated: [UUID]) = ([], [])
        for device in layout.keysFileDevices() {
            let file = SyncLocationFile.contents(layout.keysFile(of: device)).flatMap { try? SyncKeysFile(parsing: Array($0)) }
            if let file, file.device == device, (try? file.authenticates(with: keys(anyVersion: file.keyVersion, layout: layout))) == true {
                result.authentic.append(device)
            } else {
                result.unauthenticated.append(device)
            }
        }
        return result
    }

    /// When `device`'s pack after `applied` is gone (removed by compaction before this device
    /// acknowledged it), applies that device's newest snapshot if it holds that pack. Returns
    /// whether it did.
    func recoverFromSnapshot(of device: UUID, layout: SyncLayout, after applied: UInt64, progress: ((SyncProgress) -> Void)?) throws -> Bool {
        guard let snapshot = newestSnapshot(of: device, layout: layout, after: applied) else { return false }
        _ = try applySnapshot(snapshot, layout: layout, progress: progress)
        return true
    }

    private func applySnapshot(_ snapshot: Snapshot, layout: SyncLayout, progress: ((SyncProgress) -> Void)?) throws -> MergeTally {
        var packKeys = keys
        let reader = try SyncPack.open(snapshot.path, kind: .snapshot, expected: (keys.vaultID, snapshot.device, snapshot.number)) { version in
            packKeys = try self.keys(forPacksOf: version, layout: layout)
            return packKeys.syncKey
        }
        let total = (try? FileManager.default.attributesOfItem(atPath: snapshot.path)[.size] as? Int) ?? 0
        return try apply(reader, keys: packKeys, applied: snapshot.covers) { read in
            progress?(SyncProgress(phase: .receiving, done: read, total: total))
        }
    }

    /// A new device's start: the newest snapshot there is, applied in one transaction with
    /// what it holds of every device marked applied, so that only later packs remain to apply.
    /// Returns the changes it held; nil when the location has no snapshot.
    func startFromSnapshot(layout: SyncLayout, progress: ((SyncProgress) -> Void)?) throws -> MergeTally? {
        // Of the devices' newest snapshots, the one that holds the most.
        let newest = layout.devices().compactMap { newestSnapshot(of: $0, layout: layout) }
        guard let best = newest.max(by: { $0.covers.values.reduce(0, +) < $1.covers.values.reduce(0, +) }) else { return nil }
        return try applySnapshot(best, layout: layout, progress: progress)
    }
}
