// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv tags` (jrnl's `--tags`): every tag with how many entries carry it.
@Suite(.tags(.e2e)) struct TagsCommandTests {
    @Test("jv tags counts inline and explicit tags per entry, most used first, within --from/--to; --json gives {tag, count}")
    func tagsWithCounts() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Tokyo night. #travel #Travel", ["--at", "2026-01-05 21:00"])
        try sandbox.add("Kyoto temples. #travel with @Anna", ["--at", "2026-02-10 10:00"])
        try sandbox.add("Back at work.", ["--at", "2026-03-01 09:00", "--tag", "work"])
        let all = try sandbox.run(["tags", "--json"])
        #expect(all.status == 0, "\(all)")
        let counts = try all.array().map { "\($0["tag"] as? String ?? "?")=\($0["count"] as? Int ?? -1)" }
        // #travel and #Travel are one tag (case folding), counted once per entry.
        #expect(counts == ["travel=2", "anna=1", "work=1"], "\(counts)")
        let february = try sandbox.run(["tags", "--from", "2026-02-01", "--to", "2026-02-28", "--json"]).array()
        #expect(february.map { $0["tag"] as? String } == ["anna", "travel"])
        let text = try sandbox.run(["tags"])
        #expect(text.lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["travel", "2"], "\(text)")
        let none = try sandbox.run(["tags", "--from", "2030-01-01"])
        #expect(none.status == 0 && none.out.isEmpty && none.err.contains("No tags"), "\(none)")
        #expect(try sandbox.run(["tags", "--from", "2026-03-01", "--to", "2026-01-01"]).status == 64)
    }
}
