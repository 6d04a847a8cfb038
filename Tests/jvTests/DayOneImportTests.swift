// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv import --format dayone-json` of what Day One keeps beside the text (README "Exports and
/// imports"): location and weather as last lines, placeholders for attachments whose files are
/// not in the folder (see ``DayOneAttachmentTests`` for those that are), and a report on standard
/// error and in `--json` of what was left behind.
@Suite("jv import --format dayone-json: location, weather and attachments", .tags(.e2e))
struct DayOneImportTests {
    /// An entry with a location, weather, two photos and an audio recording, then one with text only.
    static let export = #"""
        {"metadata":{"version":"1.0"},"entries":[
          {"uuid":"2A69239A5B364348AC64FA7758C2151B","creationDate":"2024-05-01T10:00:00Z","timeZone":"Europe/Berlin",
           "text":"Berlin walk\\.\n![](dayone-moment:\/\/AD6F2A6EC10C41AEA35E94BAD169936D)\nThe gate.\n![](dayone-moment:\/\/F73923DA29DA43CCB31CB2CDDB8239AA)\n![](dayone-moment:\/audio\/08514236013D4E4A9389BFDC24A5F727)",
           "location":{"placeName":"Pariser Platz 1","localityName":"Berlin","administrativeArea":"Berlin","country":"Germany",
                       "latitude":52.516271,"longitude":13.377704},
           "weather":{"conditionsDescription":"Light Rain","temperatureCelsius":8.2,"relativeHumidity":88,"windSpeedKPH":22},
           "photos":[{"identifier":"AD6F2A6EC10C41AEA35E94BAD169936D","md5":"0e2d16db35b89f9880ee5b3441659d54","type":"jpeg"},
                     {"identifier":"F73923DA29DA43CCB31CB2CDDB8239AA","md5":"31c871f18f68d2fde4196ccba1f8ece1","type":"png"}],
           "audios":[{"identifier":"08514236013D4E4A9389BFDC24A5F727","md5":"f35f41739499e70c6b2714e3a7d82d8c","format":"aac"}]},
          {"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"Nothing but text\\.","tags":["quiet"]}
        ]}
        """#

    static let keptContent = """
        Berlin walk.
        [photo: photos/0e2d16db35b89f9880ee5b3441659d54.jpeg, not imported]
        The gate.
        [photo: photos/31c871f18f68d2fde4196ccba1f8ece1.png, not imported]
        [audio: audios/f35f41739499e70c6b2714e3a7d82d8c.m4a, not imported]

        Location: Pariser Platz 1, Berlin, Germany (52.51627, 13.37770)
        Weather: Light Rain, 8 °C, 88 % humidity, wind 22 km/h
        """

    static let attachmentReport = "jv: 2 photos and 1 audio recording in 1 entry were not imported (their files are not in the export folder); "
        + "their places are marked in the text."

    @Test("location and weather are kept as last lines, attachments become placeholders, and jv says what it left behind")
    func importKeepsWhatItCanAndReports() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let path = try sandbox.folder.write("Journal.json", Self.export)
        let result = try sandbox.run(["import", "--json", path, "--format", "dayone-json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines == [Self.attachmentReport], "\(result)")
        let summary = try result.object()
        #expect((summary["added"] as? [String: Int])?["entries"] == 2)
        let notImported = try #require(summary["not_imported"] as? [String: Any], "\(result)")
        #expect(notImported["attachments"] as? [String: Int] == ["photos": 2, "audio_recordings": 1])
        #expect(notImported["entries_with_attachments"] as? Int == 1)
        #expect(notImported["entries_with_unreadable_location_or_weather"] as? Int == 0)
        #expect(notImported["entries_without_room_for_notes"] as? Int == 0)
        let listed = try sandbox.list()
        #expect(listed.contents == [Self.keptContent, "Nothing but text."])
        #expect(listed.map { $0["tags"] as? [String] ?? [] } == [[], ["quiet"]])
        #expect(!(try sandbox.run(["export", "--format", "json"]).out.contains("dayone-moment")))
    }

    @Test("the report follows the summary line without --json; importing again changes nothing and says the same")
    func reportWithoutJSONAndAgain() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let path = try sandbox.folder.write("Journal.json", Self.export)
        let first = try sandbox.run(["import", path, "--format", "dayone-json"])
        #expect(first.status == 0, "\(first)")
        #expect(first.errorLines == ["Imported \(path): added 2 entries; updated nothing; unchanged nothing.", Self.attachmentReport], "\(first)")
        let again = try sandbox.run(["import", path, "--format", "dayone-json"])
        #expect(again.errorLines == ["Imported \(path): added nothing; updated nothing; unchanged 2 entries.", Self.attachmentReport], "\(again)")
    }

    @Test("the kept lines round-trip through jv's own export")
    func keptLinesRoundTrip() throws {
        let source = try Sandbox()
        try source.initVault()
        try Sandbox.requireSuccess(try source.run(["import", try source.folder.write("Journal.json", Self.export), "--format", "dayone-json"]))
        let exported = try source.folder.write("export.json", try source.run(["export", "--format", "json"]).stdout)
        let target = try Sandbox()
        try target.initVault()
        let result = try target.run(["import", exported, "--format", "json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines.count == 1, "a jv export leaves nothing behind: \(result)")
        #expect(try target.list().contents == [Self.keptContent, "Nothing but text."])
    }

    @Test("an export with text only imports as before, with nothing to report")
    func textOnlyIsUnchanged() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let path = try sandbox.folder.write("Journal.json", #"""
            {"entries":[{"uuid":"0FB1A2B3C4D5E6F708192A3B4C5D6E7F","creationDate":"2024-03-05T07:30:00Z","text":"Morning walk\\. #spring","photos":[]}]}
            """#)
        let result = try sandbox.run(["import", "--json", path, "--format", "dayone-json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines.isEmpty, "\(result)")
        let notImported = try #require(try result.object()["not_imported"] as? [String: Any])
        #expect(notImported["attachments"] as? [String: Int] == [:])
        #expect(notImported["entries_with_attachments"] as? Int == 0)
        #expect(try sandbox.list().contents == ["Morning walk. #spring"])
    }

    @Test("malformed location and weather values are left out and counted; the import goes on")
    func malformedLocationAndWeather() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let path = try sandbox.folder.write("Journal.json", #"""
            {"entries":[
              {"uuid":"0FB1A2B3C4D5E6F708192A3B4C5D6E7F","creationDate":"2024-03-05T07:30:00Z","text":"Fine.","location":{"country":"France"}},
              {"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-03-06T07:30:00Z","text":"Odd place.",
               "location":{"placeName":["x"],"country":"France","latitude":"north","longitude":1e300}},
              {"uuid":"2A69239A5B364348AC64FA7758C2151B","creationDate":"2024-03-07T07:30:00Z","text":"Odd sky.",
               "weather":"sunny"}
            ]}
            """#)
        let result = try sandbox.run(["import", "--json", path, "--format", "dayone-json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errorLines == ["jv: An unreadable location or weather value was left out of 2 entries (the first is record 2 in the file)."],
                "\(result)")
        let summary = try result.object()
        #expect((summary["added"] as? [String: Int])?["entries"] == 3)
        #expect((summary["not_imported"] as? [String: Any])?["entries_with_unreadable_location_or_weather"] as? Int == 2)
        #expect(try sandbox.list().contents == ["Fine.\n\nLocation: France", "Odd place.\n\nLocation: France", "Odd sky."])
    }
}
