// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
@testable import JournalVault

/// A folder of Markdown notes as Obsidian keeps daily notes, read as entries (README "Exports
/// and imports"): front matter, `## HH:MM` parts, embedded files found as Obsidian finds them,
/// and nothing read from outside the folder.
@Suite struct MarkdownFolderReaderTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// The folder's snapshot, each entry's id a plain hash of its origin (the vault derives
    /// keyed ones: ``importingTwiceAddsNothingAndIdsAreTheVaults()``).
    static func read(_ folder: String) throws -> VaultSnapshot {
        try MarkdownFolderReader.read(folder: folder, zone: berlin) { StableID.make(source: "test", parts: [$0]) }
    }

    static func instant(_ iso: String) throws -> Instant {
        guard case .instant(let instant) = try DateExpression.parse(iso, now: Instant(millis: 0, utcOffsetSeconds: 0), zone: berlin) else {
            throw ImportError(reason: "not a moment: \(iso)")
        }
        return instant
    }

    // MARK: One note

    @Test func frontMatterDateAndTagsAreReadAndTheRestIsKept() {
        let note = MarkdownNote("""
            ---
            date: "2024-05-01T07:15"
            tags: [walk, "#Berlin"]
            mood: good
            aliases:
              - Tag eins
            ---
            Went out. #spring
            """)
        #expect(note.frontMatterDate?.value == "2024-05-01T07:15")
        #expect(note.frontMatterTags == ["walk", "berlin"])
        #expect(note.keptProperties == ["mood: good", "aliases:", "  - Tag eins"])
        #expect(note.parts.map(\.text) == ["Went out. #spring"])
    }

    @Test func aTagJvCannotKeepLeavesItsPropertyInTheText() {
        let note = MarkdownNote("---\r\ntags:\r\n  - project/alpha\r\n  - home\r\ncreated: 2024-05-01\r\n---\r\nText.")
        #expect(note.frontMatterTags == ["home"])
        #expect(note.keptProperties == ["tags:", "  - project/alpha", "  - home"])
        #expect(note.frontMatterDate?.value == "2024-05-01")
        // No closing line: not front matter, all text.
        #expect(MarkdownNote("---\ndate: 2024-05-01\nText.").parts.map(\.text) == ["---\ndate: 2024-05-01\nText."])
    }

    @Test func timeHeadingsOutsideCodeSplitTheNote() {
        let note = MarkdownNote("""
            # Wednesday

            Morning notes.
            ## 07:30 Coffee
            With Anna.
            ```
            ## 08:00
            ```
            ## 9:05
            Bus.
            ## 07:30
            More coffee.
            ## 25:00
            Not a time.
            """)
        #expect(note.parts.map(\.secondsOfDay) == [nil, 27_000, 32_700, 27_000])
        #expect(note.parts.map(\.repeatOfTime) == [0, 0, 0, 1])
        #expect(note.parts.map(\.text) == ["# Wednesday\n\nMorning notes.", "Coffee\nWith Anna.\n```\n## 08:00\n```", "Bus.",
                                           "More coffee.\n## 25:00\nNot a time."])
        #expect(MarkdownFolderReader.origin(path: "Daily/2024-05-01.md", part: note.parts[3]) == "Daily/2024-05-01.md\u{0}07:30\u{0}1")
        #expect(MarkdownFolderReader.origin(path: "Daily/2024-05-01.md", part: note.parts[0]) == "Daily/2024-05-01.md")
    }

    @Test func embedsAreFilesShownInlineNotLinksCodeOrURLs() {
        let note = MarkdownNote("""
            ![[photo.png|300]] ![[sub/a b.jpg#part]] ![alt](rel%20path/p.png "title") ![x](<sp ace.png>)
            ![u](https://example.com/x.png) `![[code.png]]` [[linked.pdf]] ![[Other note]] ![[photo.png]]
            ~~~
            ![[fenced.png]]
            ~~~
            """)
        #expect(note.parts[0].embeds == [
            .init(target: "photo.png", isWikiLink: true), .init(target: "sub/a b.jpg", isWikiLink: true),
            .init(target: "rel path/p.png", isWikiLink: false), .init(target: "sp ace.png", isWikiLink: false),
            .init(target: "Other note", isWikiLink: true),
        ])
    }

    @Test func unclosedLinksAreReadInLinearTime() {
        // Each `![[`, `![x`, `![x](` of a hostile line must not search the rest of it again.
        let line = String(repeating: "![[", count: 100_000) + String(repeating: "![x", count: 100_000) + String(repeating: "![x](", count: 100_000)
        let clock = ContinuousClock()
        let elapsed = clock.measure { #expect(MarkdownNote(line).parts[0].embeds.isEmpty) }
        #expect(elapsed < .seconds(5))
    }

    @Test func aNotesDayComesFromItsNameOrFrontMatter() throws {
        #expect(MarkdownFolderReader.day(fromName: "2024-05-01.md") == CivilDay(iso: "2024-05-01"))
        #expect(MarkdownFolderReader.day(fromName: "2024-05-01 Wednesday.md") == CivilDay(iso: "2024-05-01"))
        #expect(MarkdownFolderReader.day(fromName: "2024-05-012.md") == nil)
        #expect(MarkdownFolderReader.day(fromName: "Ideas.md") == nil)
        #expect(MarkdownFolderReader.date("2024-05-01", zone: Self.berlin)?.moment == nil)
        #expect(MarkdownFolderReader.date("2024-05-01 07:15", zone: Self.berlin)?.moment == (try Self.instant("2024-05-01T07:15+02:00")))
        #expect(MarkdownFolderReader.date("yesterday", zone: Self.berlin) == nil)
    }

    // MARK: A folder

    /// `notes/` beside `outside.png` and `outside.md`, which nothing in it may bring in.
    static func folder() throws -> (TemporaryFolder, String) {
        let temporary = try TemporaryFolder()
        let root = temporary.file("notes")
        try temporary.write("outside.png", "not for the vault")
        try temporary.write("outside.md", "Not for the vault either.")
        try temporary.write("notes/.obsidian/app.json", #"{"attachmentFolderPath": "Attachments"}"#)
        try temporary.write("notes/.trash/2024-01-01.md", "Deleted.")
        try temporary.write("notes/Daily/2024/2024-05-01.md", """
            ---
            tags: [walk]
            mood: good
            ---
            Berlin walk. ![[gate.jpg|300]] ![](photo.png) ![[missing.png]] ![[photo.png]]
            Bell \u{7} and \u{1B}[2J stay as written.
            ## 18:00
            Evening. ![[shared.png]]
            """)
        try temporary.write("notes/Daily/2024-05-02 Thursday.md", "![[shared.png]] from elsewhere ![](../../outside.png) ![[escape.png]]")
        try temporary.write("notes/Ideas.md", "No date here.")
        for file in ["Daily/2024/photo.png", "Daily/2024/shared.png", "Attachments/gate.jpg", "Attachments/shared.png", "Other/deep/shared.png"] {
            try temporary.write("notes/" + file, file)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/escape.png", withDestinationPath: temporary.file("outside.png"))
        try FileManager.default.createSymbolicLink(atPath: root + "/2024-06-01.md", withDestinationPath: temporary.file("outside.md"))
        return (temporary, root)
    }

    @Test func aFolderOfNotesBecomesEntriesWithTheirFiles() throws {
        let (temporary, root) = try Self.folder()
        let saved = try Self.instant("2024-06-01T00:00+02:00")
        try FileManager.default.setAttributes([.modificationDate: saved.date], ofItemAtPath: root + "/Daily/2024/2024-05-01.md")
        let snapshot = try Self.read(root)
        #expect(snapshot.entries.map(\.content) == [
            "![[shared.png]] from elsewhere ![](../../outside.png) ![[escape.png]]",
            "Berlin walk. ![[gate.jpg|300]] ![](photo.png) ![[missing.png]] ![[photo.png]]\nBell \u{7} and \u{1B}[2J stay as written.\n\n---\nmood: good\n---",
            "Evening. ![[shared.png]]",
        ])
        #expect(try snapshot.entries.map(\.created) == [Self.instant("2024-05-02T09:00+02:00"), Self.instant("2024-05-01T09:00+02:00"),
                                                       Self.instant("2024-05-01T18:00+02:00")])
        #expect(snapshot.entries.map(\.explicitTags) == [[], ["walk"], ["walk"]])
        #expect(snapshot.entries[1].modifiedAt == saved.millis && snapshot.entries[2].modifiedAt == saved.millis)
        #expect(snapshot.entries.map(\.id) == ["Daily/2024-05-02 Thursday.md", "Daily/2024/2024-05-01.md", "Daily/2024/2024-05-01.md\u{0}18:00\u{0}0"]
            .map { StableID.make(source: "test", parts: [$0]) })

        // The note's folder first, then Obsidian's attachment folder; each file once an entry.
        let ids = snapshot.entries.map(\.id)
        #expect(snapshot.attachments.map { [$0.origin, $0.name, $0.media.mediaType] } == [
            ["Attachments/shared.png", "shared.png", "image/png"], ["Attachments/gate.jpg", "gate.jpg", "image/jpeg"],
            ["Daily/2024/photo.png", "photo.png", "image/png"], ["Daily/2024/shared.png", "shared.png", "image/png"],
        ])
        #expect(snapshot.attachments.map(\.entryID) == [ids[0], ids[1], ids[1], ids[2]])
        let realRoot = try #require(realpath(root, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) })
        #expect(snapshot.attachments.allSatisfy { $0.path.hasPrefix(realRoot + "/") && $0.id == nil })

        // A path out of the folder, a link to a file outside it and a file not there are not imported.
        #expect(snapshot.omissions.attachments == [.photo: 3])
        #expect(snapshot.omissions.recordsWithAttachments == [1, 2])
        #expect(snapshot.omissions.missingAttachmentLinks == ["../../outside.png in Daily/2024-05-02 Thursday.md",
                                                             "escape.png in Daily/2024-05-02 Thursday.md", "missing.png in Daily/2024/2024-05-01.md"])
        #expect(snapshot.omissions.notesWithoutDate == ["Ideas.md"])
        #expect(snapshot.omissions.notesOutsideFolder == ["2024-06-01.md"])
        withExtendedLifetime(temporary) {}
    }

    @Test func aNoteThatIsNotUTF8OrTooLongStopsTheReadSayingWhere() throws {
        let temporary = try TemporaryFolder()
        try temporary.write("notes/2024-05-01.md", Data("Fine\n\nthen ".utf8) + Data([0xFF]))
        #expect(throws: ImportError(reason: "the note 2024-05-01.md is not valid UTF-8 (line 3)")) { try Self.read(temporary.file("notes")) }
        try temporary.write("notes/2024-05-01.md", "## 07:00\n" + String(repeating: "x", count: Entry.maximumCharacters + 1))
        let error = #expect(throws: ImportError.self) { try Self.read(temporary.file("notes")) }
        #expect(error?.reason.hasPrefix("2024-05-01.md (## 07:00): ") == true, "\(String(describing: error))")
    }

    @Test func aNoteEditedSinceReplacesItsEntryUnlessTheEntryWasEditedInJvSince() throws {
        let temporary = try TemporaryFolder()
        let note = try temporary.write("notes/2024-05-01.md", "First words.\n## 18:00\nEvening.")
        func saved(_ iso: String) throws {
            try FileManager.default.setAttributes([.modificationDate: try Self.instant(iso).date], ofItemAtPath: note)
        }
        try saved("2024-05-01T20:00+02:00")
        let vault = try TemporaryVault()
        try vault.journal.importSnapshot(try vault.journal.readMarkdownFolder(temporary.file("notes"), zone: Self.berlin))
        let evening = try #require(try vault.journal.readMarkdownFolder(temporary.file("notes"), zone: Self.berlin).entries.last)

        try temporary.write("notes/2024-05-01.md", "First words, then more.\n## 18:00\nEvening.")
        try saved("2024-05-02T08:00+02:00")
        let edited = try vault.journal.importSnapshot(try vault.journal.readMarkdownFolder(temporary.file("notes"), zone: Self.berlin))
        #expect(edited.added.isEmpty && edited.conflictCopies.isEmpty)
        #expect(edited.updated == ["entries": 2])

        // Changed in jv after the note was last saved: the import keeps jv's text.
        _ = try vault.journal.updateEntry(id: evening.id, content: "Evening, told in jv.")
        try temporary.write("notes/2024-05-01.md", "First words, then more.\n## 18:00\nEvening in the note.")
        try saved("2024-05-03T08:00+02:00")
        let again = try vault.journal.importSnapshot(try vault.journal.readMarkdownFolder(temporary.file("notes"), zone: Self.berlin))
        #expect(again.skipped == ["entries": 1] && again.updated == ["entries": 1])
        #expect(try vault.journal.entry(id: evening.id).content == "Evening, told in jv.")
    }

    @Test func importingTwiceAddsNothingAndIdsAreTheVaults() throws {
        let (temporary, root) = try Self.folder()
        let vault = try TemporaryVault()
        let snapshot = try vault.journal.readMarkdownFolder(root, zone: Self.berlin)
        let first = try vault.journal.importSnapshot(snapshot)
        #expect(first.added == ["entries": 3, "attachments": 4])
        let again = try vault.journal.importSnapshot(try vault.journal.readMarkdownFolder(root, zone: Self.berlin))
        #expect(again.changedNothing && again.unchanged == ["entries": 3, "attachments": 4])
        #expect(try vault.count("attachment") == 4)
        // Another vault derives other ids for the same notes: an id says nothing of the note's path.
        let other = try TemporaryVault()
        let ids = Set(try other.journal.readMarkdownFolder(root, zone: Self.berlin).entries.map(\.id))
        #expect(ids.isDisjoint(with: snapshot.entries.map(\.id)) && ids.count == 3)
        withExtendedLifetime(temporary) {}
    }
}
