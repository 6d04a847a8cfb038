// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@Suite("jv add", .tags(.e2e))
struct AddTests {
    @Test("add from arguments prints the full id alone on a line; the words are joined with spaces")
    func addFromArguments() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add", "Walked", "to", "the", "harbour."])
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1, "\(result)")
        let id = try #require(result.lines.first)
        #expect(matches(id, uuidPattern), "\(result)")
        let entries = try sandbox.list()
        #expect(entries.ids == [id])
        #expect(entries.contents == ["Walked to the harbour."])
    }

    @Test("add from standard input keeps line breaks and trims the ends")
    func addFromStandardInput() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add"], input: "\n  First line\nsecond line\n\n")
        #expect(result.status == 0, "\(result)")
        let id = result.out.trimmingCharacters(in: .newlines)
        #expect(matches(id, uuidPattern), "\(result)")
        let entry = try sandbox.show(id)
        #expect(entry["content"] as? String == "First line\nsecond line")
        #expect(entry["title"] as? String == "First line")
    }

    @Test("add --json prints the entry with exactly id, created_at, modified_at, local_day, starred, tags, title, content, in that order")
    func addJSONShape() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add", "--json", "Lunch with @anna. Long talk about #work."])
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        let keys = ["id", "created_at", "modified_at", "local_day", "starred", "tags", "title", "content"]
        #expect(Set(object.keys) == Set(keys))
        let positions = keys.map { result.out.range(of: "\"\($0)\"")?.lowerBound }
        #expect(!positions.contains(nil), "\(result)")
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "keys out of order: \(result)")
        #expect(matches(object["id"] as? String ?? "", uuidPattern))
        #expect(object["starred"] as? Bool == false)
        #expect(object["tags"] as? [String] == ["anna", "work"])
        #expect(object["title"] as? String == "Lunch with @anna.")
        #expect(object["content"] as? String == "Lunch with @anna. Long talk about #work.")
        // ISO 8601 with an offset; a new entry's created_at and modified_at agree.
        let created = try #require(object["created_at"] as? String)
        #expect(matches(created, "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$"), "\(created)")
        #expect(object["modified_at"] as? String == created)
        #expect(object["local_day"] as? String == String(created.prefix(10)))
        // What add printed is what is stored.
        let shown = try sandbox.show(object["id"] as! String)
        for key in keys where key != "tags" && key != "starred" {
            #expect(shown[key] as? String == object[key] as? String, "\(key)")
        }
    }

    @Test("any text survives the round trip through --json exactly (quotes, backslashes, controls, emoji, U+2028, NUL)")
    func jsonEscaping() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let text = "Quote \" back\\slash\ttab\nnew line \u{01} ctrl \u{7F} del 🦄 \u{2028} sep \u{0} nul é e\u{301} end"
        let added = try sandbox.run(["add", "--json"], stdin: Data(text.utf8))
        #expect(added.status == 0, "\(added)")
        let object = try added.object()
        #expect(object["content"] as? String == text)
        #expect((object["content"] as? String)?.unicodeScalars.elementsEqual(text.unicodeScalars) == true, "not even normalised")
        let id = try #require(object["id"] as? String)
        #expect(try sandbox.show(id)["content"] as? String == text)
        #expect(try sandbox.list().contents == [text])
    }

    @Test("--at with a date alone and with an explicit offset")
    func addAtDateForms() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let day = try sandbox.addJSON("dated", ["--at", "2026-01-05"])
        #expect(day["local_day"] as? String == "2026-01-05")
        #expect((day["created_at"] as? String)?.hasPrefix("2026-01-05T") == true, "\(day)")

        let tokyo = try sandbox.addJSON("late in Tokyo", ["--at", "2026-01-05T23:30+09:00"])
        #expect(tokyo["local_day"] as? String == "2026-01-05", "the writer's day, not UTC's (2026-01-05T14:30Z)")
        let created = try #require(tokyo["created_at"] as? String)
        #expect(created.hasPrefix("2026-01-05T23:30"), "\(created)")
        #expect(created.hasSuffix("+09:00"), "\(created)")

        let west = try sandbox.addJSON("late in New York", ["--at", "2026-01-05T23:30-05:00"])
        #expect(west["local_day"] as? String == "2026-01-05", "UTC has 2026-01-06 already")
        #expect((west["created_at"] as? String)?.hasSuffix("-05:00") == true)
    }

    @Test("--at follows TZ for a date without an offset")
    func addAtUsesTimeZone() throws {
        let sandbox = try Sandbox(timeZone: "Asia/Tokyo")
        try sandbox.installEmptyVault()
        let entry = try sandbox.addJSON("in Tokyo", ["--at", "2026-03-01T08:15"])
        #expect(entry["local_day"] as? String == "2026-03-01")
        #expect(entry["created_at"] as? String == "2026-03-01T08:15:00.000+09:00")
    }

    @Test("--at 'yesterday 21:30' and '3 days ago' (TZ=UTC)")
    func addAtRelativeForms() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let before = (civilDay(offsetBy: -1), civilDay(offsetBy: -3))
        let yesterday = try sandbox.addJSON("last night", ["--at", "yesterday 21:30"])
        let threeDaysAgo = try sandbox.addJSON("a while ago", ["--at", "3 days ago"])
        let after = (civilDay(offsetBy: -1), civilDay(offsetBy: -3))
        let created = try #require(yesterday["created_at"] as? String)
        #expect([before.0, after.0].contains(yesterday["local_day"] as? String ?? ""), "\(yesterday)")
        #expect(created.dropFirst(10).hasPrefix("T21:30:00"), "\(created)")
        #expect(created.hasSuffix("+00:00") || created.hasSuffix("Z"), "\(created)")
        #expect([before.1, after.1].contains(threeDaysAgo["local_day"] as? String ?? ""), "\(threeDaysAgo)")
    }

    @Test("--at with a weekday name means the most recent such day (today included)",
          arguments: ["monday", "Wednesday", "SUNDAY", "fri"])
    func addAtWeekday(name: String) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let entry = try sandbox.addJSON("on a weekday", ["--at", name])
        let day = try #require(entry["local_day"] as? String)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let recent = (0..<7).map { civilDay(offsetBy: -$0) }
        #expect(recent.contains(day) || civilDay(offsetBy: -7) == day, "within the last week: \(day)")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let date = try #require(formatter.date(from: day))
        formatter.dateFormat = "EEEE"
        #expect(formatter.string(from: date).lowercased().hasPrefix(name.lowercased()), "\(day) is not a \(name)")
        #expect((entry["created_at"] as? String)?.dropFirst(10).hasPrefix("T09:00") == true, "a date alone means 09:00")
    }

    @Test("--star and tags from --tag (repeated) and inline @tags/#tags")
    func addStarAndTags() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let entry = try sandbox.addJSON("Met @Anna at the #Market, then #market again.",
                                        ["--star", "--tag", "Garden", "--tag", "#errands", "--tag", "anna"])
        #expect(entry["starred"] as? Bool == true)
        let tags = try #require(entry["tags"] as? [String])
        #expect(Set(tags) == ["anna", "market", "garden", "errands"], "\(tags)")
        #expect(tags.count == 4, "no repeats: \(tags)")
        let plain = try sandbox.addJSON("no tags here, e-mail a@b.c is not one")
        #expect(plain["starred"] as? Bool == false)
        #expect((plain["tags"] as? [String])?.contains("market") == false)
        #expect(try sandbox.list(["--starred"]).ids == [entry["id"] as? String ?? "?"])
    }

    @Test("blank standard input exits 65 and adds nothing", arguments: ["", "   ", "\n\n\t \r\n"])
    func blankInput(input: String) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add"], input: input)
        #expect(result.status == 65, "\(result)")
        #expect(result.out.isEmpty)
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(try sandbox.entryCount() == 0)
    }

    @Test("invalid UTF-8 on standard input exits 65 and adds nothing")
    func invalidUTF8() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for bytes in [Data([0xFF, 0xFE, 0x41]), Data("valid start ".utf8) + Data([0xC3, 0x28]), Data([0xED, 0xA0, 0x80])] {
            let result = try sandbox.run(["add"], stdin: bytes)
            #expect(result.status == 65, "\(result)")
            #expect(result.out.isEmpty)
        }
        #expect(try sandbox.entryCount() == 0)
    }

    @Test("50,000 characters are accepted, 50,001 are refused with 65 and nothing added")
    func contentLimit() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let exact = String(repeating: "a", count: 49_999) + "Z"
        let accepted = try sandbox.run(["add"], input: exact + "\n")
        #expect(accepted.status == 0, "\(accepted)")
        // Characters, not bytes: 50,000 two-byte characters are fine too.
        let accented = try sandbox.run(["add"], input: String(repeating: "é", count: 50_000))
        #expect(accented.status == 0, "\(accented)")
        #expect(try sandbox.entryCount() == 2)

        let tooLong = try sandbox.run(["add"], input: String(repeating: "b", count: 50_001))
        #expect(tooLong.status == 65, "\(tooLong)")
        #expect(tooLong.out.isEmpty)
        let tooLongAccented = try sandbox.run(["add"], input: String(repeating: "é", count: 50_001))
        #expect(tooLongAccented.status == 65, "\(tooLongAccented)")
        #expect(try sandbox.entryCount() == 2)

        let tooLongArguments = try sandbox.run(["add", String(repeating: "c", count: 25_000), String(repeating: "d", count: 25_000)])
        #expect(tooLongArguments.status == 65, "25,000 + a space + 25,000 characters: \(tooLongArguments)")
        #expect(try sandbox.entryCount() == 2)

        let stored = try sandbox.list()
        #expect(stored.contents.map(\.count).sorted() == [50_000, 50_000])
        #expect(stored.contents.contains(exact))
    }

    /// A character has no size of its own: one letter with a million combining
    /// marks (2 MB) was stored as a "1-character" entry. add, chat add and import refuse it.
    @Test("one character of 2 MB is refused (65) by add, chat add and import; 50,000 emoji of a family are not")
    func bytesAreBounded() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let oneCharacter = "e" + String(repeating: "\u{301}", count: 1_000_000)
        let added = try sandbox.run(["add"], input: oneCharacter)
        #expect(added.status == 65 && added.out.isEmpty, "\(added)")
        #expect(added.errorLines == ["jv: The text takes 2000001 bytes of UTF-8; the limit is 1000000 bytes, as well as 50000 characters."])
        let message = try sandbox.run(["chat", "add", "--role", "user"], input: oneCharacter)
        #expect(message.status == 65, "\(message)")
        let file = try sandbox.folder.write("big.json", #"{"format":"jv-export","version":1,"entries":[{"id":"11111111-2222-4333-8444-555555555555","#
                                               + #""created_at":"2024-01-01T09:00:00Z","content":"\#(oneCharacter)"}]}"#)
        let imported = try sandbox.run(["import", file, "--format", "json"])
        #expect(imported.status == 65 && imported.err.contains("bytes"), "\(imported)")
        #expect(try sandbox.entryCount() == 0)
        #expect(try sandbox.run(["chat", "list", "--json"]).array().isEmpty)

        let family = try sandbox.run(["add"], input: String(repeating: "👩‍👩‍👧", count: 50_000))
        #expect(family.status == 0, "900,000 bytes: \(family)")
    }

    @Test("an unknown date exits 64, names the accepted forms, and adds nothing",
          arguments: ["someday", "2026-13-01", "2026-02-30", "next week", "3 parsecs ago", ""])
    func unknownDate(text: String) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add", "--at", text, "text"])
        #expect(result.status == 64, "\(result)")
        let message = result.errorLines.joined(separator: " ")
        #expect(message.contains("YYYY-MM-DD"), "\(result)")
        #expect(message.contains("yesterday"), "\(result)")
        #expect(message.contains("days ago"), "\(result)")
        #expect(try sandbox.entryCount() == 0)
    }

    @Test("a bad --tag is refused with 64 and adds nothing")
    func badTag() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add", "--tag", "two words", "text"])
        #expect(result.status == 64, "\(result)")
        #expect(try sandbox.entryCount() == 0)
    }

    /// Text that starts with '-': argument-parser read "-5 degrees this morning" as
    /// bundled short options, and its 'h' as --help: help was printed, exit 0, nothing stored.
    @Test("text that starts with '-' is stored exactly, beside add's own options, which stay options", .tags(.slow), .notInQuickRun)
    func textStartingWithADash() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for text in ["- bought milk", "-5 degrees this morning", "-", "-5", "-- not the end of options", "---", "-note: call Anna"] {
            let result = try sandbox.run(["add", text])
            #expect(result.status == 0 && result.lines.count == 1, "\(text): \(result)")
            let id = try #require(result.lines.first)
            #expect(try sandbox.show(id)["content"] as? String == text)
        }
        // Options before, between and after the text; an option's value may start with '-' too; '--' still ends the options.
        let mixed = try sandbox.run(["add", "--star", "-5 degrees", "--tag", "cold", "and -3 tomorrow", "--at=2026-11-01", "--", "--star"])
        let entry = try sandbox.show(mixed.out.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(entry["content"] as? String == "-5 degrees and -3 tomorrow --star" && entry["starred"] as? Bool == true, "\(mixed)")
        #expect(entry["tags"] as? [String] == ["cold"] && entry["local_day"] as? String == "2026-11-01")
        // A short option's value too: "-home" is a journal's name, not -h (help) and the rest.
        let journal = try sandbox.run(["add", "-j", "-home", "text"], env: ["JV_VAULT": nil])
        #expect(journal.status == 64 && journal.err.contains("No journal named '-home'"), "\(journal)")
        try Sandbox.requireSuccess(try sandbox.run(["chat", "new", "--title", "x"]))
        let message = try sandbox.run(["chat", "add", "--role", "user", "--model", "-mini", "- how was the walk?"])
        try Sandbox.requireSuccess(message)
        // A search's words are its query: "-5" excludes 5 (both entries have it), a phrase finds them.
        #expect(try sandbox.run(["search", "--json", "-5 degrees"]).array().isEmpty)
        let found = try sandbox.run(["search", "--json", "\"-5 degrees\""]).array()
        #expect(Set(found.contents) == ["-5 degrees this morning", "-5 degrees and -3 tomorrow --star"], "\(found)")
        #expect(try sandbox.run(["search", "--json", "--kind", "chat", "- how"]).array().contents == ["- how was the walk?"])
        #expect(try sandbox.entryCount() == 8)

        for help in [["add", "--help"], ["add", "-h"], ["add", "--star", "--help", "text"], ["search", "-h"]] {
            let result = try sandbox.run(help)
            #expect(result.status == 0 && result.out.contains("USAGE: jv"), "\(help): \(result)")
        }
        #expect(try sandbox.entryCount() == 8)
    }

    @Test("a word shaped like an option add does not have is refused (64), naming '--', and nothing is stored",
          arguments: [["--stra", "text"], ["-hello"], ["text", "--not-an-option"], ["-x"]])
    func unknownOption(arguments: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["add"] + arguments)
        #expect(result.status == 64 && result.out.isEmpty, "\(result)")
        #expect(result.errorLines.count == 1 && result.err.contains("jv add -- '"), "\(result)")
        #expect(try sandbox.entryCount() == 0)
    }
}
