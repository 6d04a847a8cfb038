// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// This device's sync state in the vault (schema 6, FORMAT.md §14.6): never shipped.
struct SyncState: Sendable {
    var device: UUID
    var location: String
    /// This device's newest pack.
    var lastPack: UInt64
    var clock: HybridClock
    var keysDigest: Data?

    static func load(_ db: Database) throws -> SyncState? {
        guard let row = try Row.fetchOne(db, sql: "SELECT device_id, location, last_pack, clock, keys_digest FROM sync_device") else { return nil }
        guard let device = (row[0] as Data?), device.count == 16, let location = row[1] as String?,
              let lastPack = row[2] as Int64?, let clock = row[3] as Int64? else {
            throw VaultError.corruptDatabase("the sync state is malformed")
        }
        return SyncState(device: UUID(bytes: Array(device)), location: location, lastPack: UInt64(max(0, lastPack)),
                         clock: HybridClock(last: UInt64(max(0, clock))), keysDigest: row[4])
    }

    func save(_ db: Database) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO sync_device (singleton, device_id, location, last_pack, clock, keys_digest) VALUES (1, ?, ?, ?, ?, ?)
            """, arguments: [Data(device.bytes), location, Int64(lastPack), Int64(clock.last), keysDigest])
    }

    /// Packs of every other device applied here (1...n each).
    static func applied(_ db: Database) throws -> [UUID: UInt64] {
        var applied: [UUID: UInt64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT device_id, applied FROM sync_peer") {
            guard let device = row[0] as Data?, device.count == 16, let count = row[1] as Int64? else {
                throw VaultError.corruptDatabase("the sync state is malformed")
            }
            applied[UUID(bytes: Array(device))] = UInt64(max(0, count))
        }
        return applied
    }

    static func setApplied(_ number: UInt64, of device: UUID, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO sync_peer (device_id, applied) VALUES (?1, ?2) ON CONFLICT (device_id) DO UPDATE SET applied = ?2",
                       arguments: [Data(device.bytes), Int64(number)])
    }

    /// For every device, the greatest clock among the stamps of its revisions held here: other
    /// devices' as applied, and this device's own clock for its own.
    static func clocks(_ db: Database) throws -> [UUID: UInt64] {
        var clocks: [UUID: UInt64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT device_id, clock FROM sync_peer") {
            guard let device = row[0] as Data?, device.count == 16, let clock = row[1] as Int64? else {
                throw VaultError.corruptDatabase("the sync state is malformed")
            }
            clocks[UUID(bytes: Array(device))] = UInt64(bitPattern: clock)
        }
        if let state = try load(db) { clocks[state.device] = state.clock.last }
        return clocks
    }

    /// Raises the clock held of `device`'s revisions to `clock`.
    static func raiseClock(_ clock: UInt64, of device: UUID, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO sync_peer (device_id, applied, clock) VALUES (?1, 0, ?2)
            ON CONFLICT (device_id) DO UPDATE SET clock = max(clock, ?2)
            """, arguments: [Data(device.bytes), Int64(bitPattern: clock)])
    }

    /// Whether the record has changed here since it was last sent.
    static func isPending(_ table: SealedTable, _ id: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = ? AND id = ?)"),
                          arguments: [table.name, id]) ?? false
    }

    static func pendingCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_pending") ?? 0
    }
}

/// What this device knows of one record's revision: its stamp, whether it is a tombstone, and
/// its rank. Of two concurrent revisions the one of greater rank wins (the greater stamp on a
/// tie). An edit ranks as its stamp; a tombstone as the revision it deleted, so a delete beats
/// every edit that revision beat, and an edit made concurrently with it, from that revision or
/// later, beats the delete.
struct KnownRevision: Equatable, Sendable {
    let stamp: SyncStamp
    let deleted: Bool
    let rank: SyncStamp

    init(stamp: SyncStamp, deleted: Bool, rank: SyncStamp) {
        self.stamp = stamp
        self.deleted = deleted
        self.rank = rank
    }

    /// The revision `change` makes.
    init(of change: SyncChange) {
        self.init(stamp: change.stamp, deleted: change.isTombstone, rank: change.isTombstone ? change.base ?? .zero : change.stamp)
    }

    /// Whether this revision wins against `other`, made concurrently.
    func beats(_ other: KnownRevision) -> Bool {
        rank != other.rank ? rank > other.rank : stamp > other.stamp
    }

    static func load(_ table: SealedTable, _ id: String, _ db: Database) throws -> KnownRevision? {
        let sql = "SELECT hlc, device, deleted, rank_hlc, rank_device FROM sync_record WHERE tbl = ? AND id = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [table.name, id]) else { return nil }
        guard let stamp = SyncStamp(row, hlc: 0, device: 1), let rank = SyncStamp(row, hlc: 3, device: 4), let deleted = row[2] as Int64? else {
            throw VaultError.corruptDatabase("the sync state is malformed")
        }
        return KnownRevision(stamp: stamp, deleted: deleted != 0, rank: rank)
    }

    func save(_ table: SealedTable, _ id: String, _ db: Database) throws {
        let sql = "INSERT OR REPLACE INTO sync_record (tbl, id, hlc, device, deleted, rank_hlc, rank_device) VALUES (?, ?, ?, ?, ?, ?, ?)"
        try db.cachedStatement(sql: sql).execute(arguments: [
            table.name, id, Int64(bitPattern: stamp.hlc), Data(stamp.device.bytes), deleted ? 1 : 0,
            Int64(bitPattern: rank.hlc), Data(rank.device.bytes),
        ])
    }
}
