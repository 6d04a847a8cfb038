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
            ]
        }
    }

    private func journal() throws -> (Sandbox, [String]) {
        let fixture = try Self.fixture.get()
        return (try Sandbox(from: fixture), (0..<4).map { fixture[String($0)] })
    }

    private func search(_ sandbox: Sandbox, _ arguments: [String]) throws -> [String] {
        let result = try sandbox.run(["search", "--json"] + arguments)
        #expect(result.status == 0, "\(result)")
        return try result.array().ids
    }

    @Test("finds text across entries, case- and diacritic-insensitively",
          arguments: ["cafe", "CAFÉ", "Café", "cAfE"])
    func insensitive(query: String) throws {
        let (sandbox, ids) = try journal()
        #expect(try search(sandbox, [query]) == [ids[0], ids[2], ids[3]])
    }

    @Test("other queries: accents in the text or the query, several words, no match")
    func otherQueries() throws {
        let (sandbox, ids) = try journal()
        #expect(try search(sandbox, ["resume"]) == [ids[3]])
        #expect(try search(sandbox, ["NAIVE"]) == [ids[2]])
        #expect(try search(sandbox, ["near the station"]) == [ids[0]])
        #expect(try search(sandbox, ["zebra"]).isEmpty)
    }

    @Test("--from and --to restrict by day, --to inclusive")
    func dateRange() throws {
        let (sandbox, ids) = try journal()
        #expect(try search(sandbox, ["cafe", "--from", "2026-02-02"]) == [ids[2], ids[3]])
        #expect(try search(sandbox, ["cafe", "--to", "2026-02-03"]) == [ids[0], ids[2]])
        #expect(try search(sandbox, ["cafe", "--from", "2026-02-03", "--to", "2026-02-04"]) == [ids[2], ids[3]])
        #expect(try search(sandbox, ["cafe", "--from", "2026-02-05"]).isEmpty)
        let bad = try sandbox.run(["search", "cafe", "--from", "soonish"])
        #expect(bad.status == 64, "\(bad)")
    }

    @Test("--json prints one array of entry records; text output shows the matching entries only")
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
        let none = try sandbox.run(["search", "--json", "absent"])
        #expect(try none.array().isEmpty)
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
