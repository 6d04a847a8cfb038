// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv export --output DIR/` with attachments (README "Exports and imports", FORMAT.md §9): the
/// Markdown links them and the JSON lists them, their files written beside the document under
/// safe names, 0600 in 0700 folders, nothing replaced without --force; `jv import --format json
/// DIR` brings them back byte for byte under their ids.
@Suite("jv export to a folder with attachments, and jv import of it", .tags(.e2e))
struct ExportAttachmentTests {
    /// A jv export, written by hand, of one entry with a PDF whose name needs making safe.
    static let entryID = "5b0e5cb6-9c3e-4a8e-9a55-2f6f7a1d2c01"
    static let attachmentID = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
    static let oddName = ".résumé [1]?.pdf"
    static let pdf = Data("%PDF-1.4\n% a letter\n%%EOF\n".utf8)

    @discardableResult
    static func handMadeExport(in sandbox: Sandbox, size: Int = pdf.count) throws -> String {
        try sandbox.folder.write("made/attachments/letter.pdf", pdf)
        return try sandbox.folder.write("made/index.json", """
            {"format": "jv-export", "version": 1, "entries": [{"id": "\(entryID)", "content": "A letter came.",
             "created_at": "2024-06-01T09:00:00.000+02:00",
             "attachments": [{"id": "\(attachmentID)", "name": "\(oddName)", "media_type": "application/pdf", "size": \(size),
                              "file": "attachments/letter.pdf"}]}]}
            """)
    }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("markdown to a folder: index.md links each attachment at attachments/<id>-<name>, files 0600, folders 0700; no file replaced without --force")
    func markdownFolder() throws {
        let sandbox = try DayOneAttachmentTests.vaultWithAttachments()
        let out = sandbox.folder.file("journal")
        let result = try sandbox.run(["export", "--format", "markdown", "--output", out + "/"])
        #expect(result.status == 0 && result.errorLines.isEmpty, "\(result)")
        let index = try String(contentsOfFile: out + "/index.md", encoding: .utf8)
        let links = index.split(separator: "\n").filter { $0.contains("](attachments/") }.map(String.init)
        #expect(links.count == 3, "\(index)")
        let targets = links.compactMap { link in link.split(separator: "(").last.map { String($0.dropLast()) } }
        #expect(links.map { $0.hasPrefix("![") } == [true, true, false])
        #expect(links[0].hasPrefix("![\(DayOneAttachmentTests.jpegMD5).jpeg](attachments/"))
        for target in targets { #expect(try mode(out + "/" + target) == 0o600) }
        #expect(try targets.map { try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0)) }
                == [DayOneAttachmentTests.jpeg, DayOneAttachmentTests.png, DayOneAttachmentTests.audio])
        #expect(try mode(out) == 0o700 && mode(out + "/attachments") == 0o700 && mode(out + "/index.md") == 0o600)

        try sandbox.fails(["export", "--format", "markdown", "--output", out], status: 73)
        try FileManager.default.removeItem(atPath: out + "/index.md")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/" + targets[0]))
        try sandbox.fails(["export", "--format", "markdown", "--output", out], status: 73)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + targets[0])) == Data("mine".utf8), "not replaced")
        #expect(!FileManager.default.fileExists(atPath: out + "/index.md"), "the document comes last")
        try sandbox.ok(["export", "--format", "markdown", "--output", out, "--force"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + targets[0])) == DayOneAttachmentTests.jpeg)

        let wrong = try sandbox.folder.write("wrong.txt", "not the passphrase\n")
        let refused = try sandbox.run(["export", "--format", "markdown", "--output", out + "-2/"], env: ["JV_PASSPHRASE_FILE": wrong])
        #expect(refused.status == 77, "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: out + "-2"), "a refused passphrase makes no folder")
    }

    @Test("json to a folder and back into another vault: the same attachments, ids and bytes; again, nothing is added")
    func jsonRoundTrip() throws {
        let source = try DayOneAttachmentTests.vaultWithAttachments()
        let original = try DayOneAttachmentTests.exported(source)
        let target = try Sandbox()
        try target.initVault()
        let result = try target.run(["import", "--json", source.folder.file("out"), "--format", "json"])
        #expect(result.status == 0 && result.errorLines.isEmpty, "\(result)")
        #expect(try result.object()["added"] as? [String: Int] == ["entries": 2, "attachments": 3])
        let copied = try DayOneAttachmentTests.exported(target)
        #expect(copied.map(\.bytes) == original.map(\.bytes))
        #expect(copied.map { $0.attachment as NSDictionary } == original.map { $0.attachment as NSDictionary }, "ids, names, times, places")
        let again = try target.run(["import", "--json", source.folder.file("out/index.json"), "--format", "json"])
        #expect(try again.object()["unchanged"] as? [String: Int] == ["entries": 2, "attachments": 3], "\(again)")
        try target.ok(["check"])
    }

    @Test("a name made safe: no leading dot, nothing but letters, digits, . - _ and spaces; the link percent-encoded and its text escaped")
    func safeNames() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try Self.handMadeExport(in: sandbox)
        try sandbox.ok(["import", sandbox.folder.file("made"), "--format", "json"])
        let out = sandbox.folder.file("out")
        try sandbox.ok(["export", "--format", "markdown", "--output", out + "/"])
        let file = "attachments/\(Self.attachmentID)-_résumé _1__.pdf"
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + file)) == Self.pdf)
        let index = try String(contentsOfFile: out + "/index.md", encoding: .utf8)
        #expect(index.contains("[.résumé \\[1\\]?.pdf](attachments/\(Self.attachmentID)-_r%C3%A9sum%C3%A9%20_1__.pdf)"), "\(index)")
    }

    @Test("an attachment file of another size than the export lists stops the import: nothing is imported (exit 65)")
    func wrongSizeImportsNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let document = try Self.handMadeExport(in: sandbox, size: Self.pdf.count + 1)
        try sandbox.fails(["import", document, "--format", "json"], status: 65)
        #expect(try sandbox.list().isEmpty)
        #expect(try DayOneAttachmentTests.rows(sandbox, "attachment") == 0)
    }

    @Test("--no-attachments leaves them out of a folder; an export to one file or standard output says how many it left out")
    func leftOut() throws {
        let sandbox = try DayOneAttachmentTests.vaultWithAttachments()
        let out = sandbox.folder.file("bare")
        let bare = try sandbox.run(["export", "--format", "json", "--output", out + "/", "--no-attachments"])
        #expect(bare.status == 0 && bare.errorLines.isEmpty, "\(bare)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["index.json"])
        #expect(!(try String(contentsOfFile: out + "/index.json", encoding: .utf8)).contains("\"attachments\""))
        let piped = try sandbox.run(["export", "--format", "markdown"])
        #expect(piped.status == 0, "\(piped)")
        #expect(piped.errorLines == ["jv: 3 attachments of the exported entries were left out: a single file cannot carry them; "
                                     + "--output DIR/ writes them beside the document."], "\(piped)")
        #expect(!piped.out.contains("](attachments/"))
        try sandbox.fails(["export", "--format", "txt", "--output", out + "/"], status: 64)
    }
}
