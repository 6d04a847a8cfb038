// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// jrnl's formats (FORMAT.md §9): its title rule, its plain-text journal and its JSON export,
/// written and read back. Expected values were checked against jrnl 4.6 itself
/// (`jrnl.journals.Entry.split_title`, `jrnl --import`, `jrnl --format json`).
@Suite struct JrnlFormatTests {
    fileprivate static let utc = TimeZone(identifier: "UTC")!

    // MARK: split_title

    @Test(arguments: [
        ("Walked. Then more.", "Walked.", "Then more."),
        ("First line\nSecond line. More", "First line", "Second line. More"),
        ("Line one.\nLine two.\n\nLine four", "Line one.", "Line two.\n\nLine four"),
        ("Hi!) there", "Hi!)", "there"),
        ("Quote.\" Next", "Quote.\"", "Next"),
        ("日本。次", "日本。", "次"),
        ("Full\u{FF0E} width", "Full\u{FF0E}", "width"),
        ("Ends with dot.", "Ends with dot.", ""),
        ("Wait... what", "Wait...", "what"),
        ("e.g. this", "e.g.", "this"),
        ("No split", "No split", ""),
        ("  lead. x", "lead.", "x"),
        ("Ellipsis\u{2026} next", "Ellipsis\u{2026}", "next"),
        ("x?\u{201D}) y", "x?\u{201D})", "y"),
        ("Version 1.5 is out. Notes", "Version 1.5 is out.", "Notes"),
        ("a.\u{00A0}b", "a.", "b"),
    ])
    func splitMatchesJrnlsSplitTitle(text: String, title: String, body: String) {
        let (gotTitle, gotBody) = Tags.split(text)
        #expect(gotTitle == title, "\(text.debugDescription)")
        #expect(gotBody == body, "\(text.debugDescription)")
    }

    // MARK: Writing the text journal

    /// An entry written at `h:m:s` wall-clock on `day` at UTC`offsetHours`.
    fileprivate static func entry(_ content: String, day: CivilDay = CivilDay(year: 2026, month: 1, day: 5)!, _ h: Int, _ m: Int, _ s: Int = 0,
                                  offsetHours: Int = 0, starred: Bool = false, tags: [String] = []) -> Entry {
        let local = Int64(day.daysSinceEpoch) * 86_400 + Int64(h * 3600 + m * 60 + s)
        let created = Instant(millis: (local - Int64(offsetHours * 3600)) * 1000, utcOffsetSeconds: offsetHours * 3600)
        return Entry(content: content, created: created, modifiedAt: created.millis, starred: starred, explicitTags: tags)
    }

    @Test(arguments: [
        (0, 0, 0, "12:00:00 AM"),
        (0, 5, 9, "12:05:09 AM"),
        (1, 0, 0, "01:00:00 AM"),
        (11, 59, 59, "11:59:59 AM"),
        (12, 0, 0, "12:00:00 PM"),
        (12, 30, 1, "12:30:01 PM"),
        (13, 30, 15, "01:30:15 PM"),
        (23, 59, 59, "11:59:59 PM"),
    ])
    func textUsesTwelveHourTime(h: Int, m: Int, s: Int, expected: String) {
        let text = JrnlFormat.text(of: [Self.entry("Title", h, m, s)])
        #expect(text == "[2026-01-05 \(expected)] Title\n")
    }

    @Test func textMarksStarsAndSeparatesEntriesWithABlankLine() {
        let text = JrnlFormat.text(of: [
            Self.entry("First. With a body", 8, 0, starred: true),
            Self.entry("Second line one\nline two", 9, 15),
        ])
        #expect(text == """
            [2026-01-05 08:00:00 AM] First. *
            With a body

            [2026-01-05 09:15:00 AM] Second line one
            line two

            """)
    }

    @Test func explicitTagsNotInTheTextBecomeALastLineOfTags() {
        let text = JrnlFormat.text(of: [
            Self.entry("Lunch with @anna. Good.", 12, 0, tags: ["anna", "work", "long-day"]),
            Self.entry("Only explicit", 13, 0, starred: true, tags: ["solo"]),
        ])
        // The tags line makes the text multi-line, so jrnl's title becomes the whole first line.
        #expect(text == """
            [2026-01-05 12:00:00 PM] Lunch with @anna. Good.
            @work @long-day

            [2026-01-05 01:00:00 PM] Only explicit *
            @solo

            """)
    }

    @Test func textIsInWallClockOrderOnTheWritersDay() {
        // 23:30 in Tokyo on Jan 5 is 14:30 UTC; 20:00 in New York on Jan 4 is 01:00 UTC Jan 5.
        let tokyo = Self.entry("Tokyo night", 23, 30, offsetHours: 9)
        let newYork = Self.entry("New York evening", day: CivilDay(year: 2026, month: 1, day: 4)!, 20, 0, offsetHours: -5)
        let london = Self.entry("London morning", 9, 0)
        let text = JrnlFormat.text(of: [tokyo, london, newYork])
        #expect(text == """
            [2026-01-04 08:00:00 PM] New York evening

            [2026-01-05 09:00:00 AM] London morning

            [2026-01-05 11:30:00 PM] Tokyo night

            """)
    }

    // MARK: Writing the JSON export

    @Test func jsonHasJrnlsShape() throws {
        let entries = [
            Self.entry("Lunch with @Anna. About #work and #Work.", 12, 5, starred: true, tags: ["extra"]),
            Self.entry("Second\nbody #work", 0, 7),
        ]
        let json = try JSONParser.parse(Array(JrnlFormat.json(of: entries).utf8))
        #expect(json.serialized() == """
            {"tags":{"#work":2,"@anna":1,"@extra":1},"entries":[\
            {"title":"Second","body":"body #work","date":"2026-01-05","time":"00:07","tags":["#work"],"starred":false},\
            {"title":"Lunch with @Anna. About #work and #Work.","body":"@extra","date":"2026-01-05","time":"12:05",\
            "tags":["#work","@anna","@extra"],"starred":true}]}
            """)
    }

    @Test func jsonTagsFollowJrnlsRegexNotJvs() throws {
        // jrnl: (?<!\S)[#@][-+*#/\w]+ — so "#a/b" and "@c+d" are whole tags, "x#y" is none.
        let json = try JSONParser.parse(Array(JrnlFormat.json(of: [Self.entry("Tags #a/b @c+d x#y (#paren)", 9, 0)]).utf8))
        guard case .object(let members) = json, case .array(let entries)? = members.first(where: { $0.0 == "entries" })?.1,
              case .object(let entry)? = entries.first, case .array(let tags)? = entry.first(where: { $0.0 == "tags" })?.1 else {
            Issue.record("unexpected shape: \(json.serialized())")
            return
        }
        #expect(tags == [.string("#a/b"), .string("@c+d")])
    }

    // MARK: Reading

    @Test func parseTextReadsEntriesStarsAndWallClockTimesInTheZone() throws {
        let text = """
            [2026-01-05 12:05:00 AM] Midnight. *
            Body line
            [not a date] stays text
            [9pm] stays text too: only a full date starts an entry
            [yesterday 21:30] and so does this

            [2026-01-05 01:30:15 PM] Afternoon @walk

            """
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let entries = try JrnlFormat.parseText(text, zone: berlin)
        #expect(entries.count == 2)
        #expect(entries[0].content == "Midnight.\nBody line\n[not a date] stays text\n"
            + "[9pm] stays text too: only a full date starts an entry\n[yesterday 21:30] and so does this")
        #expect(entries[0].starred)
        #expect(entries[0].created.iso8601 == "2026-01-05T00:05:00.000+01:00")
        #expect(entries[1].content == "Afternoon @walk")
        #expect(!entries[1].starred)
        #expect(entries[1].created.iso8601 == "2026-01-05T13:30:15.000+01:00")
        #expect(entries[1].tags == ["walk"])
    }

    @Test func writtenTextReadsBackToTheSameEntries() throws {
        let originals = [
            Self.entry("Morning. Coffee with @anna", 7, 45, 12, starred: true),
            Self.entry("Noon exactly.", 12, 0),
            Self.entry("Evening\nLong walk #sea", 21, 0, tags: ["explicit"]),
        ]
        let parsed = try JrnlFormat.parseText(JrnlFormat.text(of: originals), zone: Self.utc)
        #expect(parsed.map(\.created) == originals.map(\.created))
        #expect(parsed.map(\.starred) == originals.map(\.starred))
        #expect(parsed.map(\.tags) == originals.map(\.tags))
        #expect(parsed.map(\.title) == originals.map(\.title))
    }

    @Test func parseTextAndParseJSONGiveTheSameIdsForTheSameEntries() throws {
        let originals = [
            Self.entry("Morning. Coffee with @anna", 7, 45, 12, starred: true),
            Self.entry("Evening\nLong walk #sea", 21, 0, tags: ["explicit"]),
            Self.entry("Same minute, other text", 21, 0, 30),
            Self.entry("日本。次の文", 12, 0),
        ]
        let fromText = try JrnlFormat.parseText(JrnlFormat.text(of: originals), zone: Self.utc)
        let fromJSON = try JrnlFormat.parseJSON(Array(JrnlFormat.json(of: originals).utf8), zone: Self.utc)
        #expect(fromText.count == 4 && fromJSON.count == 4)
        #expect(fromText.map(\.id) == fromJSON.map(\.id))
        #expect(Set(fromText.map(\.id)).count == 4, "different entries get different ids")
        #expect(fromText.map(\.content) == fromJSON.map(\.content))
        #expect(fromText.map(\.starred) == fromJSON.map(\.starred))
        #expect(fromText.map(\.tags) == fromJSON.map(\.tags))
        // Reading again gives the same ids (stable, so imports are idempotent).
        #expect(try JrnlFormat.parseText(JrnlFormat.text(of: originals), zone: Self.utc).map(\.id) == fromText.map(\.id))
        // The id is FORMAT.md §9's: BLAKE2b-128("jv-import\0jrnl" ‖ 0 ‖ "2026-01-05 7:45" ‖ 0 ‖ title ‖ 0 ‖ body), v8.
        #expect(fromText[0].id == StableID.make(source: "jrnl", parts: ["2026-01-05 7:45", "Morning.", "Coffee with @anna"]))
        let text = fromText[0].id.uuidString.lowercased()
        #expect(Array(text)[14] == "8", "version 8")
        #expect("89ab".contains(Array(text)[19]), "RFC 9562 variant")
    }

    @Test func theSameTextAtAnotherTimeIsAnotherEntry() throws {
        let a = try JrnlFormat.parseText("[2026-01-05 09:00:00 AM] Same\n", zone: Self.utc)
        let b = try JrnlFormat.parseText("[2026-01-05 09:01:00 AM] Same\n", zone: Self.utc)
        let c = try JrnlFormat.parseText("[2026-01-05 09:00:00 AM] Same.\n", zone: Self.utc)
        #expect(a[0].id != b[0].id)
        #expect(a[0].id != c[0].id)
    }

    @Test func parseJSONReadsTagsListedButNotInTheTextAsExplicitTags() throws {
        let json = """
            {"tags": {"@x": 1}, "entries": [{"title": "Hello.", "body": "World @inline", "date": "2024-02-29", "time": "23:59",
            "tags": ["@inline", "@only-listed"], "starred": true}]}
            """
        let entries = try JrnlFormat.parseJSON(Array(json.utf8), zone: Self.utc)
        #expect(entries.count == 1)
        #expect(entries[0].content == "Hello.\nWorld @inline")
        #expect(entries[0].explicitTags == ["only-listed"])
        #expect(entries[0].tags == ["inline", "only-listed"])
        #expect(entries[0].starred)
        #expect(entries[0].created.iso8601 == "2024-02-29T23:59:00.000+00:00")
    }

    @Test func theLastEntryOfAFileWithoutAFinalNewlineIsSplitAsJrnlDoes() throws {
        // jrnl 4.6 on "[…] Three. Four" at the very end (no newline): title "Three.", body "Four".
        let entries = try JrnlFormat.parseText("[2024-03-04 09:00:00 AM] One. Two\n\n[2024-03-05 07:45:00 PM] Three. Four", zone: Self.utc)
        #expect(entries.map(\.content) == ["One. Two", "Three.\nFour"])
    }

    @Test
    func aStarredLastEntryWithoutAFinalNewlineKeepsItsWholeTitle() throws {
        // jrnl 4.6 (Entry._parse_text: `lines[0].strip("\n *") + "\n" + …`): title "Starred one! With #Other tags", body "".
        let fromText = try JrnlFormat.parseText("[2024-03-05 07:45:00 PM] Starred one! With #Other tags *", zone: Self.utc)
        let fromJSON = try JrnlFormat.parseJSON(Array(#"""
            {"entries": [{"title": "Starred one! With #Other tags", "body": "", "date": "2024-03-05", "time": "19:45", "tags": ["#other"], "starred": true}]}
            """#.utf8), zone: Self.utc)
        #expect(fromText.map(\.content) == ["Starred one! With #Other tags"])
        #expect(fromText.map(\.starred) == [true])
        #expect(fromText.map(\.id) == fromJSON.map(\.id))
    }

    @Test(arguments: [
        ("", "line 1"),
        ("no entries here\n", "line 1"),
        ("[2026-01-05 09:00:00 AM] Fine\n\n[2026-01-06 09:00:00 AM]    \n", "line 3"),
    ])
    func malformedTextIsRefusedSayingWhere(text: String, place: String) {
        let error = #expect(throws: ImportError.self) { try JrnlFormat.parseText(text, zone: Self.utc) }
        #expect(error?.description.contains(place) == true, "\(String(describing: error))")
    }

    /// A ten-year journal reads in linear time (each entry's line number was counted
    /// from the start of the file, and a `[` without `]` searched the rest of it). 30,000
    /// entries, and 30,000 lines opening a bracket they never close, each well within the limit
    /// (quadratic reading took minutes); line numbers still right at the end of the file.
    @Test(.timeLimit(.minutes(1))) func longJournalsReadInLinearTime() throws {
        let count = 30_000
        let journal = (0..<count).map { index in
            "[2024-\(String(format: "%02d", index % 12 + 1))-\(String(format: "%02d", index % 28 + 1)) 09:\(String(format: "%02d", index % 60)):00 AM] Entry \(index).\nBody \(index)\n"
        }.joined(separator: "\n")
        let entries = try JrnlFormat.parseText(journal, zone: TimeZone(identifier: "UTC")!)
        #expect(entries.count == count)
        // One entry of 24,000 lines that open a bracket and never close it (under the 50,000
        // characters an entry may hold).
        let brackets = "[2024-01-01 09:00:00 AM] Start\n" + String(repeating: "[\n", count: 24_000)
        #expect(try JrnlFormat.parseText(brackets, zone: TimeZone(identifier: "UTC")!).count == 1)
        // The line number of a bad entry at the end (a blank one) is still exact.
        let withBlank = journal + "\n[2024-01-01 09:00:00 AM] \n"
        let expectedLine = withBlank.utf8.filter { $0 == UInt8(ascii: "\n") }.count
        do {
            _ = try JrnlFormat.parseText(withBlank, zone: TimeZone(identifier: "UTC")!)
            Issue.record("a blank entry was read")
        } catch let error as ImportError {
            #expect(error.line == expectedLine, "\(error)")
        }
    }

}
