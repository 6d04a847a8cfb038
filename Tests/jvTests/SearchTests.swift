// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@Suite("jv search", .tags(.e2e))
struct SearchTests {
    private static let fixture = Result {
        try Fixture { sandbox in
            [
                "0": try sandbox.add("Breakfast at the CAFÉ near the station", ["--at", "2026-02-01T08:00"]),
                "1": try sandbox.add("Nothing to report", ["--at", "2026-02-02T08:00"]),
                "2": try sandbox.add("Second visit to the cafe, naïve coffee art", ["--at", "2026-02-03T08:00"]),
                "3": try sandbox.add("Résumé sent; then a café crème", ["--at", "2026-02-04T23:59"]),
                "4": try sandbox.add("Lunch in the cafeteria: cafe cafe cafe", ["--at", "2026-01-15T12:00"]),
            ]
        }
    }

    private func journal() throws -> (Sandbox, [String]) {
        let fixture = try Self.fixture.get()
        return (try Sandbox(from: fixture), (0..<5).map { fixture[String($0)] })
    }

    private func search(_ sandbox: Sandbox, _ arguments: [String]) throws -> [String] {
        let result = try sandbox.run(["search", "--json"] + arguments)
        #expect(result.status == 0, "\(result)")
        return try result.array().ids
    }

    @Test("finds whole words across entries, case- and diacritic-insensitively, newest first",
          arguments: ["cafe", "CAFÉ", "Café", "cAfE"])
    func insensitive(query: String) throws {
        let (sandbox, ids) = try journal()
        #expect(try search(sandbox, [query]) == [ids[3], ids[2], ids[0], ids[4]])
    }

    @Test("every word must match; accents in the text or the query; no match")
    func words() throws {
        let (sandbox, ids) = try journal()
        #expect(try search(sandbox, ["resume"]) == [ids[3]])
        #expect(try search(sandbox, ["NAIVE"]) == [ids[2]])
        #expect(try search(sandbox, ["near the station"]) == [ids[0]], "one argument of several words")
        #expect(try search(sandbox, ["station", "breakfast"]) == [ids[0]], "words as separate arguments")
        #expect(try search(sandbox, ["station", "lunch"]).isEmpty)
        #expect(try search(sandbox, ["zebra"]).isEmpty)
    }

    @Test("phrases, prefixes, OR and exclusions")
    func language() throws {
        let (sandbox, ids) = try journal()
        #expect(try search(sandbox, ["\"the station\""]) == [ids[0]])
        #expect(try search(sandbox, ["\"station the\""]).isEmpty, "a phrase keeps its order")
        #expect(try search(sandbox, ["cafeteria"]) == [ids[4]])
        #expect(try search(sandbox, ["caf*"]) == [ids[3], ids[2], ids[0], ids[4]])
        #expect(try search(sandbox, ["\"the cafe\"*"]) == [ids[2], ids[0], ids[4]], "the last word of a phrase as a prefix")
        #expect(try search(sandbox, ["report OR crème"]) == [ids[3], ids[1]])
        #expect(try search(sandbox, ["cafe -coffee"]) == [ids[3], ids[0], ids[4]])
        #expect(try search(sandbox, ["--", "-cafe"]) == [ids[1]], "exclusions alone: every other entry")
        #expect(try search(sandbox, ["cafe", "--rank"]) == [ids[4], ids[3], ids[0], ids[2]], "three times cafe ranks first, then the shorter texts")
    }

    @Test("--count: one number, or per kind and in total with --json")
    func count() throws {
        let (sandbox, _) = try journal()
        let text = try sandbox.run(["search", "--count", "cafe"])
        #expect(text.status == 0, "\(text)")
        #expect(text.out == "4\n")
        let none = try sandbox.run(["search", "--count", "zebra"])
        #expect(none.out == "0\n" && none.err.isEmpty, "\(none)")
        let json = try sandbox.run(["search", "--count", "--json", "cafe"])
        #expect(json.status == 0, "\(json)")
        #expect(try json.jsonValue() == .object([("entries", .integer(4)), ("chat_messages", .integer(0)), ("analyses", .integer(0)),
                                                ("total", .integer(4))]))
        let entries = try sandbox.run(["search", "--count", "--json", "--kind", "entry", "cafe"])
        #expect(try entries.jsonValue() == .object([("entries", .integer(4)), ("total", .integer(4))]))
    }

    @Test("a query that cannot be read: one sentence, exit 64, nothing on standard output",
          arguments: [("\"green tea", "quote"), ("tea OR", "OR"), ("a OR -b", "excluded"), ("!!!", "no word")])
    func badQueries(query: String, word: String) throws {
        let (sandbox, _) = try journal()
        let result = try sandbox.run(["search", query])
        #expect(result.status == 64, "\(result)")
        #expect(result.out.isEmpty)
        #expect(result.err.split(separator: "\n").count == 1 && result.err.contains(word), "\(result.err)")
    }

    @Test("--from and --to restrict by day, --to inclusive")
    func dateRange() throws {
        let (sandbox, ids) = try journal()
        #expect(try search(sandbox, ["cafe", "--from", "2026-02-02"]) == [ids[3], ids[2]])
        #expect(try search(sandbox, ["cafe", "--to", "2026-02-03"]) == [ids[2], ids[0], ids[4]])
        #expect(try search(sandbox, ["cafe", "--from", "2026-02-03", "--to", "2026-02-04"]) == [ids[3], ids[2]])
        #expect(try search(sandbox, ["cafe", "--from", "2026-02-05"]).isEmpty)
        let bad = try sandbox.run(["search", "cafe", "--from", "soonish"])
        #expect(bad.status == 64, "\(bad)")
    }

    @Test("--json prints one array of entry records; text output shows the matching entries only, without escapes in a pipe")
    func outputs() throws {
        let (sandbox, ids) = try journal()
        let json = try sandbox.run(["search", "--json", "--kind", "entry", "crème"])
        #expect(json.status == 0, "\(json)")
        let records = try json.array()
        #expect(records.ids == [ids[3]])
        #expect(records.first?["content"] as? String == "Résumé sent; then a café crème")
        let text = try sandbox.run(["search", "station"])
        #expect(text.status == 0, "\(text)")
        #expect(text.out.contains("Breakfast at the CAFÉ near the station"))
        #expect(!text.out.contains("Nothing to report"))
        #expect(!text.stdout.contains(0x1B), "no highlighting into a pipe")
        let none = try sandbox.run(["search", "--json", "absent"])
        #expect(try none.array().isEmpty)
        let noneText = try sandbox.run(["search", "absent"])
        #expect(noneText.out.isEmpty && noneText.err.contains("Nothing matches"), "\(noneText)")
    }

    @Test("search needs the passphrase: a wrong one exits 77 and prints nothing")
    func needsPassphrase() throws {
        let (sandbox, _) = try journal()
        let wrong = try sandbox.folder.write("wrong.txt", "not it\n")
        let result = try sandbox.run(["search", "cafe"], env: ["JV_PASSPHRASE_FILE": wrong])
        #expect(result.status == 77, "\(result)")
        #expect(result.out.isEmpty)
    }
}
