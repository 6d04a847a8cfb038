// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import JVCommandLine
@testable import JournalVault
import Testing

/// How entries and records are printed: the text views for people, and the JSON array that
/// `jv list --json` and `jv search --json` stream a record at a time.
@Suite("Output", .tags(.inProcess))
struct OutputTests {
    static let id = UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!
    static let created = Instant(millis: 1_795_382_100_000, utcOffsetSeconds: 3600)

    static func entry(_ content: String, starred: Bool = false, tags: [String] = []) -> Entry {
        Entry(id: id, content: content, created: created, modifiedAt: created.millis, starred: starred, explicitTags: tags)
    }

    /// Plain text output, whatever the terminal and config of the machine running the tests.
    let output = Output(json: false, noColor: true)

    @Test("An entry: a header line (time, short id, star, title), its text indented, tags not in the text")
    func render() {
        let entry = Self.entry("Harbour walk\nCold wind.\n\nGulls @sea", starred: true, tags: ["sea", "winter"])
        let header = "\(output.time(Self.created))  0f1e2d3c ★  Harbour walk"
        #expect(output.render(entry) == header + "\n    Cold wind.\n    \n    Gulls @sea\n    #winter")
        #expect(output.render(entry, full: false) == header)
        #expect(output.render(entry, withOffset: true).hasPrefix("\(output.time(Self.created)) +01:00  0f1e2d3c"))
        #expect(output.markdown(Self.entry("Title\nText")) == "## \(output.time(Self.created))\n\nTitle\nText\n")
    }

    @Test("The boxed view keeps its width, wrapping the text and cutting a word longer than a line")
    func fancy() {
        let entry = Self.entry("Title\n" + String(repeating: "word ", count: 30) + String(repeating: "x", count: 100))
        let lines = output.fancy(entry).split(separator: "\n")
        #expect(lines.allSatisfy { $0.count == 79 }, "\(lines.map(\.count))")
        #expect(lines.first?.hasPrefix("┎─ \(output.time(Self.created)) · 0f1e2d3c ") == true)
        #expect(lines.last.map(String.init) == "┖" + String(repeating: "─", count: 77) + "┘")
        #expect(Output.wrapped("aa bb cc", width: 5) == ["aa bb", "cc"])
        #expect(Output.wrapped("abcdefgh", width: 3) == ["abc", "def", "gh"])
        #expect(Output.wrapped("a\n\nb", width: 3) == ["a", "", "b"])
    }

    @Test("Lines are indented under their header, empty ones and multi-byte ones too")
    func indentedLines() {
        #expect(Output.indentedLines("one") == "\n    one")
        #expect(Output.indentedLines("é\n\n🌊\n") == "\n    é\n    \n    🌊\n    ")
    }

    @Test("Counts and short ids as people read them")
    func counts() {
        #expect(Output.count(1, of: "entries") == "1 entry")
        #expect(Output.count(2, of: "entries") == "2 entries")
        #expect(Output.count(1, of: "conflict copies") == "1 conflict copy")
        #expect(Output.count(0, of: "analyses") == "0 analyses")
        #expect(Output.shortID(Self.id) == "0f1e2d3c")
    }

    @Test("Records streamed one at a time make the bytes of the whole JSON array printed at once")
    func streamedJSONArray() throws {
        let entries = [Self.entry("First\nwith \"quotes\" and \u{1B}"), Self.entry("Second", starred: true, tags: ["x"])]
        let style = RecordStyle(json: true)
        var writer = JSONStreamWriter(pretty: true)
        var streamed = writer.openArray()
        for entry in entries { streamed += writer.value(serialized: style.render(entry.json, text: "unused")) }
        streamed += writer.close()
        #expect(streamed == JSONValue.array(entries.map(\.json)).serialized(pretty: true))
        // And it is JSON a program reads back: the text exactly, the escape included.
        let parsed = try JSONSerialization.jsonObject(with: Data(streamed.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["content"] as? String == entries[0].content)
        #expect(RecordStyle(json: false).render(.null, text: "as text") == "as text")
    }

    @Test("Formats for people are separated by a blank line, or a line break for short and markdown")
    func separators() {
        #expect(EntryFormat.text.separator == "\n\n" && EntryFormat.fancy.separator == "\n\n")
        #expect(EntryFormat.short.separator == "\n" && EntryFormat.markdown.separator == "\n")
    }

    @Test("A session's JSON fields, in their documented order")
    func sessionFields() {
        let status = SessionStatus(agentPID: 4242, expiresAt: Date(timeIntervalSince1970: 1_795_382_100),
                                   endsAt: Date(timeIntervalSince1970: 1_795_382_100 + 3600), idleTimeout: 900)
        let fields = Info.sessionFields(status)
        #expect(fields.map(\.0) == ["expires_at", "ends_at", "idle_timeout_seconds", "agent_pid", "index"])
        #expect(fields[2].1 == .integer(900) && fields[3].1 == .integer(4242) && fields[4].1 == .null)
        var indexed = status
        indexed.index = SessionIndexStatus(state: .ready, documents: 10, bytes: 4096, lockedBytes: 8192, searches: 3)
        indexed.index?.statsAnswered = 2
        #expect(Info.sessionFields(indexed)[4].1 == .object([("state", .string("ready")), ("documents", .integer(10)), ("bytes", .integer(4096)),
                                                            ("locked_bytes", .integer(8192)), ("searches", .integer(3)),
                                                            ("stats_answered", .integer(2))]))
    }
}
