// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

// Knowledge-graph ids derived from what they identify (FORMAT.md §1.6, §1.7): the document's
// vectors, the same ids in two copies of a vault and on two devices, the rewrite of a vault whose
// ids are random (and what a vault that syncs sends for it), rekey (which keeps them), import,
// and `check`. Two devices holding one node under two ids: SyncGraphCollisionTests.

extension UnlockedVault {
    /// The graph with names in place of ids, for comparing graphs whose ids differ: nodes as
    /// "type name", relations as "from -type-> to strength entry", each sorted.
    func graphByNames() throws -> (nodes: [String], relations: [String]) {
        Self.graphByNames(nodes: try nodes(), relations: try allRelations())
    }

    static func graphByNames(nodes: [KnowledgeNode], relations: [KnowledgeRelation]) -> (nodes: [String], relations: [String]) {
        let names = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, "\($0.type) \($0.name)") })
        return (nodes.map { "\($0.type) \($0.name)" }.sorted(),
                relations.map { relation in
                    "\(names[relation.from] ?? "?") -\(relation.type)-> \(names[relation.to] ?? "?") \(relation.strength) "
                        + (relation.entryID?.storageText ?? "-")
                }.sorted())
    }

    /// Whether every node and relation is stored under the id derived from it under the current key.
    func graphIDsAreDerived() throws -> Bool {
        try database.read { db in
            try [SealedTable.knowledgeNode, .knowledgeRelation].allSatisfy { table in
                try Row.fetchAll(db, sql: "SELECT \(table.selection) FROM \(table.name)").allSatisfy { row in
                    let stored = try SealedRow(table, row: row)
                    return try stored.withDerivedGraphID().id == stored.id
                }
            }
        }
    }

    /// Writes nodes and relations as jv did before ids were derived, each under a random id —
    /// sealed, and in the manifest, through the vault's own write path — and takes the vault back
    /// to before the derivation was in force. Returns the ids written.
    func writeGraphTheOldWay(nodes: [(type: String, name: String)],
                             relations: [(from: Int, to: Int, type: String, strength: Double, entry: UUID?)]) throws -> (nodes: [UUID], relations: [UUID]) {
        let written = try write { db -> ([UUID], [UUID]) in
            var nodeIDs: [UUID] = []
            for (type, name) in nodes {
                let node = KnowledgeNode(id: UUID(), type: type, name: name, created: .now(), metadata: .null)
                try NodeRow(node, key: nodeKey(NodeReference(type: type, name: name)), meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
                nodeIDs.append(node.id)
            }
            var relationIDs: [UUID] = []
            for (from, to, type, strength, entry) in relations {
                let relation = KnowledgeRelation(id: UUID(), from: nodeIDs[from], to: nodeIDs[to], type: type, strength: strength, entryID: entry)
                try RelationRow(relation, createdAt: Instant.now().millis, key: relationKey(type), meta: .fresh(keyVersion: keys.keyVersion),
                                keys: keys).insert(db)
                relationIDs.append(relation.id)
            }
            return (nodeIDs, relationIDs)
        }
        try writeBehindTheVaultsBack { db in try db.execute(sql: "DELETE FROM graph_ids_derived") }
        return written
    }
}

@Suite struct KnowledgeGraphIDTests {
    // MARK: The derivation

    /// FORMAT.md §1.6's vectors, computed with Python's hashlib and `b2sum -l 256`, not with jv.
    @Test func derivedIDsMatchTheDocument() throws {
        let anna = KnowledgeNode.derivedID(nodeKey: Data(hex: FormatVectorTests.nodeKeyPersonAnna))
        #expect(anna.storageText == "148a556f-c6a2-831b-9f2d-64d7da695b4d")
        let other = try #require(UUID(storageText: FormatVectorTests.otherID))
        let meets = Data(hex: FormatVectorTests.relationKeyMeets)
        #expect(KnowledgeRelation.derivedID(from: anna, to: other, relationKey: meets, entryID: nil).storageText
                == "74298b06-b42e-8438-88ce-cafb8d8652c1")
        #expect(KnowledgeRelation.derivedID(from: anna, to: other, relationKey: meets, entryID: FormatVectorTests.entryID).storageText
                == "0ad94a16-2135-8d06-9218-aac090040117")
        // No entry is not the entry whose id is all zeros.
        #expect(KnowledgeRelation.derivedID(from: anna, to: other, relationKey: meets, entryID: UUID(bytes: [UInt8](repeating: 0, count: 16)))
                != KnowledgeRelation.derivedID(from: anna, to: other, relationKey: meets, entryID: nil))
        // RFC 9562 version 8, variant 10.
        #expect(anna.bytes[6] >> 4 == 8 && anna.bytes[8] >> 6 == 0b10)
        // The node key of the vectors' "person Anna" under the vectors' master key.
        let keys = try VaultKeys(vaultID: FormatVectorTests.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: FormatVectorTests.masterKey))
        #expect(KnowledgeNode.derivedID(nodeKey: UnlockedVault.nodeKey(NodeReference(type: "Person", name: " ANNA "), keys: keys)) == anna)
    }

    @Test func nodesAndRelationsAreWrittenUnderTheirDerivedIDs() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Lunch with Anna.")
        try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now()),
                                      relations: [RelationDraft(from: NodeReference(type: "person", name: "me"),
                                                                to: NodeReference(type: "person", name: "Anna"), type: "meets", strength: 0.5)])
        let anna = try vault.journal.resolveNode("anna")
        #expect(anna.id == KnowledgeNode.derivedID(nodeKey: vault.journal.nodeKey(NodeReference(type: "person", name: "Anna"))))
        let me = try vault.journal.resolveNode("me")
        let relation = try #require(try vault.journal.relations(of: anna.id).first)
        #expect(relation.id == KnowledgeRelation.derivedID(from: me.id, to: anna.id, relationKey: vault.journal.relationKey("meets"), entryID: entry.id))
        #expect(try vault.journal.graphIDsAreDerived())
        #expect(try vault.journal.check().isClean)
    }

    /// Two copies of one vault (the same keys) that learn the same node and relation each on
    /// their own store them under the same ids.
    @Test func twoCopiesOfAVaultGiveTheSameNodeAndRelationTheSameIDs() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Walked to the harbour with Anna.")
        let backup = vault.folder.path("copy.jvbak")
        try vault.journal.backup(to: backup)
        let copyPath = vault.folder.path("copy.vault")
        _ = try BackupFile.restore(backup, to: copyPath, credential: .passphrase(secret(TemporaryVault.passphrase)))
        let copy = try Vault.open(at: copyPath).unlock(passphrase: secret(TemporaryVault.passphrase))
        for journal in [vault.journal, copy] {
            try journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now()),
                                    nodes: [NodeReference(type: "place", name: "Harbour")],
                                    relations: [RelationDraft(from: NodeReference(type: "person", name: "Anna"),
                                                              to: NodeReference(type: "place", name: "harbour"), type: "walks to", strength: 0.7)])
        }
        #expect(try vault.journal.nodes().map(\.id).sorted { $0.storageText < $1.storageText }
                == copy.nodes().map(\.id).sorted { $0.storageText < $1.storageText })
        #expect(try vault.journal.allRelations().map(\.id) == copy.allRelations().map(\.id))
        #expect(try vault.journal.nodes().count == 2 && vault.journal.allRelations().count == 1)
    }

    /// Two devices of a synced vault that learn the same node and relation on their own meet in
    /// one record each (with random ids their copies collided on `node_key`).
    @Test func twoDevicesThatLearnTheSameGraphMeetInOneRecord() throws {
        let folder = try TemporaryFolder()
        let location = folder.path("location")
        try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
        let first = try Vault.create(at: folder.path("a.vault"), passphrase: secret(TemporaryVault.passphrase), kdf: TemporaryVault.kdf).vault
        let entry = try first.addEntry("Coffee with Mira at the station.")
        _ = try SyncEngine(first).setUp(at: location)
        let second = try SyncEngine.clone(from: location, to: folder.path("b.vault"), credential: .passphrase(secret(TemporaryVault.passphrase))).vault
        for (journal, strength) in [(first, 0.4), (second, 0.6)] {
            try journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now()),
                                    nodes: [NodeReference(type: "person", name: "Mira"), NodeReference(type: "place", name: "the station")],
                                    relations: [RelationDraft(from: NodeReference(type: "person", name: "Mira"),
                                                              to: NodeReference(type: "place", name: "The Station"), type: "meets at", strength: strength)])
        }
        for journal in [first, second, first] {
            let report = try SyncEngine(journal).sync()
            #expect(report.refused.isEmpty && report.waiting.isEmpty, "\(report.refused) \(report.waiting)")
        }
        #expect(try first.graphByNames().nodes == ["person Mira", "place the station"])
        #expect(try first.nodes().map(\.id) == second.nodes().map(\.id))
        #expect(try first.allRelations() == second.allRelations())
        #expect(try first.allRelations().count == 1)
        for journal in [first, second] {
            let report = try journal.check()
            #expect(report.isClean, "\(report.problems)")
        }
    }

    // MARK: Vaults from before derived ids

    /// The first write of a vault whose ids are random derives them all, in one transaction: the
    /// graph reads the same by name, relations follow their nodes, relations that are one under
    /// derived ids merge.
    @Test func theFirstWriteDerivesRandomIDsAndKeepsTheGraph() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let entry = try journal.addEntry("Sailing with Anna and Ben.")
        let old = try journal.writeGraphTheOldWay(
            nodes: [("person", "Anna"), ("person", "Ben"), ("activity", "Sailing")],
            relations: [(0, 1, "sails with", 0.9, entry.id), (0, 2, "enjoys", 0.8, nil), (1, 2, "enjoys", 0.3, nil),
                        // The same relation twice, from no entry: the uniqueness index lets that be.
                        (1, 0, "knows", 0.5, nil), (1, 0, "knows", 0.5, nil)])
        let before = try journal.graphByNames()
        #expect(try !journal.graphIDsAreDerived())
        let beforeCheck = try journal.check()
        #expect(beforeCheck.isClean && beforeCheck.notes.isEmpty, "random ids are no problem: \(beforeCheck.problems) \(beforeCheck.notes)")

        try journal.addEntry("The first write since.")
        #expect(try journal.graphIDsAreDerived())
        let after = try journal.graphByNames()
        #expect(after.nodes == before.nodes)
        #expect(after.relations == Array(Set(before.relations)).sorted(), "the same, with the repeated relation once")
        for id in old.nodes + old.relations {
            #expect(throws: VaultError.self) { try journal.node(id: id) }
            #expect(try journal.allRelations().allSatisfy { ![$0.id, $0.from, $0.to].contains(id) })
        }
        // What `jv graph show` reads: the node by name, and its relations both ways.
        let anna = try journal.resolveNode("anna")
        #expect(try journal.relations(of: anna.id).count == 3)
        let report = try journal.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems) \(report.notes)")
        // Derived once: the next writes leave the ids as they are.
        let ids = Set(try journal.nodes().map(\.id) + journal.allRelations().map(\.id))
        try journal.addEntry("Another write.")
        #expect(Set(try journal.nodes().map(\.id) + journal.allRelations().map(\.id)) == ids)
    }

    /// A vault from before derived ids, read without the right to write, passes `check`, and
    /// reading it writes nothing.
    @Test func readingAVaultFromBeforeDerivedIDsChangesNothingAndPassesCheck() throws {
        let vault = try TemporaryVault()
        _ = try vault.journal.writeGraphTheOldWay(nodes: [("person", "Anna"), ("place", "Home")], relations: [(0, 1, "lives at", 1, nil)])
        let reader = try Vault.open(at: vault.path, access: .readOnly).unlock(passphrase: secret(TemporaryVault.passphrase))
        let report = try reader.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems) \(report.notes)")
        #expect(try reader.graphByNames().relations == ["person Anna -lives at-> place Home 1.0 -"])
        #expect(try vault.journal.database.read { db in try DerivedGraphIDs.inForce(db) } == false)
        #expect(try !vault.journal.graphIDsAreDerived())
    }

    /// In a vault that syncs, the rewrite is this device's change: each old id goes out as a
    /// deletion and each new one as a record.
    @Test func aVaultThatSyncsSendsOldIDsAsDeletionsAndNewOnesAsRecords() throws {
        let folder = try TemporaryFolder()
        let location = folder.path("location")
        try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
        let journal = try Vault.create(at: folder.path("a.vault"), passphrase: secret(TemporaryVault.passphrase), kdf: TemporaryVault.kdf).vault
        _ = try SyncEngine(journal).setUp(at: location)
        // Sent under random ids, as a device did before ids were derived (the derivation kept
        // away until they are, else the push's write would derive them first).
        let old = try journal.writeGraphTheOldWay(nodes: [("person", "Anna"), ("place", "Home")], relations: [(0, 1, "lives at", 1, nil)])
        try journal.writeBehindTheVaultsBack { db in try DerivedGraphIDs.markInForce(db) }
        #expect(try SyncEngine(journal).sync().sent?.changes == 3)
        try journal.writeBehindTheVaultsBack { db in try db.execute(sql: "DELETE FROM graph_ids_derived") }
        try journal.addEntry("The first write since.")
        let newNodes = try journal.nodes().map(\.id)
        let newRelation = try #require(try journal.allRelations().first?.id)
        let pending = try journal.database.read { db in
            Set(try Row.fetchAll(db, sql: "SELECT tbl, id FROM sync_pending").map { "\($0[0] as String) \($0[1] as String)" })
        }
        let expected = Set(old.nodes.map { "knowledge_node \($0.storageText)" } + newNodes.map { "knowledge_node \($0.storageText)" }
                           + ["knowledge_relation \(old.relations[0].storageText)", "knowledge_relation \(newRelation.storageText)"])
        #expect(expected.isSubset(of: pending), "\(pending)")
        _ = try SyncEngine(journal).sync()
        // What was sent: a deletion of each old id, a record under each new one.
        let sent = try journal.database.read { db -> [UUID: Bool] in
            var deleted: [UUID: Bool] = [:]
            for id in old.nodes + newNodes { deleted[id] = try KnownRevision.load(.knowledgeNode, id.storageText, db)?.deleted }
            for id in old.relations + [newRelation] { deleted[id] = try KnownRevision.load(.knowledgeRelation, id.storageText, db)?.deleted }
            return deleted
        }
        #expect((old.nodes + old.relations).allSatisfy { sent[$0] == true }, "\(sent)")
        #expect((newNodes + [newRelation]).allSatisfy { sent[$0] == false }, "\(sent)")
        #expect(try journal.check().isClean)
    }

    /// A device that holds a node under its old random id when the pack of the rewrite arrives (a
    /// clone made afterwards applies every pack since the first) receives the deletion of the old
    /// id and the record under the new one in one pack, in id order. Deletion first, all is well.
    /// Record first, its `node_key` is still held by the old row: the smaller id of the two stays
    /// and the other is parked (SyncRows.write) until the deletion that follows removes the old
    /// one, whichever that is.
    @Test(arguments: ["00000000-0000-4000-8000-000000000001", "ffffffff-ffff-4fff-bfff-ffffffffffff"])
    func aCloneReceivesTheRewriteOfIDsItHoldsUnderTheOldOnes(oldID: String) throws {
        let folder = try TemporaryFolder()
        let location = folder.path("location")
        try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
        let journal = try Vault.create(at: folder.path("a.vault"), passphrase: secret(TemporaryVault.passphrase), kdf: TemporaryVault.kdf).vault
        _ = try SyncEngine(journal).setUp(at: location)
        try journal.write { db in
            let node = KnowledgeNode(id: try #require(UUID(storageText: oldID)), type: "person", name: "Anna", created: .now(), metadata: .null)
            try NodeRow(node, key: journal.nodeKey(NodeReference(type: "person", name: "Anna")), meta: .fresh(keyVersion: 1), keys: journal.keys).insert(db)
        }
        _ = try SyncEngine(journal).sync()
        try journal.writeBehindTheVaultsBack { db in try db.execute(sql: "DELETE FROM graph_ids_derived") }
        try journal.addEntry("The first write since: the ids are derived.")
        _ = try SyncEngine(journal).sync()
        let derived = try #require(try journal.nodes().first?.id)
        #expect(derived.storageText > "00000000-0000-4000-8000-000000000001" && derived.storageText < "ffffffff-ffff-4fff-bfff-ffffffffffff")
        let clone = try SyncEngine.clone(from: location, to: folder.path("b.vault"), credential: .passphrase(secret(TemporaryVault.passphrase)))
        #expect(clone.report.refused.isEmpty && clone.report.waiting.isEmpty, "\(clone.report)")
        #expect(try clone.vault.nodes().map(\.id) == [derived])
        #expect(try clone.vault.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_parked") } == 0)
        #expect(try clone.vault.check().isClean)
    }

    // MARK: Rekey, import, check

    /// A rekey keeps every node's and relation's id (FORMAT.md §1.6): they were derived under the
    /// old key, and other devices name the records by them. `check` passes; the nodes and
    /// relations are found again by name and type (an analysis that names them again adds none);
    /// a node made afterwards gets the id derived under the new key.
    @Test func rekeyKeepsTheIDsAndCheckPasses() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Dinner with Anna.")
        let hosts = RelationDraft(from: NodeReference(type: "person", name: "Anna"), to: NodeReference(type: "event", name: "Dinner"),
                                  type: "hosts", strength: 0.9)
        try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now()), relations: [hosts])
        let nodesBefore = try vault.journal.nodes()
        let relationsBefore = try vault.journal.allRelations()
        #expect(nodesBefore.count == 2 && relationsBefore.count == 1)

        let (rekeyed, _) = try vault.unlock().rekey()
        #expect(try rekeyed.nodes() == nodesBefore)
        #expect(try rekeyed.allRelations() == relationsBefore)
        #expect(try !rekeyed.graphIDsAreDerived(), "derived under the old key")
        var report = try rekeyed.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems) \(report.notes)")

        var again = hosts
        again.strength = 0.5
        try rekeyed.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now()),
                                nodes: [NodeReference(type: "person", name: "Ben")], relations: [again])
        let anna = try rekeyed.resolveNode("anna")
        #expect(anna.id == nodesBefore.first { $0.name == "Anna" }?.id)
        #expect(try rekeyed.allRelations().map(\.id) == relationsBefore.map(\.id), "the same relation, its strength changed")
        #expect(try rekeyed.allRelations().first?.strength == 0.5)
        let ben = try rekeyed.resolveNode("ben")
        #expect(ben.id == KnowledgeNode.derivedID(nodeKey: rekeyed.nodeKey(NodeReference(type: "person", name: "Ben"))))
        report = try rekeyed.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems) \(report.notes)")
    }

    /// A vault whose ids were random when it was rekeyed keeps them through the rekey, and derives
    /// them, under the new key, at its next write.
    @Test func aVaultRekeyedBeforeItsIDsWereDerivedDerivesThemUnderTheNewKey() throws {
        let vault = try TemporaryVault()
        let old = try vault.journal.writeGraphTheOldWay(nodes: [("person", "Ben"), ("place", "Home")],
                                                        relations: [(0, 1, "lives at", 1, nil), (0, 1, "lives at", 1, nil)])
        let before = try vault.journal.graphByNames()
        let (rekeyed, _) = try vault.unlock().rekey()
        #expect(Set(try rekeyed.nodes().map(\.id)) == Set(old.nodes))
        #expect(try rekeyed.check().isClean)
        try rekeyed.addEntry("The first write since.")
        #expect(try rekeyed.graphIDsAreDerived())
        #expect(try rekeyed.graphByNames().nodes == before.nodes)
        #expect(try rekeyed.graphByNames().relations == Array(Set(before.relations)).sorted())
        let report = try rekeyed.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems) \(report.notes)")
    }

    /// An imported file's node and relation ids (another vault's, or random) give way to the
    /// ones this vault derives; relations follow their nodes; importing again changes nothing.
    @Test func importStoresNodesAndRelationsUnderDerivedIDs() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Tea with Anna.")
        var snapshot = VaultSnapshot()
        let anna = KnowledgeNode(id: UUID(), type: "person", name: "Anna", created: .now(), metadata: .null)
        let tea = KnowledgeNode(id: UUID(), type: "activity", name: "Tea", created: .now(), metadata: .null)
        snapshot.nodes = [anna, tea]
        snapshot.relations = [KnowledgeRelation(id: UUID(), from: anna.id, to: tea.id, type: "drinks", strength: 0.4, entryID: entry.id)]
        let summary = try vault.journal.importSnapshot(snapshot)
        #expect(summary.added == ["nodes": 2, "relations": 1])
        #expect(try vault.journal.graphIDsAreDerived())
        #expect(try vault.journal.graphByNames().relations == ["person Anna -drinks-> activity Tea 0.4 \(entry.id.storageText)"])
        #expect(throws: VaultError.self) { try vault.journal.node(id: anna.id) }
        #expect(try vault.journal.importSnapshot(snapshot).changedNothing)
        #expect(try vault.journal.check().isClean)
    }

    /// `check` does not hold an id to its derivation (a rekey keeps ids derived under the old
    /// key): a node or relation sealed under an id of its own choosing passes. A node whose id was
    /// changed in the file is still caught, by its fields, which are bound to its id.
    @Test func checkTakesIDsAsTheyAreButCatchesOneChangedInTheFile() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Lunch with Anna.")
        try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now()),
                                      nodes: [NodeReference(type: "topic", name: "Lunch")],
                                      relations: [RelationDraft(from: NodeReference(type: "person", name: "me"),
                                                                to: NodeReference(type: "person", name: "Anna"), type: "meets", strength: 0.5)])
        _ = try vault.journal.writeGraphTheOldWay(nodes: [("person", "Ben")], relations: [])
        try vault.execute("INSERT INTO graph_ids_derived (singleton) VALUES (1)")
        // A relation moved to another id, sealed again with the key, and in the manifest.
        let moved = UUID()
        try vault.journal.write { db in
            let stored = try #require(try RelationRow.fetchAll(db).first)
            var row = SealedRow(.knowledgeRelation, id: moved, values: stored.row.set("id", moved.storageText).values)
            try row.seal(try stored.row.openedFields(keys: vault.journal.keys), meta: .fresh(keyVersion: 1), keys: vault.journal.keys)
            try row.update(db, previousID: stored.row.id)
        }
        var report = try vault.journal.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems) \(report.notes)")

        // The id of a node edited in the file.
        let lunch = try vault.journal.resolveNode("lunch")
        let edited = UUID()
        try vault.execute("UPDATE knowledge_node SET id = ? WHERE id = ?", [edited.storageText, lunch.id.storageText])
        report = try vault.journal.check()
        #expect(report.problems.contains { $0.contains(edited.storageText) && $0.contains("knowledge_node") }, "\(report.problems)")
    }
}
