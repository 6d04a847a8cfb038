// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

// The knowledge graph at library level (FORMAT.md §1, FORMAT.md
// §1.6, §1.7, §5): one node per (type, name) whatever the spelling, strengths in 0…1, a
// relation per (from, to, type, entry) updated rather than duplicated, look-ups by id and name.

fileprivate extension TemporaryVault {
    /// Stores an analysis of `entry` with the given graph.
    @discardableResult
    func analyse(_ entry: Entry, nodes: [NodeReference] = [], relations: [RelationDraft] = []) throws -> Analysis {
        try journal.addAnalysis(Analysis(entryID: entry.id, model: "graph-test", processedAt: .now(), sentiment: "neutral"),
                                nodes: nodes, relations: relations)
    }
}

fileprivate func graphNode(_ type: String, _ name: String) -> NodeReference {
    NodeReference(type: type, name: name)
}

fileprivate func graphRelation(_ from: NodeReference, _ type: String, _ to: NodeReference, _ strength: Double) -> RelationDraft {
    RelationDraft(from: from, to: to, type: type, strength: strength)
}

fileprivate func isInvalidGraph(_ error: VaultError) -> Bool {
    if case .invalidGraph = error { true } else { false }
}

fileprivate func expectGraphError<R>(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                                     where predicate: (VaultError) -> Bool, _ body: () throws -> R) {
    let error = #expect(throws: VaultError.self, comment, sourceLocation: sourceLocation) { _ = try body() }
    if let error, !predicate(error) { Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation) }
}

@Suite struct KnowledgeGraphTests {
    @Test func oneNodePerTypeAndNameWhateverTheCaseOrSpacingAcrossAnalyses() throws {
        let vault = try TemporaryVault()
        let first = try vault.journal.addEntry("Lunch with Anna.")
        let second = try vault.journal.addEntry("Anna called.")
        try vault.analyse(first, nodes: [graphNode("person", "Anna")])
        try vault.analyse(second, nodes: [graphNode("Person", "anna"), graphNode("PERSON", " ANNA "), graphNode("person", "\tanna\n")],
                          relations: [graphRelation(graphNode("person", "me"), "called by", graphNode(" person ", "aNNa"), 0.5)])
        let people = try vault.journal.nodes(type: "person")
        #expect(Set(people.map(\.name)) == ["Anna", "me"], "the name is kept as first written")
        #expect(try vault.count("knowledge_node") == 2)
        let anna = try #require(people.first { $0.name == "Anna" })
        #expect(anna.type == "person")
        let relation = try #require(try vault.journal.allRelations().first)
        #expect(relation.to == anna.id)
    }

    @Test func namesCompareAfterCollapsingSpacesAndUnicodeNormalisation() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Names.")
        try vault.analyse(entry, nodes: [graphNode("person", "Anna Maria"), graphNode("person", "  anna   MARIA "),
                                         graphNode("person", "Zo\u{00EB}"), graphNode("person", "Zoe\u{0308}"), graphNode("person", "ZOË")])
        #expect(Set(try vault.journal.nodes().map(\.name)) == ["Anna Maria", "Zo\u{00EB}"])
        #expect(try vault.count("knowledge_node") == 2)
    }

    @Test func theSameNameUnderDifferentTypesIsTwoNodes() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Paris, the city and the friend.")
        try vault.analyse(entry, nodes: [graphNode("person", "Paris"), graphNode("place", "paris")])
        let nodes = try vault.journal.nodes()
        #expect(nodes.count == 2)
        #expect(Set(nodes.map(\.type)) == ["person", "place"])
        #expect(try vault.journal.nodes(type: "place").map(\.name) == ["paris"])
        #expect(try vault.journal.nodes(type: "PLACE").map(\.name) == ["paris"], "the type filter ignores case")
        #expect(try vault.journal.nodes(type: "emotion").isEmpty)
        // A name alone is then ambiguous.
        expectGraphError(where: { if case .ambiguousID = $0 { true } else { false } }) { try vault.journal.resolveNode("PARIS") }
    }

    @Test(arguments: [-0.1, 1.000001, 2, -1, Double.nan, Double.infinity, -Double.infinity])
    func aRelationStrengthOutsideZeroToOneIsRefusedAndNothingStored(strength: Double) throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Strength.")
        expectGraphError(where: isInvalidGraph) {
            try vault.analyse(entry, nodes: [graphNode("topic", "work")],
                              relations: [graphRelation(graphNode("person", "me"), "likes", graphNode("topic", "work"), strength)])
        }
        #expect(try vault.count("analysis") == 0)
        #expect(try vault.count("knowledge_node") == 0)
        #expect(try vault.count("knowledge_relation") == 0)
    }

    @Test func strengthsAtTheBoundsAreAccepted() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Bounds.")
        try vault.analyse(entry, relations: [graphRelation(graphNode("person", "me"), "ignores", graphNode("topic", "news"), 0),
                                             graphRelation(graphNode("person", "me"), "loves", graphNode("topic", "sea"), 1)])
        #expect(try vault.journal.allRelations().map(\.strength).sorted() == [0, 1])
    }

    @Test func malformedNodesAndRelationsAreRefusedAndNothingStored() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Malformed.")
        expectGraphError("empty name", where: isInvalidGraph) { try vault.analyse(entry, nodes: [graphNode("person", "  ")]) }
        expectGraphError("two-word type", where: isInvalidGraph) { try vault.analyse(entry, nodes: [graphNode("close friend", "Anna")]) }
        expectGraphError("empty type", where: isInvalidGraph) { try vault.analyse(entry, nodes: [graphNode("", "Anna")]) }
        expectGraphError("empty relation type", where: isInvalidGraph) {
            try vault.analyse(entry, relations: [graphRelation(graphNode("person", "me"), " ", graphNode("person", "Anna"), 0.5)])
        }
        expectGraphError("bad node in a relation", where: isInvalidGraph) {
            try vault.analyse(entry, nodes: [graphNode("person", "Valid")],
                              relations: [graphRelation(graphNode("person", "me"), "knows", graphNode("person", ""), 0.5)])
        }
        #expect(try vault.count("analysis") == 0)
        #expect(try vault.count("knowledge_node") == 0)
        #expect(try vault.count("knowledge_relation") == 0)
    }

    @Test func analysingAnEntryAgainUpdatesItsRelationsInsteadOfDuplicatingThem() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Walked with Anna.")
        let other = try vault.journal.addEntry("Walked with Anna again.")
        let me = graphNode("person", "me")
        try vault.analyse(entry, relations: [graphRelation(me, "walked with", graphNode("person", "Anna"), 0.4)])
        let original = try #require(try vault.journal.allRelations().first)
        try vault.analyse(entry, relations: [graphRelation(graphNode("PERSON", " Me "), "walked with", graphNode("person", "anna"), 0.9)])
        let relations = try vault.journal.allRelations()
        #expect(relations.count == 1)
        #expect(relations.first?.id == original.id)
        #expect(relations.first?.strength == 0.9)
        #expect(try vault.count("analysis") == 2, "each run is its own analysis record")

        // Another relation type, or another source entry, is another relation.
        try vault.analyse(entry, relations: [graphRelation(me, "talked with", graphNode("person", "Anna"), 0.2)])
        try vault.analyse(other, relations: [graphRelation(me, "walked with", graphNode("person", "Anna"), 0.1)])
        let all = try vault.journal.allRelations()
        #expect(all.count == 3)
        #expect(Set(all.filter { $0.type == "walked with" }.map(\.entryID)) == [entry.id, other.id])
        #expect(all.first { $0.type == "walked with" && $0.entryID == entry.id }?.strength == 0.9)
        #expect(try vault.count("knowledge_node") == 2)
    }

    @Test func relationsOfANodeGoBothWays() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Anna lives in Lisbon; I visited her.")
        try vault.analyse(entry, relations: [
            graphRelation(graphNode("person", "me"), "visited", graphNode("person", "Anna"), 0.7),
            graphRelation(graphNode("person", "Anna"), "lives in", graphNode("place", "Lisbon"), 1),
        ])
        let anna = try vault.journal.resolveNode("anna")
        let me = try vault.journal.resolveNode("ME")
        let lisbon = try vault.journal.resolveNode("lisbon")
        let annaRelations = try vault.journal.relations(of: anna.id)
        #expect(annaRelations.count == 2)
        let incoming = try #require(annaRelations.first { $0.to == anna.id })
        let outgoing = try #require(annaRelations.first { $0.from == anna.id })
        #expect(incoming.from == me.id)
        #expect(incoming.type == "visited")
        #expect(incoming.strength == 0.7)
        #expect(incoming.entryID == entry.id)
        #expect(outgoing.to == lisbon.id)
        #expect(outgoing.type == "lives in")
        #expect(try vault.journal.relations(of: me.id).map(\.id) == [incoming.id])
        #expect(try vault.journal.relations(of: lisbon.id).map(\.id) == [outgoing.id])

        let json = incoming.json
        guard case .object(let members) = json else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["id", "from", "to", "type", "strength", "entry_id"])
        #expect(json["from"]?.stringValue == me.id.uuidString.lowercased())
        #expect(json["to"]?.stringValue == anna.id.uuidString.lowercased())
        #expect(json["strength"]?.doubleValue == 0.7)
        #expect(json["entry_id"]?.stringValue == entry.id.uuidString.lowercased())
    }

    @Test func nodesResolveByIdPrefixAndByNameInAnyCase() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Nodes.")
        try vault.analyse(entry, nodes: [graphNode("person", "Anna Maria"), graphNode("emotion", "Joy")])
        let anna = try #require(try vault.journal.nodes(type: "person").first)
        #expect(try vault.journal.resolveNode(anna.id.uuidString) == anna)
        #expect(try vault.journal.resolveNode(String(anna.id.storageText.prefix(8))) == anna)
        #expect(try vault.journal.resolveNode("anna maria") == anna)
        #expect(try vault.journal.resolveNode("  ANNA   maria ") == anna)
        #expect(try vault.journal.resolveNode("joy").type == "emotion")
        expectGraphError(where: { if case .notFound = $0 { true } else { false } }) { try vault.journal.resolveNode("Nobody") }
        expectGraphError(where: { if case .notFound = $0 { true } else { false } }) { try vault.journal.node(id: UUID()) }

        let json = anna.json
        guard case .object(let members) = json else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["id", "type", "name", "created_at"])
        #expect(json["name"] == .string("Anna Maria"))
        #expect(json["type"] == .string("person"))
    }

    @Test func nodeTypesAreStoredInLowerCase() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Types.")
        try vault.analyse(entry, nodes: [graphNode("Place", "Lisbon"), graphNode(" EVENT ", "Wedding")])
        let types = try vault.journal.database.read { db in try String.fetchAll(db, sql: "SELECT type FROM knowledge_node ORDER BY type") }
        #expect(types == ["event", "place"])
        #expect(try vault.journal.nodes().map(\.type).sorted() == ["event", "place"])
    }

    // MARK: Merging and deleting nodes

    /// The stored manifest: every write transaction seals it anew, so the same bytes mean nothing was written.
    private static func manifest(_ vault: TemporaryVault) throws -> Data? {
        try vault.journal.database.read { db in try Data.fetchOne(db, sql: "SELECT data FROM manifest") }
    }

    /// Each relation stored under the id derived from its columns (FORMAT.md §1.7), as a new one would be.
    private static func expectDerivedIDs(_ vault: TemporaryVault, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for relation in try vault.journal.allRelations() {
            let derived = KnowledgeRelation.derivedID(from: relation.from, to: relation.to, relationKey: vault.journal.relationKey(relation.type),
                                                      entryID: relation.entryID)
            #expect(relation.id == derived, "\(relation.type)", sourceLocation: sourceLocation)
        }
    }

    @Test func mergingMovesTheRelationsCollapsesTheSameOnesIntoTheStrongerAndDropsThoseBetweenTheTwo() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Ben, or Benny, in Lisbon.")
        let other = try vault.journal.addEntry("Benny again.")
        let me = graphNode("person", "me"), ben = graphNode("person", "Ben"), benny = graphNode("person", "Benny")
        let lisbon = graphNode("place", "Lisbon")
        try vault.analyse(entry, relations: [
            graphRelation(me, "knows", ben, 0.4), graphRelation(me, "knows", benny, 0.9),            // collapse: Benny's is stronger
            graphRelation(ben, "visited", lisbon, 0.8), graphRelation(benny, "visited", lisbon, 0.2), // collapse: Ben's is stronger
            graphRelation(benny, "lives in", lisbon, 0.5),                                             // moved
            graphRelation(ben, "is also", benny, 0.3), graphRelation(benny, "is also", ben, 0.3),      // between the two: dropped
            graphRelation(benny, "talks to", benny, 1),                                                // Benny's own: moved to Ben's own
        ])
        try vault.analyse(other, relations: [graphRelation(me, "knows", benny, 0.6)])                 // another entry: moved
        let kept = try vault.journal.resolveNode("ben"), merged = try vault.journal.resolveNode("benny")
        let untouched = try #require(try vault.journal.allRelations().first { $0.type == "visited" && $0.from == kept.id })

        let merge = try vault.journal.mergeNode(merged.id, into: kept.id)
        #expect(merge.kept == kept)
        #expect(merge.removedID == merged.id)
        #expect((merge.relationsMoved, merge.relationsCollapsed, merge.relationsDropped) == (3, 2, 2))
        #expect(Set(try vault.journal.nodes().map(\.name)) == ["me", "Ben", "Lisbon"])
        expectGraphError(where: { if case .notFound = $0 { true } else { false } }) { try vault.journal.node(id: merged.id) }

        let relations = try vault.journal.allRelations()
        #expect(relations.count == 5)
        #expect(relations.allSatisfy { $0.from != merged.id && $0.to != merged.id })
        func strength(_ type: String, _ from: UUID, _ to: UUID, _ entry: Entry) -> [Double] {
            relations.filter { $0.type == type && $0.from == from && $0.to == to && $0.entryID == entry.id }.map(\.strength)
        }
        let meID = try vault.journal.resolveNode("me").id, lisbonID = try vault.journal.resolveNode("lisbon").id
        #expect(strength("knows", meID, kept.id, entry) == [0.9])
        #expect(strength("knows", meID, kept.id, other) == [0.6])
        #expect(strength("visited", kept.id, lisbonID, entry) == [0.8])
        #expect(strength("lives in", kept.id, lisbonID, entry) == [0.5])
        #expect(strength("talks to", kept.id, kept.id, entry) == [1])
        #expect(relations.contains(untouched), "the kept node's stronger relation is left as it was")
        try Self.expectDerivedIDs(vault)
        #expect(try vault.journal.check().isClean)
        // The manifest follows every row rewritten or deleted: a new unlock finds it whole.
        #expect(try vault.unlock().check().isClean)
    }

    @Test func mergingANodeIntoItselfOrWithAMissingNodeIsRefusedAndWritesNothing() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Anna and Ben.")
        try vault.analyse(entry, relations: [graphRelation(graphNode("person", "Anna"), "knows", graphNode("person", "Ben"), 0.5)])
        let anna = try vault.journal.resolveNode("anna")
        let before = try Self.manifest(vault)
        expectGraphError(where: isInvalidGraph) { try vault.journal.mergeNode(anna.id, into: anna.id) }
        expectGraphError(where: { if case .notFound = $0 { true } else { false } }) { try vault.journal.mergeNode(UUID(), into: anna.id) }
        expectGraphError(where: { if case .notFound = $0 { true } else { false } }) { try vault.journal.mergeNode(anna.id, into: UUID()) }
        expectGraphError(where: { if case .notFound = $0 { true } else { false } }) { try vault.journal.deleteNode(id: UUID()) }
        #expect(try Self.manifest(vault) == before)
        #expect(try vault.count("knowledge_node") == 2)
        #expect(try vault.count("knowledge_relation") == 1)
    }

    @Test func deletingANodeDeletesItsRelationsBothWaysAndNothingElse() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Anna, Ben, Lisbon.")
        let anna = graphNode("person", "Anna"), ben = graphNode("person", "Ben"), lisbon = graphNode("place", "Lisbon")
        try vault.analyse(entry, relations: [graphRelation(anna, "knows", ben, 0.5), graphRelation(ben, "visited", anna, 0.5),
                                             graphRelation(anna, "likes", anna, 0.5), graphRelation(ben, "lives in", lisbon, 1)])
        let doomed = try vault.journal.resolveNode("anna")
        #expect(try vault.journal.deleteNode(id: doomed.id) == 3)
        #expect(Set(try vault.journal.nodes().map(\.name)) == ["Ben", "Lisbon"])
        #expect(try vault.journal.allRelations().map(\.type) == ["lives in"])
        #expect(try vault.count("analysis") == 1, "the analysis that named it stays")
        #expect(try vault.journal.check().isClean)
        expectGraphError(where: { if case .notFound = $0 { true } else { false } }) { try vault.journal.deleteNode(id: doomed.id) }
    }

    @Test func aMergeAfterARekeyDerivesTheMovedIdsUnderTheNewKeyAndARekeyAfterItChecksClean() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Ben and Benny.")
        try vault.analyse(entry, relations: [graphRelation(graphNode("person", "me"), "knows", graphNode("person", "Benny"), 0.7)])
        let (rekeyed, _) = try vault.unlock().rekey()
        let ben = try rekeyed.write { db in try rekeyed.findOrCreateNode(graphNode("person", "Ben"), db) }
        let merge = try rekeyed.mergeNode(try rekeyed.resolveNode("benny").id, into: ben)
        #expect(merge.relationsMoved == 1)
        let moved = try #require(try rekeyed.allRelations().first)
        #expect(moved.to == ben)
        #expect(moved.id == KnowledgeRelation.derivedID(from: moved.from, to: ben, relationKey: rekeyed.relationKey("knows"), entryID: entry.id))
        #expect(try rekeyed.check().isClean)
        let (again, _) = try vault.unlock().rekey()
        #expect(try again.check().isClean)
        #expect(try again.allRelations() == [moved], "kept through the rekey, id and all")
    }

    /// A merge on one device, and a delete on the other, reach the other device through sync:
    /// both end with the same graph, nothing parked, and check clean.
    @Test func aMergeAndADeleteTravelThroughSync() throws {
        let devices = try SyncTests.Devices(count: 2)
        let journal = devices.journals[0]
        let entry = try journal.addEntry("Ben, Benny, Lisbon, Mondays.")
        try journal.addAnalysis(Analysis(entryID: entry.id, model: "graph-test", processedAt: .now(), sentiment: "neutral"), relations: [
            graphRelation(graphNode("person", "me"), "knows", graphNode("person", "Ben"), 0.4),
            graphRelation(graphNode("person", "me"), "knows", graphNode("person", "Benny"), 0.9),
            graphRelation(graphNode("person", "Benny"), "lives in", graphNode("place", "Lisbon"), 1),
            graphRelation(graphNode("person", "me"), "dislikes", graphNode("topic", "Mondays"), 0.2),
        ])
        try devices.syncUntilQuiet()
        #expect(try devices.journals[1].nodes().count == 5)

        _ = try journal.mergeNode(try journal.resolveNode("benny").id, into: try journal.resolveNode("ben").id)
        try devices.journals[1].deleteNode(id: try devices.journals[1].resolveNode("mondays").id)
        try devices.syncUntilQuiet()
        let states = try devices.journals.map(SyncGraphCollisionTests.graphState)
        #expect(states[0] == states[1], "\(states[0])\n\(states[1])")
        for journal in devices.journals {
            #expect(Set(try journal.nodes().map(\.name)) == ["me", "Ben", "Lisbon"])
            let ben = try journal.resolveNode("ben").id
            #expect(Set(try journal.allRelations().map { "\($0.type) \($0.strength) \($0.from == ben || $0.to == ben)" })
                    == ["knows 0.9 true", "lives in 1.0 true"])
            #expect(try SyncGraphCollisionTests.parked(journal).isEmpty)
            let report = try journal.check()
            #expect(report.isClean, "\(report.problems)")
        }
    }

    /// A merge on one device while the other, not yet knowing of it, names the merged node again
    /// (a new relation to it, and a stronger one it had): both devices end with the same graph and
    /// parked records, `check` clean — the merged node stays deleted, and what the other device
    /// said of it waits parked, as a relation to any node deleted elsewhere does (FORMAT.md §14.7).
    @Test func aMergeMeetsAConcurrentAnalysisOfTheMergedNode() throws {
        let devices = try SyncTests.Devices(count: 2)
        let entry = try devices.journals[0].addEntry("Ben and Benny.")
        let me = graphNode("person", "me"), benny = graphNode("person", "Benny")
        try devices.journals[0].addAnalysis(Analysis(entryID: entry.id, model: "graph-test", processedAt: .now(), sentiment: "neutral"), relations: [
            graphRelation(me, "knows", graphNode("person", "Ben"), 0.4), graphRelation(me, "knows", benny, 0.5),
        ])
        try devices.syncUntilQuiet()

        let first = devices.journals[0], second = devices.journals[1]
        _ = try first.mergeNode(try first.resolveNode("benny").id, into: try first.resolveNode("ben").id)
        try second.addAnalysis(Analysis(entryID: entry.id, model: "other-model", processedAt: .now(), sentiment: "warm"), relations: [
            graphRelation(me, "knows", benny, 0.8), graphRelation(benny, "lives in", graphNode("place", "Lisbon"), 1),
        ])
        try devices.syncUntilQuiet()
        let states = try devices.journals.map(SyncGraphCollisionTests.graphState)
        #expect(states[0] == states[1], "\(states[0])\n\(states[1])")
        for journal in devices.journals {
            #expect(!(try journal.nodes().contains { $0.name == "Benny" }))
            let report = try journal.check()
            #expect(report.isClean, "\(report.problems)")
        }
    }
}
