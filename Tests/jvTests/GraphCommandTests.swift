// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// `jv graph list|show` end to end (FORMAT.md §1, README "JSON"): the knowledge
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
}
