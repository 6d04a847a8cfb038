// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// `jv graph list|show|merge|delete` end to end (FORMAT.md §1, README "JSON"): the knowledge
// graph that `jv analyze` builds, driven through the built jv binary with a passphrase file.

extension Sandbox {
    /// Runs `jv analyze ENTRY` with an analyser that answers `answer`; expects success.
    fileprivate func analyse(_ entry: String, answer: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = try folder.write("answer-\(UUID().uuidString).json", answer)
        try ok(["analyze", entry, "--command", "cat >/dev/null; cat '\(file)'"], sourceLocation: sourceLocation)
    }

    fileprivate func nodes(_ options: [String] = []) throws -> [JSONValue] {
        try #require(try ok(["graph", "list", "--json"] + options).jsonValue().arrayValue)
    }

    fileprivate func node(_ text: String) throws -> JSONValue {
        try ok(["graph", "show", text, "--json"]).jsonValue()
    }

    /// Every node as `graph show` prints it (relations included), and the stored manifest, which
    /// every write seals anew: equal before and after a command means it wrote nothing.
    fileprivate func graphAndManifest() throws -> [String] {
        try nodes().map { node in try ok(["graph", "show", node["id"]?.stringValue ?? "?", "--json"]).out }
            + [try sqlite("SELECT hex(data) FROM manifest")]
    }

    /// `relations` of `node`, each as "from type to strength" with the nodes' names.
    fileprivate func relationLines(_ text: String) throws -> [String] {
        let names = Dictionary(uniqueKeysWithValues: try nodes().map { ($0["id"]?.stringValue ?? "?", $0["name"]?.stringValue ?? "?") })
        return try #require(try node(text)["relations"]?.arrayValue).map { relation in
            let name = { (key: String) in names[relation[key]?.stringValue ?? ""] ?? "?" }
            return "\(name("from")) \(relation["type"]?.stringValue ?? "?") \(name("to")) \(relation["strength"]?.doubleValue ?? -1)"
        }.sorted()
    }

    /// An entry analysed into me knows Ben (0.4) and Benny (0.9), Ben and Benny in Lisbon (0.8,
    /// 0.2), Benny lives in Lisbon, and Ben is also Benny; returns the entry's id.
    fileprivate func bensAndBennys() throws -> String {
        let entry = try ok(["add", "Ben, or Benny, in Lisbon."]).printedID()
        try analyse(entry, answer: #"{"sentiment": "warm", "relations": ["#
                    + [graphCLIRelation("person", "me", "knows", "person", "Ben", 0.4), graphCLIRelation("person", "me", "knows", "person", "Benny", 0.9),
                       graphCLIRelation("person", "Ben", "visited", "place", "Lisbon", 0.8), graphCLIRelation("person", "Benny", "visited", "place", "Lisbon", 0.2),
                       graphCLIRelation("person", "Benny", "lives in", "place", "Lisbon", 1), graphCLIRelation("person", "Ben", "is also", "person", "Benny", 0.5)]
                        .joined(separator: ", ") + "]}")
        return entry
    }
}

/// A relation member of an analyser answer.
fileprivate func graphCLIRelation(_ fromType: String, _ from: String, _ type: String, _ toType: String, _ to: String, _ strength: Double) -> String {
    #"{"from": {"type": "\#(fromType)", "name": "\#(from)"}, "to": {"type": "\#(toType)", "name": "\#(to)"}, "type": "\#(type)", "strength": \#(strength)}"#
}

@Suite(.tags(.e2e)) struct GraphCommandTests {
    @Test func oneNodePerTypeAndNameWhateverTheCaseOrSpacing() throws {
        let jv = try Sandbox(from: .empty())
        let first = try jv.ok(["add", "Lunch with Anna."]).printedID()
        let second = try jv.ok(["add", "Anna called."]).printedID()
        try jv.analyse(first, answer: #"{"sentiment": "glad", "nodes": [{"type": "person", "name": "Anna"}]}"#)
        try jv.analyse(second, answer: #"{"sentiment": "glad", "nodes": [{"type": "Person", "name": "anna"}, {"type": "PERSON", "name": " ANNA "}]}"#)
        let people = try jv.nodes(["--type", "person"])
        #expect(people.count == 1)
        #expect(people.first?["name"] == .string("Anna"), "the name as first written")
        #expect(people.first?["type"] == .string("person"))
        #expect(try jv.counts()["nodes"] == .integer(1))
        #expect(try jv.counts()["analyses"] == .integer(2))
    }

    @Test func graphListFiltersByTypeAndHasTheDocumentedShape() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Anna and Ben in Lisbon; joy."]).printedID()
        try jv.analyse(entry, answer: #"""
            {"themes": ["trip"], "nodes": [{"type": "person", "name": "Anna"}, {"type": "person", "name": "Ben"},
             {"type": "place", "name": "Lisbon"}, {"type": "emotion", "name": "joy"}]}
            """#)
        let all = try jv.nodes()
        #expect(all.count == 4)
        for node in all {
            #expect(jsonKeys(node) == ["id", "type", "name", "created_at"])
            #expect(UUID(uuidString: node["id"]?.stringValue ?? "") != nil)
        }
        #expect(Set(try jv.nodes(["--type", "person"]).compactMap { $0["name"]?.stringValue }) == ["Anna", "Ben"])
        #expect(try jv.nodes(["--type", "PLACE"]).compactMap { $0["name"]?.stringValue } == ["Lisbon"])
        #expect(try jv.nodes(["--type", "emotion"]).compactMap { $0["name"]?.stringValue } == ["joy"])
        #expect(try jv.nodes(["--type", "event"]).isEmpty)

        let text = try jv.ok(["graph", "list", "--type", "person"]).out
        #expect(text.contains("Anna"))
        #expect(text.contains("Ben"))
        #expect(!text.contains("Lisbon"))
    }

    @Test func graphShowFindsANodeByIDPrefixOrNameAndShowsRelationsBothWays() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "I visited Anna; she lives in Lisbon."]).printedID()
        try jv.analyse(entry, answer: #"{"sentiment": "warm", "relations": ["#
                       + graphCLIRelation("person", "me", "visited", "person", "Anna", 0.7) + ", "
                       + graphCLIRelation("person", "Anna", "lives in", "place", "Lisbon", 1) + "]}")
        let byName = try jv.node("anna")
        #expect(jsonKeys(byName) == ["id", "type", "name", "created_at", "relations"])
        let annaID = try #require(byName["id"]?.stringValue)
        #expect(try jv.node("  ANNA ") == byName)
        #expect(try jv.node(annaID) == byName)
        #expect(try jv.node(String(annaID.prefix(8))) == byName)
        #expect(byName["name"] == .string("Anna"))

        let me = try #require(try jv.node("me")["id"]?.stringValue)
        let lisbon = try #require(try jv.node("LISBON")["id"]?.stringValue)
        let relations = try #require(byName["relations"]?.arrayValue)
        #expect(relations.count == 2)
        for relation in relations {
            #expect(jsonKeys(relation) == ["id", "from", "to", "type", "strength", "entry_id"])
            #expect(relation["entry_id"] == .string(entry))
        }
        let incoming = try #require(relations.first { $0["to"] == .string(annaID) })
        let outgoing = try #require(relations.first { $0["from"] == .string(annaID) })
        #expect(incoming["from"] == .string(me))
        #expect(incoming["type"] == .string("visited"))
        #expect(incoming["strength"]?.doubleValue == 0.7)
        #expect(outgoing["to"] == .string(lisbon))
        #expect(outgoing["type"] == .string("lives in"))
        #expect(outgoing["strength"]?.doubleValue == 1)
        #expect(try jv.node("lisbon")["relations"]?.arrayValue?.count == 1)

        let text = try jv.ok(["graph", "show", "Anna"]).out
        #expect(text.contains("Anna (person)"))
        #expect(text.contains("← visited ← me (person)"))
        #expect(text.contains("→ lives in → Lisbon (place)"))
    }

    @Test func unknownOrAmbiguousNodesAreRefused() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Paris the friend, Paris the city."]).printedID()
        try jv.analyse(entry, answer: #"{"themes": [], "nodes": [{"type": "person", "name": "Paris"}, {"type": "place", "name": "Paris"}]}"#)
        try jv.fails(["graph", "show", "Nobody"], status: 66)
        try jv.fails(["graph", "show", "ffffffff-ffff-4fff-bfff-ffffffffffff"], status: 66)
        try jv.fails(["graph", "show", "paris"], status: 64)
        // Either one by its id still works.
        for node in try jv.nodes() {
            let id = try #require(node["id"]?.stringValue)
            #expect(try jv.node(id)["type"] == node["type"])
        }
    }

    @Test func deletingAnEntryDeletesTheRelationsLearntFromItButKeepsTheNodes() throws {
        let jv = try Sandbox(from: .empty())
        let doomed = try jv.ok(["add", "Walked with Anna."]).printedID()
        let kept = try jv.ok(["add", "Called Anna."]).printedID()
        try jv.analyse(doomed, answer: #"{"sentiment": "calm", "relations": ["# + graphCLIRelation("person", "me", "walked with", "person", "Anna", 0.8) + "]}")
        try jv.analyse(kept, answer: #"{"sentiment": "busy", "relations": ["# + graphCLIRelation("person", "me", "called", "person", "anna", 0.4) + "]}")
        #expect(try jv.node("anna")["relations"]?.arrayValue?.count == 2)

        try jv.ok(["delete", doomed, "--yes"])
        let relations = try #require(try jv.node("anna")["relations"]?.arrayValue)
        #expect(relations.count == 1)
        #expect(relations.first?["type"] == .string("called"))
        #expect(relations.first?["entry_id"] == .string(kept))
        #expect(try jv.nodes().count == 2)
        let counts = try jv.counts()
        #expect(counts["relations"] == .integer(1))
        #expect(counts["analyses"] == .integer(1))
        #expect(counts["nodes"] == .integer(2))
        #expect(try jv.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))
    }

    @Test func infoAndCheckCountTheGraph() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.ok(["add", "Counting."]).printedID()
        try jv.analyse(entry, answer: #"{"sentiment": "ok", "nodes": [{"type": "topic", "name": "work"}], "relations": ["#
                       + graphCLIRelation("person", "me", "likes", "topic", "Work", 0.5) + ", "
                       + graphCLIRelation("person", "me", "dislikes", "topic", "mondays", 0.2) + "]}")
        let counts = try jv.counts()
        #expect(counts["entries"] == .integer(1))
        #expect(counts["analyses"] == .integer(1))
        #expect(counts["nodes"] == .integer(3))
        #expect(counts["relations"] == .integer(2))
        #expect(counts["threads"] == .integer(0))
        #expect(counts["messages"] == .integer(0))
        let check = try jv.ok(["check", "--json"]).jsonValue()
        #expect(check["ok"] == .bool(true))
        #expect(check["checked"]?["knowledge_node"] == .integer(3))
        #expect(check["checked"]?["analysis"] == .integer(1))
        let text = try jv.ok(["info"]).out
        #expect(text.contains("nodes"))
        #expect(text.contains("relations"))
    }

    @Test func theGraphCommandsNeedThePassphrase() throws {
        let jv = try Sandbox(from: .empty())
        let wrong = try jv.folder.write("wrong", "not the passphrase\n")
        try jv.fails(["graph", "list", "--passphrase-file", wrong], status: 77)
        try jv.fails(["graph", "show", "anna", "--passphrase-file", wrong], status: 77)
    }

    @Test func graphMergeMovesTheRelationsDeletesTheMergedNodeAndPrintsTheDocumentedShape() throws {
        let jv = try Sandbox(from: .empty())
        _ = try jv.bensAndBennys()
        let ben = try jv.node("ben"), benny = try jv.node("benny")
        let merged = try jv.ok(["graph", "merge", "Ben", String(try #require(benny["id"]?.stringValue).prefix(8)), "--json"])
        let json = try merged.jsonValue()
        #expect(jsonKeys(json) == ["id", "type", "name", "created_at", "merged_id", "relations_moved", "relations_collapsed", "relations_dropped"])
        #expect(json["id"] == ben["id"] && json["name"] == .string("Ben") && json["created_at"] == ben["created_at"])
        #expect(json["merged_id"] == benny["id"])
        #expect(json["relations_moved"] == .integer(1) && json["relations_collapsed"] == .integer(2) && json["relations_dropped"] == .integer(1))

        #expect(Set(try jv.nodes().compactMap { $0["name"]?.stringValue }) == ["me", "Ben", "Lisbon"])
        try jv.fails(["graph", "show", "benny"], status: 66)
        #expect(try jv.relationLines("ben") == ["Ben lives in Lisbon 1.0", "Ben visited Lisbon 0.8", "me knows Ben 0.9"])
        let counts = try jv.counts()
        #expect(counts["nodes"] == .integer(3) && counts["relations"] == .integer(3))
        #expect(try jv.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))
    }

    @Test func graphMergeWithoutJSONSaysWhatItDidOnStandardError() throws {
        let jv = try Sandbox(from: .empty())
        _ = try jv.bensAndBennys()
        let merged = try jv.ok(["graph", "merge", "ben", "benny"])
        #expect(merged.out.isEmpty)
        #expect(merged.err.hasPrefix("Merged “Benny” into “Ben” ("), "\(merged)")
        #expect(merged.err.contains("1 relation moved, 2 collapsed into one it had, 1 between the two deleted."), "\(merged)")
    }

    @Test func graphMergeRefusesTheSameNodeMissingAndAmbiguousNodesAndWritesNothing() throws {
        let jv = try Sandbox(from: .empty())
        let entry = try jv.bensAndBennys()
        try jv.analyse(entry, answer: #"{"themes": [], "nodes": [{"type": "person", "name": "Paris"}, {"type": "place", "name": "Paris"}]}"#)
        let before = try jv.graphAndManifest()
        let ben = try #require(try jv.node("ben")["id"]?.stringValue)
        for (arguments, status) in [(["ben", "BEN"], Int32(65)), (["ben", ben], 65), (["ben", "Nobody"], 66), (["Nobody", "ben"], 66),
                                    (["ben", "ffffffff-ffff-4fff-bfff-ffffffffffff"], 66), (["ben", "paris"], 64)] {
            let refused = try jv.fails(["graph", "merge"] + arguments + ["--json"], status: status)
            #expect(refused.out.isEmpty, "\(arguments): \(refused)")
            #expect(refused.err.split(separator: "\n").count == 1, "one sentence: \(refused)")
        }
        #expect(try jv.run(["graph", "merge", "ben", "ben"]).err.contains("itself"))
        #expect(try jv.graphAndManifest() == before, "a refused merge writes nothing")
    }

    @Test func graphDeleteDeletesTheNodeAndItsRelationsAndPrintsTheDocumentedShape() throws {
        let jv = try Sandbox(from: .empty())
        _ = try jv.bensAndBennys()
        let benny = try jv.node("benny")
        let deleted = try jv.ok(["graph", "delete", "benny", "--yes", "--json"]).jsonValue()
        #expect(jsonKeys(deleted) == ["id", "type", "name", "created_at", "relations_deleted"])
        #expect(deleted["id"] == benny["id"] && deleted["name"] == .string("Benny"))
        #expect(deleted["relations_deleted"] == .integer(4))
        try jv.fails(["graph", "show", "benny"], status: 66)
        #expect(try jv.relationLines("ben") == ["Ben visited Lisbon 0.8", "me knows Ben 0.4"])
        #expect(try jv.counts()["relations"] == .integer(2))
        #expect(try jv.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))

        // Without a terminal to ask on it goes ahead, as the other deletes do; a missing node is 66 and writes nothing.
        let said = try jv.ok(["graph", "delete", "lisbon"])
        #expect(said.out.isEmpty && said.err.hasPrefix("Deleted node ") && said.err.contains(" and 1 relation."), "\(said)")
        let before = try jv.graphAndManifest()
        try jv.fails(["graph", "delete", "benny", "--yes"], status: 66)
        #expect(try jv.graphAndManifest() == before)
    }

    /// A merge on one machine and a delete on the other reach each other through `jv sync`:
    /// both end with one Ben, the same relations, and pass `jv check`.
    @Test func aMergeAndADeleteTravelThroughSync() throws {
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("location") })
        let (first, second) = (machines.first, machines.second)
        _ = try first.bensAndBennys()
        try first.analyse(try first.ok(["add", "Mondays."]).printedID(),
                          answer: #"{"sentiment": "low", "relations": ["# + graphCLIRelation("person", "me", "dislikes", "topic", "Mondays", 0.3) + "]}")
        try machines.converge()
        #expect(try second.nodes().count == 5)

        try first.ok(["graph", "merge", "ben", "benny"])
        try second.ok(["graph", "delete", "mondays", "--yes"])
        try machines.converge()
        for machine in [first, second] {
            #expect(Set(try machine.nodes().compactMap { $0["name"]?.stringValue }) == ["me", "Ben", "Lisbon"])
            #expect(try machine.relationLines("ben") == ["Ben lives in Lisbon 1.0", "Ben visited Lisbon 0.8", "me knows Ben 0.9"])
            #expect(try machine.counts()["relations"] == .integer(3))
            #expect(try machine.ok(["check", "--json"]).jsonValue()["ok"] == .bool(true))
        }
        #expect(try first.graphAndManifest().dropLast() == second.graphAndManifest().dropLast())
    }
}
