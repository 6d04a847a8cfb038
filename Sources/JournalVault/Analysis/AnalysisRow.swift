// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of an analysis (FORMAT.md §1.5): the entry it is of, the model and when it
/// ran, in plaintext; what the analyser said — sentiment, themes, entities and the rest — sealed
/// in the field `payload`, and bound to those columns.
struct AnalysisRow: SealedRecordRow {
    static let sealed = SealedTable.analysis

    private(set) var row: SealedRow

    init(_ analysis: Analysis, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: analysis.id, values: [
            analysis.id.storageText.databaseValue, analysis.entryID.storageText.databaseValue, analysis.model.databaseValue,
            analysis.processedAt.millis.databaseValue, analysis.processedAt.utcOffsetSeconds.databaseValue,
            analysis.version.databaseValue, .null, .null,
        ])
        try row.seal([analysis.payload.utf8Bytes], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try row.instant("processed_at", offset: "utc_offset")
    }

    func decrypt(keys: VaultKeys) throws -> Analysis {
        let payload = try JSONValue(decrypted: try row.openedFields(keys: keys)[0], table: Self.table, id: id)
        return Analysis(id: id, entryID: try row.uuid("entry_id"), model: try row.text("model"),
                        processedAt: try row.instant("processed_at", offset: "utc_offset"),
                        sentiment: payload["sentiment"]?.stringValue,
                        themes: payload["themes"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                        entities: payload["entities"] ?? .null, extra: payload["extra"] ?? .null, version: Int(try row.integer("version")))
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }
}
