// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A Day One export folder as Day One writes it — `Journal.json` beside `photos/`, `audios/`,
/// `pdfs/` — imported from the command line: its photos (real JPEG and PNG files with EXIF time
/// and GPS position) come as attachments of their entries, byte for byte, with the time and place
/// Day One gives for them (README "Exports and imports").
@Suite("jv import --format dayone-json: an export folder's photos, audio and PDFs as attachments", .tags(.e2e))
struct DayOneAttachmentTests {
    static let jpegMD5 = "0e2d16db35b89f9880ee5b3441659d54"
    static let pngMD5 = "31c871f18f68d2fde4196ccba1f8ece1"
    static let audioMD5 = "f35f41739499e70c6b2714e3a7d82d8c"
    static let pdfMD5 = "9a0364b9e99bb480dd25e1f0284c8555"

    /// Photos taken in Berlin on 1 May 2024 at 12:00 and 12:05 local time (10:00Z, 10:05Z).
    static let jpeg = ExifImages.jpeg(taken: "2024:05:01 12:00:00", latitude: 52.516271, longitude: 13.377704)
    static let png = ExifImages.png(taken: "2024:05:01 12:05:00", latitude: 52.5163, longitude: 13.3777, seed: 7)
    static let audio = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// Two photos linked in the text, an audio recording it does not link, a PDF whose file is
    /// not in the folder; then an entry with text only.
    static let journal = #"""
        {"metadata":{"version":"1.0"},"entries":[
          {"uuid":"2A69239A5B364348AC64FA7758C2151B","creationDate":"2024-05-01T10:00:00Z","timeZone":"Europe/Berlin",
           "text":"Berlin walk\\.\n![](dayone-moment:\/\/AD6F2A6EC10C41AEA35E94BAD169936D)\nThe gate.\n![](dayone-moment:\/\/F73923DA29DA43CCB31CB2CDDB8239AA)",
           "photos":[{"identifier":"AD6F2A6EC10C41AEA35E94BAD169936D","md5":"0e2d16db35b89f9880ee5b3441659d54","type":"jpeg",
                      "date":"2024-05-01T10:00:00Z","width":8,"height":8,
                      "location":{"placeName":"Pariser Platz","latitude":52.516271,"longitude":13.377704}},
                     {"identifier":"F73923DA29DA43CCB31CB2CDDB8239AA","md5":"31c871f18f68d2fde4196ccba1f8ece1","type":"png",
                      "date":"2024-05-01T10:05:00Z","width":4,"height":4,"location":{"latitude":52.5163,"longitude":13.3777}}],
           "audios":[{"identifier":"08514236013D4E4A9389BFDC24A5F727","md5":"f35f41739499e70c6b2714e3a7d82d8c","format":"aac"}],
           "pdfAttachments":[{"identifier":"5C1A0B1E2D3F405A8B7C6D5E4F3A2B1C","md5":"9a0364b9e99bb480dd25e1f0284c8555"}]},
          {"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"Nothing but text\\."}
        ]}
        """#

    static let keptContent = """
        Berlin walk.
        [photo: \(jpegMD5).jpeg]
        The gate.
        [photo: \(pngMD5).png]

        [audio: \(audioMD5).m4a]
        [PDF: pdfs/\(pdfMD5).pdf, not imported]
        """

    static let pdfReport = "jv: 1 PDF in 1 entry was not imported (its file is not in the export folder); its place is marked in the text."

    /// The export folder, as unzipped from Day One, in the sandbox's folder.
    static func exportFolder(in sandbox: Sandbox) throws -> String {
        try sandbox.folder.write("dayone/Journal.json", journal)
        try sandbox.folder.write("dayone/photos/\(jpegMD5).jpeg", jpeg)
        try sandbox.folder.write("dayone/photos/\(pngMD5).png", png)
        try sandbox.folder.write("dayone/audios/\(audioMD5).m4a", audio)
        return sandbox.folder.file("dayone")
    }

    /// A vault with the Day One folder's photos and audio recording as attachments.
    static func vaultWithAttachments() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.ok(["import", try exportFolder(in: sandbox), "--format", "dayone-json"])
        return sandbox
    }

    /// The attachments of the vault's entries as `jv export --format json --output DIR/` lists
    /// them, each with the bytes of its file.
    static func exported(_ sandbox: Sandbox, into name: String = "out") throws -> [(attachment: [String: Any], bytes: Data)] {
        let folder = sandbox.folder.file(name) + "/"
        try sandbox.ok(["export", "--format", "json", "--output", folder])
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "index.json"))) as? [String: Any]
        let entries = try #require(document?["entries"] as? [[String: Any]])
        return try entries.flatMap { $0["attachments"] as? [[String: Any]] ?? [] }.map { attachment in
            let file = try #require(attachment["file"] as? String)
            return (attachment, try Data(contentsOf: URL(fileURLWithPath: folder + file)))
        }
    }

    /// How many rows `table` of the vault holds.
    static func rows(_ sandbox: Sandbox, _ table: String) throws -> Int? {
        Int(try sandbox.sqlite("SELECT count(*) FROM \(table)").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("the photos and the audio recording come with their entry, byte for byte, with Day One's time and place; the missing PDF is reported")
    func importsTheFolder() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let folder = try Self.exportFolder(in: sandbox)
        let result = try sandbox.run(["import", "--json", folder, "--format", "dayone-json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines == [Self.pdfReport], "\(result)")
        let summary = try result.object()
        #expect(summary["added"] as? [String: Int] == ["entries": 2, "attachments": 3])
        #expect((summary["not_imported"] as? [String: Any])?["attachments"] as? [String: Int] == ["pdfs": 1])
        #expect(try sandbox.list().contents == [Self.keptContent, "Nothing but text."])
        try sandbox.ok(["check"])

        let attachments = try Self.exported(sandbox)
        #expect(attachments.map { $0.attachment["name"] as? String } == ["\(Self.jpegMD5).jpeg", "\(Self.pngMD5).png", "\(Self.audioMD5).m4a"])
        #expect(attachments.map { $0.attachment["media_type"] as? String } == ["image/jpeg", "image/png", "audio/mp4"])
        #expect(attachments.map { $0.attachment["size"] as? Int } == [Self.jpeg.count, Self.png.count, Self.audio.count])
        #expect(attachments.map(\.bytes) == [Self.jpeg, Self.png, Self.audio])
        let photo = attachments[0].attachment
        #expect(photo["taken_at"] as? String == "2024-05-01T12:00:00.000+02:00")
        #expect(photo["location"] as? [String: Double] == ["latitude": 52.516271, "longitude": 13.377704])
        #expect(photo["width"] as? Int == 8 && photo["height"] as? Int == 8)
        #expect(attachments[1].attachment["taken_at"] as? String == "2024-05-01T12:05:00.000+02:00")
        #expect(attachments[2].attachment["taken_at"] == nil && attachments[2].attachment["location"] == nil)
    }

    @Test("importing again, from the folder or its Journal.json, adds nothing; from standard input the files cannot come")
    func importingAgainAddsNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let folder = try Self.exportFolder(in: sandbox)
        try sandbox.ok(["import", folder, "--format", "dayone-json"])
        let again = try sandbox.run(["import", folder + "/Journal.json", "--format", "dayone-json"])
        #expect(again.errorLines == ["Imported \(folder)/Journal.json: added nothing; updated nothing; unchanged 3 attachments, 2 entries.",
                                     Self.pdfReport], "\(again)")
        #expect(try Self.rows(sandbox, "attachment") == 3 && Self.rows(sandbox, "attachment_blob") == 3)

        let piped = try Sandbox()
        try piped.initVault()
        let result = try piped.run(["import", "-", "--format", "dayone-json"], stdin: Data(Self.journal.utf8))
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines.last == "jv: 2 photos, 1 audio recording and 1 PDF in 1 entry were not imported "
                + "(a file read from standard input brings no attachments); their places are marked in the text.", "\(result)")
        #expect(try Self.rows(piped, "attachment") == 0)
    }

    @Test("a photo whose file is a folder, or a link out of the export folder, is reported as missing; the rest comes")
    func notAFileInTheFolder() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let folder = try Self.exportFolder(in: sandbox)
        try FileManager.default.removeItem(atPath: "\(folder)/photos/\(Self.pngMD5).png")
        try FileManager.default.createDirectory(atPath: "\(folder)/photos/\(Self.pngMD5).png", withIntermediateDirectories: false)
        // The export's file names are untrusted: one may not bring a file from elsewhere on the machine.
        let outside = try sandbox.folder.write("not-for-the-vault.jpeg", Self.jpeg)
        try FileManager.default.removeItem(atPath: "\(folder)/photos/\(Self.jpegMD5).jpeg")
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/photos/\(Self.jpegMD5).jpeg", withDestinationPath: outside)
        let result = try sandbox.run(["import", folder, "--format", "dayone-json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines.last == "jv: 2 photos and 1 PDF in 1 entry were not imported (their files are not in the export folder); "
                + "their places are marked in the text.", "\(result)")
        #expect(try Self.rows(sandbox, "attachment") == 1)
    }
}
