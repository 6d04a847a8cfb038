// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// One stored row of any sealed table, read through its ``SealedTable`` description: the
/// generic form the whole-vault walks use (check, manifest, rekey), and what the typed row of
/// each table (``SealedRecordRow``) is built on.
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

    /// A row about to be written: `values` in `table.columns` order (fields and enc_meta filled by ``seal(_:meta:keys:)``).
    init(_ table: SealedTable, id: UUID, values: [DatabaseValue]) {
        precondition(values.count == table.columns.count)
        self.table = table
        self.id = id
        self.values = values
    }

    var encMeta: Data? { Data.fromDatabaseValue(values[table.encMetaIndex]) }

    func meta() throws -> RecordMeta {
        guard let encMeta, let meta = RecordMeta(encoded: encMeta) else { throw tampered("enc_meta is malformed") }
        return meta
    }

    /// The associated-data binding of this row's fields (FORMAT.md §4.4).
    func binding(meta: RecordMeta) throws -> RecordBinding {
        RecordBinding(table: table.name, id: id, meta: meta,
                      columns: try table.boundColumns(id: id) { values[$0] })
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

    // Typed columns: a stored value of another type (the file was edited) is tampering, never a trap.

    func integer(_ column: String) throws -> Int64 {
        try typed(column) { if case .int64(let integer) = $0 { integer } else { nil } }
    }

    func text(_ column: String) throws -> String {
        try typed(column) { if case .string(let text) = $0 { text } else { nil } }
    }

    func blob(_ column: String) throws -> Data {
        try typed(column) { if case .blob(let data) = $0 { data } else { nil } }
    }

    /// An id column; text that is not a UUID is tampering too.
    func uuid(_ column: String) throws -> UUID {
        try RecordID.parse(try text(column), table: table.name)
    }

    /// A column that may be NULL, read by `read` (one of the typed readers above) otherwise.
    func optional<Value>(_ column: String, _ read: (String) throws -> Value) throws -> Value? {
        self[column].isNull ? nil : try read(column)
    }

    /// A moment stored as milliseconds and, where given, the UTC offset in seconds of another
    /// column, checked to be in range before any arithmetic on it.
    func instant(_ millis: String, offset: String? = nil) throws -> Instant {
        try Instant.stored(millis: try integer(millis), utcOffsetSeconds: try offset.map { Int(try integer($0)) } ?? 0,
                           table: table.name, id: id)
    }

    private func typed<Value>(_ column: String, _ read: (DatabaseValue.Storage) -> Value?) throws -> Value {
        guard let value = read(self[column].storage) else { throw table.wrongType(column, id: id) }
        return value
    }

    /// Rewrites the stored row with the same id — or, given `previousID`, the row stored under
    /// that id, which takes this row's id (a knowledge node's or relation's id is derived from
    /// columns that can change: FORMAT.md §1.6, §1.7).
    func update(_ db: Database, previousID: UUID? = nil) throws {
        if let previousID, previousID != id {
            try db.cachedStatement(sql: Self.updateUnderNewIDSQL[table.name] ?? Self.updateUnderNewID(table))
                .execute(arguments: StatementArguments(values + [previousID.storageText.databaseValue]))
            return
        }
        try db.cachedStatement(sql: table.updateSQL).execute(arguments: table.updateArguments(values))
    }

    /// `UPDATE` of every column of the row stored under another id, arguments in
    /// ``SealedTable/columns`` order and then that id; computed once per table.
    private static let updateUnderNewIDSQL = Dictionary(uniqueKeysWithValues: SealedTable.all.map { ($0.name, updateUnderNewID($0)) })

    private static func updateUnderNewID(_ table: SealedTable) -> String {
        "UPDATE \(table.name) SET \(table.columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"
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

/// A typed row of one sealed table: its ``SealedRow`` and what the table's records mean — how a
/// record is sealed into a row (each type's own initialiser) and read back (`decrypt`). What
/// every such row shares, reading, writing and typed columns, is written once, below and in
/// ``SealedRow``.
protocol SealedRecordRow: Sendable {
    /// The description of the table the rows are of.
    static var sealed: SealedTable { get }
    var row: SealedRow { get }
    /// A stored row; a column of the wrong type, or a moment out of range, is tampering.
    init(_ row: SealedRow) throws
    /// Decrypts the row and checks what its record must be (a role that exists, a strength in
    /// 0…1, …): what `jv check` holds every row to.
    func verify(keys: VaultKeys) throws
}

extension SealedRecordRow {
    static var table: String { sealed.name }
    static var selection: String { sealed.selection }

    /// Reads a row selected with ``selection``.
    init(row: Row) throws {
        try self.init(SealedRow(Self.sealed, row: row))
    }

    /// The rows where `condition` holds, in `order`.
    static func fetchAll(_ db: Database, where condition: String = "1", arguments: StatementArguments = [],
                         orderedBy order: String = "id") throws -> [Self] {
        let rows = try Row.fetchCursor(db, sql: "SELECT \(selection) FROM \(table) WHERE \(condition) ORDER BY \(order)",
                                       arguments: arguments)
        var result: [Self] = []
        while let row = try rows.next() { result.append(try Self(row: row)) }
        return result
    }

    /// Calls `body` with each row of these stored ids (``RowsByID``), in no particular order.
    static func forEach(ids: [String], _ db: Database, _ body: (Self) throws -> Void) throws {
        try RowsByID.forEachCursor(table: table, selection: selection, ids: ids, db) { rows in
            while let row = try rows.next() { try body(try Self(row: row)) }
        }
    }

    static func fetchOne(id: UUID, _ db: Database) throws -> Self? {
        try Row.fetchOne(db, sql: "SELECT \(selection) FROM \(table) WHERE id = ?", arguments: [id.storageText]).map(Self.init(row:))
    }

    var id: UUID { row.id }
    var encMeta: Data? { row.encMeta }

    func insert(_ db: Database) throws { try row.insert(db) }
    func update(_ db: Database) throws { try row.update(db) }
}

extension SealedTable {
    /// The plaintext columns bound into a row's associated data (FORMAT.md §4.4), the column at
    /// each position of ``columns`` being `value(position)`; one of the wrong type is tampering.
    func boundColumns(id: UUID, _ value: (Int) -> DatabaseValue) throws -> [RecordBinding.Value] {
        try boundIndices.map { index, kind in
            let stored = value(index)
            if stored.isNull { return .null }
            switch (kind, stored.storage) {
            case (.integer, .int64(let integer)): return .integer(integer)
            case (.text, .string(let text)): return .text(text)
            case (.hexText, .blob(let data)): return .text(data.lowerHex)
            default: throw wrongType(columns[index], id: id)
            }
        }
    }

    func wrongType(_ column: String, id: UUID) -> VaultError {
        .wrongType(table: name, id: id.storageText, column: column)
    }

    /// The arguments of ``updateSQL`` for a row whose columns are `values`.
    func updateArguments(_ values: [DatabaseValue]) -> StatementArguments {
        StatementArguments(values.indices.lazy.filter { $0 != idIndex }.map { values[$0] } + [values[idIndex]])
    }
}
