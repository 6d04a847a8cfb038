// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The stored form of a reflection on a period (FORMAT.md §1.15): the period's kind and days, the
/// model and when it wrote, in plaintext; its text and the digest of what it was sent sealed in
/// the field `payload`, and bound to those columns.
struct DigestReflectionRow: SealedRecordRow {
    static let sealed = SealedTable.digestReflection

    private(set) var row: SealedRow

    init(_ reflection: DigestReflection, meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: reflection.id, values: [
            reflection.id.storageText.databaseValue, reflection.period.kind.rawValue.databaseValue,
            reflection.period.first.description.databaseValue, reflection.period.last.description.databaseValue,
            reflection.model.databaseValue, reflection.created.millis.databaseValue, reflection.created.utcOffsetSeconds.databaseValue,
            reflection.version.databaseValue, .null, .null,
        ])
        try row.seal([reflection.payload.utf8Bytes], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try period()
        _ = try row.instant("created_at", offset: "utc_offset")
    }

    /// The stored kind and days, which must be one whole period.
    private func period() throws -> DigestPeriod {
        guard let kind = DigestPeriod.Kind(rawValue: try row.text("period")), let first = CivilDay(iso: try row.text("start_day")),
              let last = CivilDay(iso: try row.text("end_day")) else { throw row.tampered("its period is not a week, a month or a year") }
        let period = DigestPeriod(containing: first, kind: kind)
        guard period.first == first, period.last == last else { throw row.tampered("its days are not one whole \(kind.rawValue)") }
        return period
    }

    func decrypt(keys: VaultKeys) throws -> DigestReflection {
        let payload = try JSONValue(decrypted: try row.openedFields(keys: keys)[0], table: Self.table, id: id)
        guard let text = payload["text"]?.stringValue, let digest = payload["digest_of_input"]?.stringValue else {
            throw row.tampered("its payload has no text")
        }
        let reflection = DigestReflection(period: try period(), model: try row.text("model"),
                                          created: try row.instant("created_at", offset: "utc_offset"), text: text,
                                          digestOfInput: digest, version: Int(try row.integer("version")))
        // A row moved under another period's or model's id would open (the id is bound) but
        // answer for a record it is not.
        guard reflection.id == id else { throw row.tampered("its id is not that of its period and model") }
        return reflection
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }
}
