// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// The example analyser examples/vader/analyser.py (README "A real analyser: VADER") run by the
// built jv, in the virtual environment examples/vader/setup.sh makes (make test-deps): VADER's
// sentiment and the people and places of its capitalised-run rule reach the vault. Without
// that environment the test fails, naming the set-up.

@Suite(.tags(.e2e, .externalTools)) struct VaderAnalyserTests {
    @Test func sentimentSignsPeopleAndPlacesAreStored() throws {
        let command = try Examples.vaderCommand()
        let jv = try Sandbox(from: .empty())
        let happy = try jv.ok(["add", "Walked with Anna Berg in Lisbon today. A wonderful, happy day; I loved every minute of it."]).printedID()
        let sad = try jv.ok(["add", "Terrible news from Marco. I feel awful, sad and angry, and the trip is cancelled."]).printedID()
        let flat = try jv.ok(["add", "Bought bread."]).printedID()
        let printed = try #require(try jv.ok(["analyze", happy, sad, flat, "--json", "--command", command]).jsonValue().arrayValue)
        let byEntry = Dictionary(printed.compactMap { analysis in analysis["entry_id"]?.stringValue.map { ($0, analysis) } },
                                 uniquingKeysWith: { first, _ in first })
        #expect(byEntry[happy]?["sentiment"] == .string("positive"))
        #expect(byEntry[sad]?["sentiment"] == .string("negative"))
        #expect(byEntry[flat]?["sentiment"] == .string("neutral"))
        #expect(Set(printed.compactMap { $0["model"] }) == [.string("vader")], "the answer's model is stored")
        #expect(byEntry[happy]?["entities"] == .object([("people", .array([.string("Anna Berg")])), ("places", .array([.string("Lisbon")]))]))
        #expect(byEntry[sad]?["entities"] == .object([("people", .array([.string("Marco")])), ("places", .array([]))]))
        #expect(byEntry[flat]?["entities"] == .object([("people", .array([])), ("places", .array([]))]), "a sentence's first word is no name")
        #expect(try jv.ok(["analysis", "list", "--json"]).jsonValue().arrayValue?.count == 3)
        let nodes = try #require(try jv.ok(["graph", "list", "--json"]).jsonValue().arrayValue)
        #expect(Set(nodes.compactMap { node in node["name"]?.stringValue.map { "\(node["type"]?.stringValue ?? "?"):\($0)" } })
                == ["person:me", "person:Anna Berg", "place:Lisbon", "person:Marco"])
        let anna = try #require(try jv.ok(["graph", "show", "anna berg", "--json"]).jsonValue()["relations"]?.arrayValue)
        #expect(anna.map { $0["entry_id"] } == [.string(happy)])
    }
}
