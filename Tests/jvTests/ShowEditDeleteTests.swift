// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

@Suite("jv show, edit and delete", .tags(.e2e))
struct ShowEditDeleteTests {
    /// The shortest prefix (at least 4 characters) of `id` that no other id in `others` shares.
    private func uniquePrefix(_ id: String, among others: [String]) -> String {
        var length = 4
        while others.contains(where: { $0 != id && $0.hasPrefix(id.prefix(length)) }) { length += 1 }
        return String(id.prefix(length))
    }

    @Test("show by full id, by a unique prefix of 4+ characters and in upper case")
    func showByIDAndPrefix() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Rain all day. Read a book. #reading", ["--at", "2026-04-01T18:00"])
        let other = try sandbox.add("Another day")
        let full = try sandbox.show(id)
        #expect(full["id"] as? String == id)
        #expect(full["content"] as? String == "Rain all day. Read a book. #reading")
        #expect(full["title"] as? String == "Rain all day.")
        #expect(full["tags"] as? [String] == ["reading"])
        let prefix = uniquePrefix(id, among: [id, other])
        for form in [prefix, String(id.prefix(8)), String(id.prefix(13)), id.uppercased()] {
            let result = try sandbox.run(["show", "--json", form])
            #expect(result.status == 0, "\(result)")
            #expect(try result.object()["id"] as? String == id, "\(form)")
        }
        let text = try sandbox.run(["show", prefix])
        #expect(text.status == 0, "\(text)")
        #expect(text.out.contains("Rain all day. Read a book. #reading"), "\(text)")
        #expect(text.out.contains(id), "the full id is shown: \(text)")
        #expect(!text.out.contains("Another day"))
    }

    /// A vault holding one entry, "still here" (made once, copied per test).
    private static let oneEntry = Result { try Fixture { sandbox in ["id": try sandbox.add("still here")] } }

    @Test("an id prefix shorter than 4 characters or not hexadecimal exits 64",
          arguments: ["show", "edit", "delete"], ["abc", "a", "zzzz", "12345678-xyz"])
    func shortOrBadPrefix(command: String, prefix: String) throws {
        let fixture = try Self.oneEntry.get()
        let sandbox = try Sandbox(from: fixture)
        let id = fixture["id"]
        // A real prefix of the entry's id, when the case calls for one, so only the length is wrong.
        let argument = prefix == "abc" ? String(id.prefix(3)) : prefix
        let arguments = command == "delete" ? [command, "--yes", argument] : [command, argument]
        let result = try sandbox.run(arguments, stdin: command == "edit" ? Data("new text".utf8) : nil)
        #expect(result.status == 64, "\(result)")
        #expect(result.out.isEmpty)
        #expect(try sandbox.list().contents == ["still here"])
    }

    @Test("a prefix that matches nothing exits 66", arguments: ["show", "edit", "delete"])
    func unknownID(command: String) throws {
        let fixture = try Self.oneEntry.get()
        let sandbox = try Sandbox(from: fixture)
        let id = fixture["id"]
        let missing = id.hasPrefix("0000") ? "ffff" : "0000"
        for argument in [missing, missing + "0000-0000-0000-0000-000000000000"] {
            let arguments = command == "delete" ? [command, "--yes", argument] : [command, argument]
            let result = try sandbox.run(arguments, stdin: command == "edit" ? Data("new text".utf8) : nil)
            #expect(result.status == 66, "\(result)")
            #expect(result.errorLines.count == 1, "\(result)")
        }
        #expect(try sandbox.list().contents == ["still here"])
    }

    @Test("an ambiguous prefix exits 64 for show, edit and delete, and changes nothing")
    func ambiguousPrefix() throws {
        let sandbox = try Sandbox()
        let recoveryKey = try sandbox.installEmptyVault()
        // Ids cannot be chosen from the command line; store two entries whose ids share the
        // prefix "abcd1" through the library's import API, as an import would.
        let vault = try Vault.open(at: sandbox.vault)
        let journal = try vault.unlock(recoveryKey: try RecoveryKey(text: recoveryKey))
        let first = try #require(UUID(uuidString: "abcd1234-0000-4000-8000-000000000001"))
        let second = try #require(UUID(uuidString: "abcd1999-0000-4000-8000-000000000002"))
        let when = Instant(millis: 1_767_600_000_000, utcOffsetSeconds: 0)
        try journal.addEntries([
            Entry(id: first, content: "first twin", created: when, modifiedAt: when.millis),
            Entry(id: second, content: "second twin", created: when, modifiedAt: when.millis),
        ])
        #expect(try sandbox.list().count == 2)

        for arguments in [["show", "abcd"], ["show", "ABCD1"], ["edit", "abcd1"], ["delete", "--yes", "abcd"], ["delete", "abcd1"]] {
            let result = try sandbox.run(arguments, stdin: arguments[0] == "edit" ? Data("replaced".utf8) : nil)
            #expect(result.status == 64, "\(result)")
            #expect(result.out.isEmpty, "\(result)")
            #expect(result.errorLines.count == 1, "\(result)")
        }
        #expect(Set(try sandbox.list().contents) == ["first twin", "second twin"])
        // One more character makes each unique.
        #expect(try sandbox.show("abcd12")["content"] as? String == "first twin")
        #expect(try sandbox.show("abcd19")["content"] as? String == "second twin")
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("edit ID with new text on standard input changes content and modified_at, keeps created_at")
    func editText() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Draft about #cats", ["--at", "2026-05-05T07:30+02:00", "--star"])
        let before = try sandbox.show(id)
        let result = try sandbox.run(["edit", String(id.prefix(8))], input: "Final text about @dogs\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.out.trimmingCharacters(in: .whitespacesAndNewlines) == id, "edit prints the id: \(result)")
        let after = try sandbox.show(id)
        #expect(after["content"] as? String == "Final text about @dogs")
        #expect(after["tags"] as? [String] == ["dogs"])
        #expect(after["created_at"] as? String == before["created_at"] as? String)
        #expect(after["local_day"] as? String == "2026-05-05")
        #expect(after["starred"] as? Bool == true, "the star is kept")
        let oldModified = try #require(before["modified_at"] as? String)
        let newModified = try #require(after["modified_at"] as? String)
        #expect(newModified != oldModified)
        #expect(try #require(parseTimestamp(newModified)) > (try #require(parseTimestamp(oldModified))))
        #expect(try sandbox.list(["--tag", "cats"]).isEmpty, "the old inline tag is gone")
        #expect(try sandbox.list(["--tag", "dogs"]).ids == [id])
        #expect(try sandbox.entryCount() == 1)
    }

    @Test("edit keeps the tags given with --tag and replaces the inline ones")
    func editKeepsExplicitTags() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Planted #roses", ["--tag", "garden"])
        #expect(try sandbox.run(["edit", id], input: "Planted #tulips instead").status == 0)
        #expect(Set(try sandbox.show(id)["tags"] as? [String] ?? []) == ["tulips", "garden"])
        #expect(try sandbox.list(["--tag", "garden"]).ids == [id])
        #expect(try sandbox.list(["--tag", "roses"]).isEmpty)
    }

    @Test("edit --star with empty standard input keeps the content; --unstar undoes it")
    func editStar() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Keep these words")
        let starred = try sandbox.run(["edit", id, "--star"], input: "")
        #expect(starred.status == 0, "\(starred)")
        var entry = try sandbox.show(id)
        #expect(entry["starred"] as? Bool == true)
        #expect(entry["content"] as? String == "Keep these words")
        let unstarred = try sandbox.run(["edit", id, "--unstar"])
        #expect(unstarred.status == 0, "\(unstarred)")
        entry = try sandbox.show(id)
        #expect(entry["starred"] as? Bool == false)
        #expect(entry["content"] as? String == "Keep these words")
        #expect(try sandbox.run(["edit", id, "--star", "--unstar"], input: "").status == 64)
    }

    @Test("edit --at moves the entry to another day and keeps its text")
    func editAt() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Moved entry", ["--at", "2026-06-10T12:00"])
        let result = try sandbox.run(["edit", id, "--at", "2026-06-01T21:15+09:00"], input: "")
        #expect(result.status == 0, "\(result)")
        let entry = try sandbox.show(id)
        #expect(entry["local_day"] as? String == "2026-06-01")
        #expect((entry["created_at"] as? String)?.hasPrefix("2026-06-01T21:15") == true, "\(entry)")
        #expect(entry["content"] as? String == "Moved entry")
        #expect(try sandbox.list(["--on", "2026-06-01"]).ids == [id])
        #expect(try sandbox.list(["--on", "2026-06-10"]).isEmpty)
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("edit with blank, oversized or invalid UTF-8 input exits 65 and keeps the entry")
    func editBlank() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let id = try sandbox.add("Unchanged")
        let before = try sandbox.show(id)
        let result = try sandbox.run(["edit", id], input: "  \n")
        #expect(result.status == 65, "\(result)")
        let after = try sandbox.show(id)
        #expect(after["content"] as? String == "Unchanged")
        #expect(after["modified_at"] as? String == before["modified_at"] as? String)
        for bytes in [Data(String(repeating: "x", count: 50_001).utf8), Data([0x66, 0x6F, 0xFF])] {
            let refused = try sandbox.run(["edit", id], stdin: bytes)
            #expect(refused.status == 65, "\(refused)")
        }
        #expect(try sandbox.show(id)["content"] as? String == "Unchanged")
        let badDate = try sandbox.run(["edit", id, "--at", "whenever"], input: "")
        #expect(badDate.status == 64, "\(badDate)")
        #expect(try sandbox.show(id)["modified_at"] as? String == before["modified_at"] as? String)
    }

    @Test("delete --yes, and delete without --yes when standard input is not a terminal")
    func deleteEntries() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let first = try sandbox.add("first to go")
        let second = try sandbox.add("second to go")
        let third = try sandbox.add("third to go")
        let keeper = try sandbox.add("the keeper")

        let withYes = try sandbox.run(["delete", "--yes", first])
        #expect(withYes.status == 0, "\(withYes)")
        let fromDevNull = try sandbox.run(["delete", uniquePrefix(second, among: [first, second, third, keeper])])
        #expect(fromDevNull.status == 0, "\(fromDevNull)")
        let fromPipe = try sandbox.run(["delete", third], input: "n\n")
        #expect(fromPipe.status == 0, "stdin is not a terminal: no question is asked: \(fromPipe)")

        #expect(try sandbox.list().ids == [keeper])
        #expect(try sandbox.entryCount() == 1)
        for id in [first, second, third] {
            let shown = try sandbox.run(["show", id])
            #expect(shown.status == 66, "\(shown)")
            let again = try sandbox.run(["delete", "--yes", id])
            #expect(again.status == 66, "\(again)")
        }
        #expect(try sandbox.run(["check"]).status == 0)
    }
}

/// An ISO 8601 timestamp with fractional seconds and an offset, as `jv` prints them.
fileprivate func parseTimestamp(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
}
