// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A folder of Obsidian daily notes imported from the command line (README "Exports and
/// imports"): each note an entry (or one per `## HH:MM` heading), the PNG and JPEG files it
/// embeds as attachments byte for byte, what was left out reported, and a second import adding
/// nothing.
@Suite("jv import --format markdown-folder: Obsidian's daily notes and the files they embed", .tags(.e2e))
struct MarkdownFolderImportTests {
    static let jpeg = ExifImages.jpeg(taken: "2024:05:01 12:00:00", latitude: 52.516271, longitude: 13.377704)
    static let png = ExifImages.png(taken: "2024:05:01 18:30:00", latitude: 52.5163, longitude: 13.3777, seed: 3)

    static let note = """
        ---
        tags: [walk]
        mood: good
        ---
        Berlin walk #spring ![[gate.jpg|300]]
        ## 18:30 Dinner
        ![](photos/dinner.png) ![[lost.png]]
        """

    /// `notes/`: an Obsidian vault whose attachment folder is `Attachments`.
    static func notesFolder(in sandbox: Sandbox) throws -> String {
        try sandbox.folder.write("notes/.obsidian/app.json", #"{"attachmentFolderPath":"Attachments"}"#)
        try sandbox.folder.write("notes/Daily/2024/2024-05-01.md", note)
        try sandbox.folder.write("notes/Daily/2024/photos/dinner.png", png)
        try sandbox.folder.write("notes/Attachments/gate.jpg", jpeg)
        try sandbox.folder.write("notes/Ideas.md", "Someday.")
        return sandbox.folder.file("notes")
    }

    static let reports = [
        "jv: 1 photo in 1 entry was not imported (its file was not found in the folder; it is lost.png in Daily/2024/2024-05-01.md).",
        "jv: 1 note was not imported: neither its name (YYYY-MM-DD…) nor its front matter (date:) gives a day (Ideas.md).",
    ]

    @Test("the notes become entries with their files as attachments; importing again adds nothing")
    func importsTwice() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let folder = try Self.notesFolder(in: sandbox)
        let result = try sandbox.run(["import", "--json", folder, "--format", "markdown-folder"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines == Self.reports, "\(result)")
        let summary = try result.object()
        #expect(summary["added"] as? [String: Int] == ["entries": 2, "attachments": 2])
        let notImported = try #require(summary["not_imported"] as? [String: Any])
        #expect(notImported["attachments"] as? [String: Int] == ["photos": 1])
        #expect(notImported["notes_without_date"] as? Int == 1 && notImported["notes_outside_folder"] as? Int == 0)

        let listed = try sandbox.list()
        #expect(listed.contents == ["Berlin walk #spring ![[gate.jpg|300]]\n\n---\nmood: good\n---",
                                    "Dinner\n![](photos/dinner.png) ![[lost.png]]"])
        #expect(listed.map { $0["tags"] as? [String] ?? [] } == [["spring", "walk"], ["walk"]])
        #expect(listed.map { $0["created_at"] as? String } == ["2024-05-01T09:00:00.000+00:00", "2024-05-01T18:30:00.000+00:00"])
        let attachments = try DayOneAttachmentTests.exported(sandbox)
        #expect(attachments.map { $0.attachment["name"] as? String } == ["gate.jpg", "dinner.png"])
        #expect(attachments.map { $0.attachment["media_type"] as? String } == ["image/jpeg", "image/png"])
        #expect(attachments.map(\.bytes) == [Self.jpeg, Self.png])
        try sandbox.ok(["check"])

        let again = try sandbox.run(["import", folder, "--format", "markdown-folder"])
        #expect(again.errorLines == ["Imported \(folder): added nothing; updated nothing; unchanged 2 attachments, 2 entries."] + Self.reports,
                "\(again)")
        #expect(try DayOneAttachmentTests.rows(sandbox, "attachment") == 2 && DayOneAttachmentTests.rows(sandbox, "entry") == 2)
    }

    @Test("a file over [attachments] max_size stops the import, which imports nothing; a folder is needed")
    func limitAndUsage() throws {
        let sandbox = try Sandbox()
        try sandbox.folder.write("config/jv/config.toml", "[attachments]\nmax_size = 100\n")
        sandbox.environment["XDG_CONFIG_HOME"] = sandbox.folder.file("config")
        try sandbox.initVault()
        let folder = try Self.notesFolder(in: sandbox)
        let refused = try sandbox.fails(["import", folder, "--format", "markdown-folder"], status: 65)
        #expect(refused.err.contains("is larger than the limit of 100 bytes"), "\(refused)")
        #expect(try sandbox.entryCount() == 0)
        try sandbox.fails(["import", "-", "--format", "markdown-folder"], status: 64)
        try sandbox.fails(["import", folder + "/Ideas.md", "--format", "markdown-folder"], status: 64)
    }
}
