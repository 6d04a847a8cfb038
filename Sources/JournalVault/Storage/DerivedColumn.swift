// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// A row's derived data (``SealedTable/Derived``), computed from its opened fields under one key.
enum DerivedValue: Sendable, Equatable {
    /// The value of one of the row's own columns.
    case column(String, Data)
    /// The blind indexes the rows of a derived table hold for the row, beside its row key.
    case rows(Set<Data>)
}

extension SealedTable.Derived {
    /// The table whose rows are derived, and what `jv check` calls its rows; nil where the
    /// derived value is a column of the row itself.
    var derivedTable: (name: String, label: String)? {
        if case .tagIndex(let table) = self { (table, "tag index rows") } else { nil }
    }

    /// Why a stored value that differs from the one computed is tampering (a ``VaultError/tamperedRecord(table:id:detail:)`` detail).
    var mismatch: String {
        switch self {
        case .tagIndex: "its tag index does not match its tags"
        case .nodeKey: "its name index does not match its name"
        case .relationKey: "its type index does not match its type"
        case .contentTag: "its content tag does not match its content's digest"
        }
    }

    /// The derived data of `row` under `keys`, from its fields opened in `table.fields` order.
    func value(of row: SealedRow, plaintexts: [[UInt8]], keys: VaultKeys) throws -> DerivedValue {
        func field(_ name: String) -> [UInt8] {
            guard let index = row.table.fields.firstIndex(of: name) else { preconditionFailure("\(row.table.name) has no field \(name)") }
            return plaintexts[index]
        }
        switch self {
        case .tagIndex:
            return .rows(try UnlockedVault.entryTagIndexes(of: row, plaintexts: plaintexts, keys: keys))
        case .nodeKey(let column):
            guard let type = String.fromDatabaseValue(row["type"]) else { throw row.tampered("its type is not text") }
            let name = try String(decrypted: field("name"), table: row.table.name, id: row.id)
            return .column(column, UnlockedVault.nodeKey(storedType: type, name: name, keys: keys))
        case .relationKey(let column):
            guard let type = try JSONValue(decrypted: field("relation"), table: row.table.name, id: row.id)["type"]?.stringValue else {
                throw row.tampered("the sealed relation has no type")
            }
            return .column(column, UnlockedVault.relationKey(type, keys: keys))
        case .contentTag(let column):
            let details = try AttachmentDetails(decrypted: field("details"), table: row.table.name, id: row.id)
            return .column(column, AttachmentBlobRow.contentTag(digest: details.digest, keys: keys))
        }
    }

    /// Stores `indexes`, a ``DerivedValue/rows(_:)`` value of this kind, for the row whose row key is `rowKey`.
    func insert(_ indexes: Set<Data>, rowKey: Int64, _ db: Database) throws {
        guard case .tagIndex = self else { preconditionFailure("\(self) derives a column, not rows") }
        try UnlockedVault.insertTagIndexes(indexes, entrySeq: rowKey, db)
    }

    /// Removes the rows of this kind stored for the row whose row key is `rowKey`.
    func deleteRows(ofRowKey rowKey: Int64, _ db: Database) throws {
        guard case .tagIndex(let table) = self else { preconditionFailure("\(self) derives a column, not rows") }
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE entry_seq = ?").execute(arguments: [rowKey])
    }
}

extension SealedTable {
    /// Every table derived from the rows of a sealed table (FORMAT.md §5), in ``all``'s order.
    static let derivedTables: [(name: String, label: String)] = all.flatMap { $0.derived.compactMap(\.derivedTable) }

    /// What `jv check` and the manifest call the rows of the table `name`, sealed or derived.
    static func rowsLabel(of name: String) -> String {
        if name == ManifestedTable.attachmentChunk.name { return "attachment chunks" }
        return derivedTables.first { $0.name == name }?.label ?? "\(name) records"
    }
}
