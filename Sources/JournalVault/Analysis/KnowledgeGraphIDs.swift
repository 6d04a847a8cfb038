// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

// Knowledge-graph ids derived from what they identify (FORMAT.md §1.6, §1.7): two devices of a
// synced vault that learn the same node, or the same relation, on their own give it the same id,
// so their copies meet as one record — with random ids they collided on `node_key`, or on the
// relations' uniqueness, when one device received the other's.
//
// An id is derived once, when its node or relation is first stored, under the key of that time,
// and kept from then on: `jv rekey` (and a device following it) recomputes `node_key` and
// `relation_key` but keeps the ids, since packs made before the rotation, which other devices
// may still send, name the records by them. Two devices can therefore still hold the same node
// under two ids (one made it before a rekey, the other after); sync keeps the smaller and parks
// the other (SyncRows.write, FORMAT.md §14.7).
//
// The hashes are not keyed, and need not be: a node's id is derived from its `node_key`, which is
// stored in plaintext beside it and is itself a keyed blind index (§5), so the id tells a reader
// of the file nothing the `node_key` column does not; a relation's id from columns of its own row
// that are plaintext already (its nodes' ids, its `relation_key`, its entry's id).

extension KnowledgeNode {
    /// `UUIDv8(BLAKE2b-256("JVLT-node-id" ‖ node_key)[0…15])`.
    static func derivedID(nodeKey: Data) -> UUID {
        UUID(version8From: Blake2b.hash(Array("JVLT-node-id".utf8) + Array(nodeKey)))
    }
}

extension KnowledgeRelation {
    /// `UUIDv8(BLAKE2b-256("JVLT-relation-id" ‖ from[16] ‖ to[16] ‖ relation_key[8] ‖ entry)[0…15])`,
    /// `entry` being `0x01 ‖ entry_id[16]`, or `0x00` and 16 zero bytes for a relation learnt from
    /// no entry. Every part has a fixed length (`relation_key` is 8 bytes by the schema's CHECK),
    /// and the marker byte keeps "no entry" apart from an entry whose id is all zeros (an import
    /// may bring one).
    static func derivedID(from: UUID, to: UUID, relationKey: Data, entryID: UUID?) -> UUID {
        var writer = ByteWriter(capacity: 74)
        writer.raw("JVLT-relation-id".utf8)
        writer.raw(from.bytes)
        writer.raw(to.bytes)
        writer.raw(relationKey)
        writer.u8(entryID == nil ? 0 : 1)
        writer.raw(entryID?.bytes ?? [UInt8](repeating: 0, count: 16))
        return UUID(version8From: Blake2b.hash(writer.bytes))
    }
}

/// Whether the derivation is in force in a vault: the one row of `graph_ids_derived` (migration
/// 0007), present in every vault made since and added to an older one by the write that derived
/// its ids (``UnlockedVault/deriveGraphIDs(_:)``), once.
enum DerivedGraphIDs {
    static func inForce(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM graph_ids_derived)") ?? false
    }

    static func markInForce(_ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO graph_ids_derived (singleton) VALUES (1)")
    }
}

extension SealedRow {
    /// This knowledge node or relation row under the id derived from its columns (a relation's
    /// nodes first moved to their new ids where `nodeIDs`, old → new, moves them); a row of any
    /// other table as it is. The id (and a relation's nodes) are bound into the row's fields: the
    /// caller seals them again.
    func withDerivedGraphID(nodeIDs: [UUID: UUID] = [:]) throws -> SealedRow {
        switch table {
        case .knowledgeNode:
            guard let key = Data.fromDatabaseValue(self["node_key"]) else { throw tampered("its name index is not a blob") }
            return reidentified(KnowledgeNode.derivedID(nodeKey: key))
        case .knowledgeRelation:
            func id(_ column: String) throws -> UUID? {
                let value = self[column]
                if value.isNull { return nil }
                guard let text = String.fromDatabaseValue(value) else { throw tampered("its \(column) is not text") }
                return try RecordID.parse(text, table: table.name)
            }
            guard let storedFrom = try id("from_node"), let storedTo = try id("to_node") else { throw tampered("a node id is missing") }
            guard let key = Data.fromDatabaseValue(self["relation_key"]) else { throw tampered("its type index is not a blob") }
            let from = nodeIDs[storedFrom] ?? storedFrom
            let to = nodeIDs[storedTo] ?? storedTo
            return set("from_node", from.storageText).set("to_node", to.storageText)
                .reidentified(KnowledgeRelation.derivedID(from: from, to: to, relationKey: key, entryID: try id("entry_id")))
        default:
            return self
        }
    }

    private func reidentified(_ newID: UUID) -> SealedRow {
        SealedRow(table, id: newID, values: set("id", newID.storageText).values)
    }
}

extension UnlockedVault {
    /// Gives every knowledge node and relation the id derived from it, in the caller's write
    /// transaction, and records that the derivation is in force — unless it is already.
    ///
    /// The ids of a vault from before schema 7 were random. Each node whose id is not the derived
    /// one is sealed again under it (its fields are bound to its id); each relation is moved to
    /// its nodes' new ids and sealed again under its own derived id. The triggers see every row
    /// rewritten: the row-set manifest takes them in, and in a vault that syncs each old id goes
    /// out as a deletion and each new one as a record (FORMAT.md §14).
    func deriveGraphIDs(_ db: Database) throws {
        guard try !DerivedGraphIDs.inForce(db) else { return }
        // A node's new id leaves its relations pointing at the old one until they move below;
        // SQLite checks their references when the transaction commits. (It switches back by
        // itself at the end of the transaction, and is switched back here for the rest of it.)
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        var moved: [UUID: UUID] = [:]
        try SealedRow.forEachBatch(of: .knowledgeNode, db) { batch in
            for (row, _) in batch {
                let derived = try row.withDerivedGraphID()
                guard derived.id != row.id else { continue }
                try rewrite(row, as: derived, db)
                moved[row.id] = derived.id
            }
        }
        try SealedRow.forEachBatch(of: .knowledgeRelation, db) { batch in
            for (row, _) in batch {
                let derived = try row.withDerivedGraphID(nodeIDs: moved)
                guard derived.values != row.values else { continue }
                if derived.id != row.id, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM knowledge_relation WHERE id = ?)",
                                                            arguments: [derived.id.storageText]) == true {
                    // The same relation twice: its uniqueness index (FORMAT.md §1.7) lets relations
                    // learnt from no entry repeat (two analyses, or two devices' copies under random
                    // ids). One record now: the one met first.
                    try db.execute(sql: "DELETE FROM knowledge_relation WHERE id = ?", arguments: [row.id.storageText])
                    continue
                }
                try rewrite(row, as: derived, db)
            }
        }
        try db.execute(sql: "PRAGMA defer_foreign_keys = OFF")
        try DerivedGraphIDs.markInForce(db)
    }

    /// Stores `derived`, `row` under its derived id, sealed again (next revision) in place of `row`.
    func rewrite(_ row: SealedRow, as derived: SealedRow, _ db: Database) throws {
        var resealed = derived
        try resealed.seal(try row.openedFields(keys: keys), meta: try row.meta().next(keyVersion: keys.keyVersion), keys: keys)
        try resealed.update(db, previousID: row.id)
    }
}
