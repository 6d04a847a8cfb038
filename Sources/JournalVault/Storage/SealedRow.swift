// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// One stored row of any sealed table, read through its ``SealedTable`` description: the
/// generic form the whole-vault walks use (check, manifest, rekey). The feature code reads its
/// own typed rows instead, which are faster to turn into records.
struct SealedRow: Sendable {
    let table: SealedTable
    let id: UUID
    /// Every column, in ``SealedTable/columns`` order.
    var values: [DatabaseValue]

    /// Reads a row selected with `table.selection`; a malformed id or column is tampering.
    init(_ table: SealedTable, row: Row) throws {
        self.table = table
        values = (0..<table.columns.count).map { row[$0] as DatabaseValue }
        guard let text = String.fromDatabaseValue(values[table.idIndex]) else {
            throw VaultError.tamperedRecord(table: table.name, id: "?", detail: "the id is not text")
        }
        id = try RecordID.parse(text, table: table.name)
    }

    var encMeta: Data? { Data.fromDatabaseValue(values[table.encMetaIndex]) }

    func meta() throws -> RecordMeta {
        guard let encMeta, let meta = RecordMeta(encoded: encMeta) else { throw tampered("enc_meta is malformed") }
        return meta
    }

    /// The associated-data binding of this row's fields (FORMAT.md §4.4).
    func binding(meta: RecordMeta) throws -> RecordBinding {
        RecordBinding(table: table.name, id: id, meta: meta, columns: try table.boundIndices.map { index, kind in
            let value = values[index]
            if value.isNull { return .null }
            switch (kind, value.storage) {
            case (.integer, .int64(let integer)): return .integer(integer)
            case (.text, .string(let text)): return .text(text)
            case (.hexText, .blob(let data)): return .text(data.lowerHex)
            default: throw tampered("column \(table.columns[index]) holds a value of the wrong type")
            }
        })
    }

    /// Authenticates and decrypts every field; each plaintext is handed to `use` in temporary
    /// memory that is wiped afterwards.
    func open(keys: VaultKeys, _ use: (Int, UnsafeBufferPointer<UInt8>) throws -> Void = { _, _ in }) throws {
        let boxes = try table.fieldIndices.enumerated().map { position, index in
            guard let box = Data.fromDatabaseValue(values[index]) else { throw tampered("field \(table.fields[position]) is not a blob") }
            return (name: table.fields[position], box: box)
        }
        try keys.records.open(boxes, binding: try binding(meta: try meta()), use)
    }

    /// Opens every field into ordinary arrays (rekey re-seals them at once).
    func openedFields(keys: VaultKeys) throws -> [[UInt8]] {
        var plaintexts: [[UInt8]] = []
        try open(keys: keys) { _, plaintext in plaintexts.append(Array(plaintext)) }
        return plaintexts
    }

    /// Seals `plaintexts` as this row's fields under `meta` with `keys`, after the caller has set
    /// the plaintext columns (so the binding covers their new values).
    mutating func seal(_ plaintexts: [[UInt8]], meta: RecordMeta, keys: VaultKeys) throws {
        values[table.encMetaIndex] = meta.encoded.databaseValue
        let sealed = try keys.records.seal(Array(zip(table.fields, plaintexts)).map { (name: $0.0, plaintext: $0.1) },
                                           binding: try binding(meta: meta))
        for (index, box) in zip(table.fieldIndices, sealed) { values[index] = box.databaseValue }
    }

    func set(_ column: String, _ value: DatabaseValueConvertible?) -> SealedRow {
        var copy = self
        copy.values[table.index(of: column)] = value?.databaseValue ?? .null
        return copy
    }

    subscript(column: String) -> DatabaseValue { values[table.index(of: column)] }

    /// Rewrites the stored row with the same id — or, given `previousID`, the row stored under
    /// that id, which takes this row's id (a knowledge node's or relation's id is derived from
    /// columns that can change: FORMAT.md §1.6, §1.7).
    func update(_ db: Database, previousID: UUID? = nil) throws {
        if let previousID, previousID != id {
            let assignments = table.columns.map { "\($0) = ?" }.joined(separator: ", ")
            try db.cachedStatement(sql: "UPDATE \(table.name) SET \(assignments) WHERE id = ?")
                .execute(arguments: StatementArguments(values + [previousID.storageText.databaseValue]))
            return
        }
        let assignments = table.columns.filter { $0 != "id" }.map { "\($0) = ?" }.joined(separator: ", ")
        let arguments = table.columns.indices.filter { $0 != table.idIndex }.map { values[$0] } + [values[table.idIndex]]
        try db.cachedStatement(sql: "UPDATE \(table.name) SET \(assignments) WHERE id = ?").execute(arguments: StatementArguments(arguments))
    }

    /// Every row of `table`, a batch at a time in rowid order, each with its rowid: for the walks
    /// that rewrite the rows they read (rekey, deriving graph ids) without holding a whole table in
    /// memory. Rewriting a row, even under another id, keeps its rowid, so no row is met twice.
    static func forEachBatch(of table: SealedTable, _ db: Database, size: Int = 2048,
                             _ body: ([(row: SealedRow, rowID: DatabaseValue)]) throws -> Void) throws {
        var lastRowID = Int64.min
        while true {
            let rows = try Row.fetchAll(db, sql: "SELECT \(table.selection), rowid FROM \(table.name) WHERE rowid > ? ORDER BY rowid LIMIT ?",
                                        arguments: [lastRowID, size])
            guard let last = rows.last else { return }
            lastRowID = try last.stored(table.columns.count, table: table.name)
            try body(try rows.map { (try SealedRow(table, row: $0), $0[table.columns.count] as DatabaseValue) })
        }
    }

    func insert(_ db: Database) throws {
        try db.cachedStatement(sql: table.insertSQL).execute(arguments: StatementArguments(values))
    }

    func tampered(_ detail: String) -> VaultError {
        VaultError.tamperedRecord(table: table.name, id: id.storageText, detail: detail)
    }
}
