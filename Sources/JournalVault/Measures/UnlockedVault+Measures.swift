// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// The measures of the entry `entryID`: empty when it has none.
    ///
    /// ```swift
    /// let measures = try journal.measures(of: entry.id)
    /// measures["mood"]?.number  // 7
    /// ```
    public func measures(of entryID: UUID) throws -> Measures {
        try database.read { db in
            try requireEntry(entryID, db)
            return try storedMeasures(of: entryID, db)?.decrypt(keys: keys) ?? Measures()
        }
    }

    /// The measures of the entries `query` selects by its plaintext columns (dates, days, star,
    /// tags), decrypted, by entry id; an entry without measures is not in it.
    ///
    /// ```swift
    /// let moods = try journal.measures(matching: query).compactMapValues { $0["mood"]?.number }
    /// ```
    public func measures(matching query: EntryQuery = EntryQuery()) throws -> [UUID: Measures] {
        let condition = try condition(of: query)
        return try database.read { db in
            var result: [UUID: Measures] = [:]
            for row in try MeasureRow.fetchAll(db, where: "entry_id IN (SELECT id FROM entry WHERE \(condition.sql))", arguments: condition.arguments) {
                result[try row.entryID()] = try row.decrypt(keys: keys)
            }
            return result
        }
    }

    /// Removes the fields named in `removing` (normalised already), then sets those of
    /// `setting`, in the measures of the entry `entryID`, in the caller's transaction; writes
    /// only when that changes them.
    func reviseMeasures(of entryID: UUID, setting: Measures, removing: [String], _ db: Database) throws {
        guard !setting.isEmpty || !removing.isEmpty else { return }
        let stored = try storedMeasures(of: entryID, db)
        let current = try stored?.decrypt(keys: keys) ?? Measures()
        var measures = current
        for name in removing { try measures.remove(name) }
        for (name, value) in setting.sorted { try measures.set(name, to: value) }
        if measures != current { try storeMeasures(measures, of: entryID, replacing: stored, db) }
    }

    /// Writes `measures` as the entry's, in the caller's transaction: `stored` rewritten under
    /// its next revision, or a new row under the id derived from the entry's
    /// (``MeasureRow/id(entryID:syncKey:)``); no measures delete the row.
    func storeMeasures(_ measures: Measures, of entryID: UUID, replacing stored: MeasureRow?, _ db: Database) throws {
        guard !measures.isEmpty else {
            if let stored { try db.execute(sql: "DELETE FROM measure WHERE id = ?", arguments: [stored.id.storageText]) }
            return
        }
        if let stored {
            try MeasureRow(measures, entryID: entryID, id: stored.id, meta: .rewriting(stored.encMeta, keyVersion: keys.keyVersion), keys: keys).update(db)
        } else {
            try MeasureRow(measures, entryID: entryID, id: MeasureRow.id(entryID: entryID, syncKey: keys.syncKey),
                           meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
        }
    }

    /// The stored measures row of the entry `entryID`, if it has one.
    func storedMeasures(of entryID: UUID, _ db: Database) throws -> MeasureRow? {
        try MeasureRow.fetchAll(db, where: "entry_id = ?", arguments: [entryID.storageText]).first
    }
}
