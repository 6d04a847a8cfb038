// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
@testable import JournalVault

// Two devices that hold the same knowledge node, or relation, under two ids (FORMAT.md §14.7):
// one made it before a rekey and the other after (ids are derived under the key of their time and
// kept), or one's vault predates derived ids. The record of the smaller id stays on every device,
// the other is parked with its relations, and comes back only once the winner is gone.

@Suite struct SyncGraphCollisionTests {
    static let smaller = UUID(storageText: "10000000-0000-4000-8000-000000000000")!
    static let greater = UUID(storageText: "f0000000-0000-4000-8000-000000000000")!

    /// Stores the node of (`type`, `name`) under `id`, as a vault from before derived ids did,
    /// or one at another key version derives it.
    static func addNode(_ journal: UnlockedVault, id: UUID, type: String, name: String) throws {
        try journal.write { db in
            let node = KnowledgeNode(id: id, type: type, name: name, created: .now(), metadata: .null)
            try NodeRow(node, key: journal.nodeKey(NodeReference(type: type, name: name)), meta: .fresh(keyVersion: journal.keys.keyVersion),
                        keys: journal.keys).insert(db)
        }
    }

    /// Finds or makes the two nodes, and stores the relation between them learnt from `entry`; returns the nodes' ids.
    @discardableResult
    static func relate(_ journal: UnlockedVault, _ from: NodeReference, _ type: String, _ to: NodeReference, strength: Double,
                       entry: UUID?) throws -> (from: UUID, to: UUID) {
        try journal.write { db in
            let fromID = try journal.findOrCreateNode(from, db)
            let toID = try journal.findOrCreateNode(to, db)
            _ = try journal.upsertRelation(from: fromID, to: toID, type: type, strength: strength, entryID: entry,
                                           createdAt: Instant.now().millis, db)
            return (fromID, toID)
        }
    }

    /// The graph as shown (nodes and relations, with their ids) and the parked records, for comparing devices.
    static func graphState(_ journal: UnlockedVault) throws -> [String] {
        let nodes = try journal.nodes().map { "node \($0.id.storageText) \($0.type) \($0.name)" }
        let relations = try journal.allRelations().map {
            "relation \($0.id.storageText) \($0.from.storageText) \($0.to.storageText) \($0.type) \($0.strength) \($0.entryID?.storageText ?? "-")"
        }
        return (nodes + relations + (try parked(journal))).sorted()
    }

    static func parked(_ journal: UnlockedVault) throws -> [String] {
        try journal.database.read { db in
            try Row.fetchAll(db, sql: "SELECT tbl, id FROM sync_parked ORDER BY tbl, id").map { "parked \($0[0] as String) \($0[1] as String)" }
        }
    }

    static let anna = NodeReference(type: "person", name: "Anna")
    static let ben = NodeReference(type: "person", name: "Ben")

    /// Two devices with "person Anna" under two ids (`smallerOn` holds the smaller), each with a
    /// relation from it to "person Ben" (one node, made on device 0 and synced) learnt from one
    /// entry; nothing sent yet of Anna. Returns the devices and the entry.
    static func twoAnnas(smallerOn: Int) throws -> (SyncTests.Devices, UUID) {
        let devices = try SyncTests.Devices(count: 2)
        let entry = try devices.journals[0].addEntry("Anna and Ben.").id
        try devices.journals[0].write { db in _ = try devices.journals[0].findOrCreateNode(ben, db) }
        try devices.syncUntilQuiet(rounds: 1)
        for (index, journal) in devices.journals.enumerated() {
            try addNode(journal, id: index == smallerOn ? smaller : greater, type: "person", name: "Anna")
            try relate(journal, anna, "knows", ben, strength: index == 0 ? 0.4 : 0.6, entry: entry)
        }
        return (devices, entry)
    }

    /// The same node under two ids on two devices: whichever holds the smaller, and whichever
    /// sends first, both end with that one shown, its relations, and the other parked with
    /// its relation — the same on both, and `check` passes.
    @Test(arguments: [0, 1])
    func twoIDsOfOneNodeConvergeOnTheSmaller(smallerOn: Int) throws {
        let (devices, entry) = try Self.twoAnnas(smallerOn: smallerOn)
        try devices.syncUntilQuiet()
        let states = try devices.journals.map(Self.graphState)
        #expect(states[0] == states[1], "\(states[0])\n\(states[1])")
        for journal in devices.journals {
            #expect(try journal.nodes().filter { $0.name == "Anna" }.map(\.id) == [Self.smaller])
            #expect(try journal.resolveNode("anna").id == Self.smaller)
            let relations = try journal.allRelations()
            #expect(relations.count == 1 && relations[0].from == Self.smaller && relations[0].entryID == entry)
            #expect(relations.first?.strength == (smallerOn == 0 ? 0.4 : 0.6), "the relation of the node that stays")
            let parked = try Self.parked(journal)
            #expect(parked.count == 2 && parked.contains("parked knowledge_node \(Self.greater.storageText)"), "\(parked)")
            let report = try journal.check()
            #expect(report.isClean, "\(report.problems)")
        }
        // The node is found, not made again, by the next analysis that names it.
        try Self.relate(devices.journals[1], Self.anna, "knows", Self.ben, strength: 0.9, entry: entry)
        try devices.syncUntilQuiet()
        let after = try devices.journals.map(Self.graphState)
        #expect(after[0] == after[1], "\(after[0])\n\(after[1])")
        #expect(try devices.journals[0].allRelations().map(\.strength) == [0.9])
    }

    /// Once the node that stays is deleted (here on one device, everywhere through sync), the
    /// parked one comes back, with its relation, on both devices.
    @Test func theParkedNodeComesBackWhenTheOneThatStayedIsDeleted() throws {
        let (devices, _) = try Self.twoAnnas(smallerOn: 0)
        try devices.syncUntilQuiet()
        try devices.journals[0].write { db in
            try db.execute(sql: "DELETE FROM knowledge_node WHERE id = ?", arguments: [Self.smaller.storageText])
        }
        // The device that deleted it brings the other back at its next sync, having nothing to receive.
        #expect(try SyncEngine(devices.journals[0]).sync().changesReceived == 0)
        #expect(try devices.journals[0].nodes().filter { $0.name == "Anna" }.map(\.id) == [Self.greater])
        try Self.expectTheGreaterAnnaEverywhere(devices)
        for journal in devices.journals { #expect(try Self.parked(journal).isEmpty) }
    }

    /// Parked records are re-encrypted with the vault by a rekey, on the rotating device and on
    /// the one following it: the parked node, compared by its `node_key` under the new key, stays
    /// parked while the other holds its place, and comes back readable when that one is deleted.
    @Test func aParkedNodeFollowsARekey() throws {
        let (devices, _) = try Self.twoAnnas(smallerOn: 0)
        try devices.syncUntilQuiet()
        (devices.journals[0], _) = try devices.journals[0].rekey()
        #expect(try devices.journals[0].check().isClean)
        try devices.journals[0].addEntry("Under the new key.")
        _ = try SyncEngine(devices.journals[0]).sync()
        devices.deliverAll(to: 1)
        #expect(try SyncEngine(devices.journals[1]).sync().rekeyedTo == 2)
        devices.journals[1] = try Vault.open(at: devices.folder.path("1.vault")).unlock(passphrase: secret(TemporaryVault.passphrase))
        try devices.syncUntilQuiet()
        for journal in devices.journals {
            #expect(try journal.nodes().filter { $0.name == "Anna" }.map(\.id) == [Self.smaller])
            #expect(try Self.parked(journal).count == 2)
        }

        try devices.journals[1].write { db in
            try db.execute(sql: "DELETE FROM knowledge_node WHERE id = ?", arguments: [Self.smaller.storageText])
        }
        try Self.expectTheGreaterAnnaEverywhere(devices)
    }

    /// Synced until quiet, both devices hold the same graph, in which "anna" is the node of
    /// the greater id with its relation, and pass `check`.
    static func expectTheGreaterAnnaEverywhere(_ devices: SyncTests.Devices) throws {
        try devices.syncUntilQuiet()
        let states = try devices.journals.map(graphState)
        #expect(states[0] == states[1], "\(states[0])\n\(states[1])")
        for journal in devices.journals {
            #expect(try journal.resolveNode("anna").id == greater)
            #expect(try journal.allRelations().map(\.from) == [greater])
            let report = try journal.check()
            #expect(report.isClean, "\(report.problems)")
        }
    }

    /// The case that makes it happen without an older vault: a device that has not followed a
    /// rekey yet makes a node and a relation that the rotating device makes too, under the new
    /// key. Node and relation ids are kept through the rekey, so the two devices hold each under
    /// two ids; both end with the smaller of each, and every relation of an older node keeps its id.
    @Test func aNodeAndARelationMadeOnEitherSideOfARekeyConverge() throws {
        let devices = try SyncTests.Devices(count: 2)
        let entry = try devices.journals[0].addEntry("Anna, Ben and Mira.").id
        try Self.relate(devices.journals[0], Self.anna, "meets", Self.ben, strength: 0.5, entry: entry)
        try devices.syncUntilQuiet(rounds: 1)
        let shared = try devices.journals[0].allRelations().map(\.id)
        let mira = NodeReference(type: "person", name: "Mira")

        // Device 1, still at key version 1.
        let old = try Self.relate(devices.journals[1], Self.anna, "knows", mira, strength: 0.6, entry: entry)
        try Self.relate(devices.journals[1], Self.anna, "likes", Self.ben, strength: 0.6, entry: entry)
        _ = try SyncEngine(devices.journals[1]).sync()
        // Device 0, rotated to key version 2, makes the same.
        (devices.journals[0], _) = try devices.journals[0].rekey()
        let new = try Self.relate(devices.journals[0], Self.anna, "knows", mira, strength: 0.4, entry: entry)
        try Self.relate(devices.journals[0], Self.anna, "likes", Self.ben, strength: 0.4, entry: entry)
        #expect(old.from == new.from, "Anna was made before the rekey, and kept her id")
        #expect(old.to != new.to, "Mira's id is derived under the key of each device")
        let likes = try devices.journals.map { journal in try journal.allRelations().filter { $0.type == "likes" }.map(\.id) }
        #expect(likes[0] != likes[1] && likes.allSatisfy { $0.count == 1 })

        devices.deliverAll(to: 0)
        let received = try SyncEngine(devices.journals[0]).sync()
        #expect(received.refused.isEmpty && received.waiting.isEmpty, "\(received)")
        devices.deliverAll(to: 1)
        #expect(try SyncEngine(devices.journals[1]).sync().rekeyedTo == 2)
        devices.journals[1] = try Vault.open(at: devices.folder.path("1.vault")).unlock(passphrase: secret(TemporaryVault.passphrase))
        try devices.syncUntilQuiet()

        let states = try devices.journals.map(Self.graphState)
        #expect(states[0] == states[1], "\(states[0])\n\(states[1])")
        let miraID = [old.to, new.to].min { $0.storageText < $1.storageText }!
        let likesID = (likes[0] + likes[1]).min { $0.storageText < $1.storageText }!
        for journal in devices.journals {
            #expect(journal.keys.keyVersion == 2)
            #expect(try journal.nodes().map(\.name).sorted() == ["Anna", "Ben", "Mira"])
            #expect(try journal.resolveNode("mira").id == miraID)
            let relations = try journal.allRelations()
            #expect(relations.filter { $0.type == "likes" }.map(\.id) == [likesID])
            #expect(relations.filter { $0.type == "knows" }.map(\.to) == [miraID])
            #expect(Set(shared).isSubset(of: relations.map(\.id)))
            #expect(relations.count == 3)
            let report = try journal.check()
            #expect(report.isClean, "\(report.problems)")
        }
    }
}
