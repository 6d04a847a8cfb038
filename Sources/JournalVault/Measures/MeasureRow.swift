// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// The stored form of an entry's measures (FORMAT.md §1.14): the entry it belongs to, in
/// plaintext; every field's name and value sealed together in `fields`, as the canonical JSON
/// of ``Measures/json``, and bound to the entry's id.
struct MeasureRow: SealedRecordRow {
    static let sealed = SealedTable.measure

    private(set) var row: SealedRow

    init(_ measures: Measures, entryID: UUID, id: UUID, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: id, values: [id.storageText.databaseValue, entryID.storageText.databaseValue, .null, .null])
        try row.seal([Array(measures.json.serialized().utf8)], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try row.uuid("entry_id")
    }

    func entryID() throws -> UUID { try row.uuid("entry_id") }

    func decrypt(keys: VaultKeys) throws -> Measures {
        guard let measures = Measures(json: try JSONValue(decrypted: try row.openedFields(keys: keys)[0], table: Self.table, id: id)) else {
            throw row.tampered("the decrypted fields are not measures of the documented form")
        }
        return measures
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }

    /// The id of an entry's measures: ``ConflictCopy/id(domain:table:id:syncKey:version:)`` of
    /// `"JVLT-measure"` and the entry (FORMAT.md §1.14), so every device that gives an entry its
    /// first measures writes the same record, and sync merges the two as edits of one.
    static func id(entryID: UUID, syncKey: SecureBytes) -> UUID {
        ConflictCopy.id(domain: "JVLT-measure", table: .measure, id: entryID, syncKey: syncKey) { _ in }
    }
}
