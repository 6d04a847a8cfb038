// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

extension UnlockedVault {
    /// One write transaction of the vault: everything `body` writes, and the change it makes to
    /// the row-set manifest, commit together or not at all — so neither a concurrent writer
    /// (SQLite runs one write transaction at a time) nor a `kill -9` can leave them apart.
    ///
    /// The manifest is checked before anything is written: one that is missing from a vault
    /// that promised one, or that does not authenticate, stops the write
    /// (``VaultError/manifestDamaged(_:)``). A vault from before the manifest is upgraded here,
    /// at its first write (``upgradeToManifest(_:)``), and one from before derived graph ids gets
    /// them (``deriveGraphIDs(_:)``: one look at a one-row table once they are).
    ///
    /// `renewingInstance`: the file takes a new instance id (FORMAT.md §11.2), a copy's own.
    func write<Result>(renewingInstance: Bool = false, _ body: (Database) throws -> Result) throws -> Result {
        let recorder = database.manifestRecorder
        let result = try database.write { db in
            defer { _ = recorder.finish() }
            let manifest = try manifestForWritingWithTriggers(db)
            recorder.startRecording(key: keys.manifestKey)
            // Before `body`, which may add nodes and relations under derived ids beside them;
            // not while applying other devices' changes, which would not send the new ids on
            // (`jv sync` writes its own pack, through here, before it applies any).
            if database.syncCapture.captures { try deriveGraphIDs(db) }
            let result = try body(db)
            var next = try manifest.applying(recorder.finish()).sealingIdentity(db, keys: keys, renewing: renewingInstance)
            next.counter += 1
            try next.save(db, keys: keys)
            return result
        }
        // Committed: the session's index takes the change in now rather than at the next search
        // (which would see it all the same). An agent that is gone changes nothing here.
        session?.nudge()
        return result
    }

    /// The stored manifest, once its triggers are confirmed in place (``WriteTriggers``); a
    /// vault from before the manifest is upgraded first.
    func manifestForWritingWithTriggers(_ db: Database) throws -> Manifest {
        let triggers = try WriteTriggers.read(db)
        // Without its triggers, this write would not reach the manifest.
        guard triggers.manifestComplete else {
            throw VaultError.manifestDamaged("the triggers that keep it up to date were removed from the file")
        }
        if triggers.syncIncomplete {
            throw VaultError.corruptDatabase("the triggers that note changes for jv sync were removed from the file")
        }
        if let manifest = try Manifest.loadUnlessNotBuiltYet(db, keys: keys) { return manifest }
        return try upgradeToManifest(db)
    }

    /// Brings a vault written before schema 5 up to it, in the caller's transaction (FORMAT.md
    /// §11.4): seals the relations kept in `legacy_relation`, recomputes every entry's tag index
    /// (the normal form of tags changed), re-wraps the keyslot that unlocked it in format 2 (so a
    /// manifest deleted later is noticed), and builds the manifest from every row.
    func upgradeToManifest(_ db: Database) throws -> Manifest {
        let recorder = database.manifestRecorder
        recorder.suspend()
        defer { _ = recorder.finish() }
        let legacy = try Row.fetchAll(db, sql: "SELECT id, from_node, to_node, type, strength, entry_id, created_at FROM legacy_relation")
        for row in legacy {
            let relation = try Self.legacyRelation(row)
            _ = try upsertRelation(from: relation.from, to: relation.to, type: relation.type, strength: relation.strength,
                                   entryID: relation.entryID, createdAt: try row.stored(6, table: "legacy_relation"), db)
        }
        try db.execute(sql: "DELETE FROM legacy_relation")
        try retypeNodesOutsideTheVocabulary(db)
        try reindexAllTags(db)
        if let unlockedSlot {
            try unlockedSlot.slot.rewrapped(keys.masterKey, kek: unlockedSlot.kek, keyVersion: keys.keyVersion, vaultID: keys.vaultID).save(db)
        }
        let manifest = try Manifest.build(db, keys: keys, counter: 0)
        try manifest.save(db, keys: keys)
        return manifest
    }

    /// Nodes written before the type vocabulary keep their type's word in plaintext: each becomes
    /// `other` (re-sealed, its name index recomputed), unless an `other` node of the same name
    /// exists already, when it is left as it is (FORMAT.md §11.4).
    private func retypeNodesOutsideTheVocabulary(_ db: Database) throws {
        let placeholders = KnowledgeNode.types.map { _ in "?" }.joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: "SELECT \(NodeRow.selection) FROM knowledge_node WHERE type NOT IN (\(placeholders))",
                                    arguments: StatementArguments(Array(KnowledgeNode.types)))
        for row in rows {
            let stored = try NodeRow(row: row)
            var node = try stored.decrypt(keys: keys)
            node.type = "other"
            let key = nodeKey(NodeReference(type: node.type, name: node.name))
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM knowledge_node WHERE node_key = ?", arguments: [key]) == nil else { continue }
            try NodeRow(node, key: key, meta: .rewriting(stored.encMeta, keyVersion: keys.keyVersion), keys: keys).update(db)
        }
    }
}
