// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The rows sync reads and writes, for one record: in its table, or parked (FORMAT.md §14.7) —
/// received while a record it refers to (its entry, thread or nodes) is deleted here, and kept
/// as received until that record comes back, so that every device ends with the same records
/// whatever order deletes and edits reached it in.
struct SyncRows {
    let db: Database

    /// The record's stored columns, and whether they are parked.
    func current(_ table: SealedTable, _ id: String) throws -> (values: [DatabaseValue], parked: Bool)? {
        if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(table.selection) FROM \(table.name) WHERE id = ?"), arguments: [id]) {
            return ((0..<table.columns.count).map { row[$0] as DatabaseValue }, false)
        }
        if let data = try Data.fetchOne(db.cachedStatement(sql: "SELECT change FROM sync_parked WHERE tbl = ? AND id = ?"),
                                        arguments: [table.name, id]),
           case .row(let values) = try SyncChange.decode(Array(data)).body {
            return (values, true)
        }
        return nil
    }

    /// The records a row of `table` refers to, as (table, id): it is parked while one is missing.
    /// A parent column that is NULL refers to nothing.
    static func parents(of table: SealedTable, _ values: [DatabaseValue]) -> [(table: SealedTable, id: String)] {
        table.parents.compactMap { parent in String.fromDatabaseValue(values[table.index(of: parent.column)]).map { (parent.table, $0) } }
    }

    /// The tables whose rows refer to `table`'s, and through which columns.
    static func children(of table: SealedTable) -> [(table: SealedTable, column: String)] {
        table.children
    }

    func exists(_ table: SealedTable, _ id: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table.name) WHERE id = ?)"), arguments: [id]) ?? false
    }

    /// The records of `table` in it, under other ids, that agree with `values` on the table's
    /// identity: the same knowledge node (the same `node_key`, which is unique) or relation (the
    /// same from, to, `relation_key` and entry, unique when there is an entry; taken as one when
    /// there is none too, as jv's own writes do) — made by two devices under two ids: one at an
    /// earlier key version, or before ids were derived (FORMAT.md §1.6, §1.7). At most one, but
    /// for relations of no entry written before.
    func rivals(_ table: SealedTable, _ id: String, _ values: [DatabaseValue]) throws -> [String] {
        guard let sql = Self.rivalsQuery(table) else { return [] }
        let arguments = table.identity.map { values[table.index(of: $0)] } + [id.databaseValue]
        return try String.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }

    /// The query of ``rivals(_:_:_:)``, arguments the identity's values then the id; nil for a
    /// table without an identity. `IS` compares NULL as a value (a relation of no entry) and is
    /// `=` on the columns that cannot be NULL, so the unique index answers it.
    static func rivalsQuery(_ table: SealedTable) -> String? {
        guard !table.identity.isEmpty else { return nil }
        return "SELECT id FROM \(table.name) WHERE \(table.identity.map { "\($0) IS ?" }.joined(separator: " AND ")) AND id <> ?"
    }

    /// Stores `values` as the record's revision: in its table when every record it refers to is
    /// there, else parked. Returns whether it went to its table.
    ///
    /// Of records that are the same node or relation under several ids (``rivals(_:_:_:)``), the
    /// one of the smallest id — in byte order of the UUIDs, which is also the order of their
    /// lower-case text — is in the table and the others parked (with their relations: nothing is
    /// lost, nothing shown twice). Every device decides alike whatever order they arrive in.
    @discardableResult
    func write(_ table: SealedTable, _ id: String, _ values: [DatabaseValue]) throws -> Bool {
        let ready = try Self.parents(of: table, values).allSatisfy { try exists($0.table, $0.id) }
        let rivals = ready ? try self.rivals(table, id, values) : []
        let first = rivals.allSatisfy { $0 > id }
        if first {
            for rival in rivals { try displace(table, rival) }
        }
        guard ready, first else {
            try park(table, id, values)
            try removeFromTable(table, id)
            return false
        }
        var values = values
        // A device-local column (which thread is active) keeps this device's value.
        if try exists(table, id) {
            for local in table.deviceLocal {
                let stored = try Int64.fetchOne(db.cachedStatement(sql: "SELECT \(local.column) FROM \(table.name) WHERE id = ?"), arguments: [id])
                values[table.index(of: local.column)] = (stored ?? local.valueOnInsert).databaseValue
            }
            try dropReplacedChunks(table, id, values)
            let arguments = table.columns.indices.filter { $0 != table.idIndex }.map { values[$0] } + [values[table.idIndex]]
            try db.cachedStatement(sql: table.updateSQL).execute(arguments: StatementArguments(arguments))
        } else {
            for local in table.deviceLocal { values[table.index(of: local.column)] = local.valueOnInsert.databaseValue }
            try db.cachedStatement(sql: table.insertSQL).execute(arguments: StatementArguments(values))
        }
        try unpark(table, id)
        return true
    }

    /// When an attachment's content is replaced by another device's version of the same content
    /// (the same blob under another chunk stream), the chunks of the stream replaced go: they
    /// would open under no key the blob then holds. The new stream's are fetched after the packs
    /// are applied (FORMAT.md §14.11).
    private func dropReplacedChunks(_ table: SealedTable, _ id: String, _ values: [DatabaseValue]) throws {
        guard table.name == SealedTable.attachmentBlob.name else { return }
        try db.cachedStatement(sql: """
            DELETE FROM attachment_chunk WHERE stream_id = (SELECT stream_id FROM attachment_blob WHERE id = ? AND stream_id IS NOT ?)
            """).execute(arguments: [id, values[table.index(of: "stream_id")]])
    }

    /// Removes the record from its table (its children there are parked first, not cascaded
    /// away) and from the parked rows.
    func remove(_ table: SealedTable, _ id: String) throws {
        try removeFromTable(table, id)
        try unpark(table, id)
    }

    /// Removes the record's parked revision, if it has one. Looked for first: a `DELETE FROM
    /// sync_parked` compiles the triggers that release an attachment's content and cascade to its
    /// chunks (3 M instructions, once per process), and most records received were never parked.
    private func unpark(_ table: SealedTable, _ id: String) throws {
        let arguments: StatementArguments = [table.name, id]
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sync_parked WHERE tbl = ? AND id = ?)"),
                                arguments: arguments) == true else { return }
        try db.cachedStatement(sql: "DELETE FROM sync_parked WHERE tbl = ? AND id = ?").execute(arguments: arguments)
    }

    /// Deletes the record from its table, if there, its children there parked rather than
    /// cascaded away. Each child is parked before it leaves its table, and a record being parked
    /// is parked before this: an attachment's content is released when no attachment names it,
    /// in its table or parked (`attachment_release`), so in between it would go for good.
    private func removeFromTable(_ table: SealedTable, _ id: String) throws {
        for child in Self.children(of: table) {
            let rows = try Row.fetchAll(db, sql: "SELECT \(child.table.selection) FROM \(child.table.name) WHERE \(child.column) = ?", arguments: [id])
            for row in rows {
                let values = (0..<child.table.columns.count).map { row[$0] as DatabaseValue }
                guard let childID = String.fromDatabaseValue(values[child.table.idIndex]) else { continue }
                try park(child.table, childID, values)
                try db.execute(sql: "DELETE FROM \(child.table.name) WHERE id = ?", arguments: [childID])
            }
        }
        try db.cachedStatement(sql: "DELETE FROM \(table.name) WHERE id = ?").execute(arguments: [id])
    }

    /// Moves the record from its table to the parked ones (its children too).
    private func displace(_ table: SealedTable, _ id: String) throws {
        guard let (values, parked) = try current(table, id), !parked else { return }
        try park(table, id, values)
        try removeFromTable(table, id)
    }

    /// Stores the record in `sync_parked`, with the blob it names when it is an attachment
    /// (`blob_id`, which keeps the content from being released, FORMAT.md §14.6). An upsert, not
    /// `INSERT OR REPLACE`: a replaced row is a deleted one to the triggers (`recursive_triggers`),
    /// and its content would be released before the new row names it again.
    private func park(_ table: SealedTable, _ id: String, _ values: [DatabaseValue]) throws {
        guard let uuid = UUID(storageText: id) else { throw VaultError.corruptDatabase("a record id is malformed") }
        var writer = ByteWriter()
        SyncChange(table: table, id: uuid, stamp: SyncStamp(hlc: 0, device: uuid), base: nil, body: .row(values)).encode(into: &writer)
        let blobID = Self.parents(of: table, values).first { $0.table == .attachmentBlob }?.id
        try db.cachedStatement(sql: """
            INSERT INTO sync_parked (tbl, id, change, blob_id) VALUES (?, ?, ?, ?)
            ON CONFLICT (tbl, id) DO UPDATE SET change = excluded.change, blob_id = excluded.blob_id
            """).execute(arguments: [table.name, id, Data(writer.bytes), blobID])
    }

    /// Re-encrypts every parked record through `reseal` (a rotation of the master key: a parked
    /// record must open under the vault's key when it goes back to its table, and its blind
    /// indexes must be the ones its rivals are compared by).
    func resealParked(_ reseal: (SyncChange) throws -> SyncChange) throws {
        for row in try Row.fetchAll(db, sql: "SELECT change FROM sync_parked") {
            guard let data = row[0] as Data? else { continue }
            let change = try reseal(try SyncChange.decode(Array(data)))
            guard case .row(let values) = change.body else { continue }
            try park(change.table, change.id.storageText, values)
        }
    }

    /// Moves back to their tables the parked records whose every parent is there again, and
    /// that no record of a smaller id holds the place of (``rivals(_:_:_:)``: a node or relation
    /// parked as the same as another comes back only once that one is gone, deleted or changed).
    /// Records are taken in order of table and id: a smaller id first, so that of two parked
    /// rivals the one that stays is the one unparked. (Entries are never parked: they refer to
    /// nothing and have no rivals, so no tag index is to be made here.)
    func unparkReady() throws {
        for row in try Row.fetchAll(db, sql: "SELECT change FROM sync_parked ORDER BY tbl, id") {
            guard let data = row[0] as Data? else { continue }
            let change = try SyncChange.decode(Array(data))
            guard case .row(let values) = change.body else { continue }
            let id = change.id.storageText
            guard try Self.parents(of: change.table, values).allSatisfy({ try exists($0.table, $0.id) }) else { continue }
            guard try rivals(change.table, id, values).allSatisfy({ $0 > id }) else { continue }
            try write(change.table, id, values)
        }
    }
}
