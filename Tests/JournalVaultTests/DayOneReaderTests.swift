// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// What a Day One import keeps beside the text (README "Exports and imports"): location and
/// weather as last lines, a placeholder where each attachment was, and a count of what was left.
@Suite struct DayOneReaderTests {
    /// One entry as Day One exports it: two photos and an audio recording linked in the text, a
    /// video the text does not link, a location (with Day One's `region`, not read) and weather.
    static let richExport = #"""
        {"metadata":{"version":"1.0"},"entries":[
          {"uuid":"2A69239A5B364348AC64FA7758C2151B","creationDate":"2024-05-01T10:00:00Z","timeZone":"Europe/Berlin",
           "text":"![](dayone-moment:\/\/AD6F2A6EC10C41AEA35E94BAD169936D)\n\nBerlin walk\\. Lunch by the gate.\n![](dayone-moment:\/\/F73923DA29DA43CCB31CB2CDDB8239AA)\n![](dayone-moment:\/audio\/08514236013D4E4A9389BFDC24A5F727)",
           "location":{"region":{"center":{"longitude":13.3777,"latitude":52.5163},"radius":75},"placeName":"Pariser Platz 1",
                       "localityName":"Berlin","administrativeArea":"Berlin","country":"Germany","latitude":52.516271,"longitude":13.377704},
           "weather":{"conditionsDescription":"Mostly Cloudy","temperatureCelsius":11.6,"relativeHumidity":71,"windSpeedKPH":9.4,
                      "weatherCode":"cloudy","weatherServiceName":"HAMweather"},
           "photos":[{"identifier":"AD6F2A6EC10C41AEA35E94BAD169936D","md5":"0e2d16db35b89f9880ee5b3441659d54","type":"jpeg","orderInEntry":0},
                     {"identifier":"F73923DA29DA43CCB31CB2CDDB8239AA","md5":"31c871f18f68d2fde4196ccba1f8ece1","type":"heic","orderInEntry":1}],
           "audios":[{"identifier":"08514236013D4E4A9389BFDC24A5F727","md5":"f35f41739499e70c6b2714e3a7d82d8c","format":"aac","duration":12.5}],
           "videos":[{"identifier":"6F9B2DC7EADE4242A80DC76470D2264E","md5":"d500d6789ff2c211af3f507b17be8e66","type":"mp4"}]},
          {"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"Nothing but text\\."}
        ]}
        """#

    static let richContent = """
        [photo: photos/0e2d16db35b89f9880ee5b3441659d54.jpeg, not imported]

        Berlin walk. Lunch by the gate.
        [photo: photos/31c871f18f68d2fde4196ccba1f8ece1.heic, not imported]
        [audio: audios/f35f41739499e70c6b2714e3a7d82d8c.m4a, not imported]

        [video: videos/d500d6789ff2c211af3f507b17be8e66.mp4, not imported]
        Location: Pariser Platz 1, Berlin, Germany (52.51627, 13.37770)
        Weather: Mostly Cloudy, 12 °C, 71 % humidity, wind 9 km/h
        """

    @Test func locationWeatherAndAttachmentPlaceholdersBecomeText() throws {
        let snapshot = try ImportFormat.dayOneJSON.read(Array(Self.richExport.utf8))
        #expect(snapshot.entries.map(\.content) == [Self.richContent, "Nothing but text."])
        #expect(snapshot.entries[0].title == "[photo: photos/0e2d16db35b89f9880ee5b3441659d54.jpeg, not imported]")
        #expect(snapshot.omissions.attachments == [.photo: 2, .audio: 1, .video: 1])
        #expect(snapshot.omissions.recordsWithAttachments == [1])
        #expect(snapshot.omissions.recordsWithUnreadableLocationOrWeather.isEmpty)
        #expect(snapshot.omissions.recordsWithoutRoomForNotes.isEmpty)
    }

    @Test func anEntryWithNothingBesideItsTextIsImportedAsBefore() throws {
        let bytes = Array(#"{"entries":[{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"Plain \\(really\\)","location":null,"photos":[]}]}"#.utf8)
        let snapshot = try ImportFormat.dayOneJSON.read(bytes)
        #expect(snapshot.entries.map(\.content) == ["Plain (really)"])
        #expect(snapshot.omissions.isEmpty)
    }

    @Test func linksWithoutAListedAttachmentAndEscapedLinksTheWriterTyped() throws {
        // A PDF and a sketch-like link Day One did not list; a photo list that is not a list; a
        // listed photo with a path and a fake md5 instead of a file name; and a link the writer
        // typed as text, which Day One escaped, stays text.
        let text = #"![](dayone-moment:\/pdfAttachment\/ABCDEF12)\nA \\!\\[\\](dayone-moment:\/\/AD6F2A6EC10C41AEA35E94BAD169936D\\)\n"#
            + #"![](dayone-moment:\/sketch\/0011)\n![](dayone-moment:\/\/AD6F2A6EC10C41AEA35E94BAD169936D)\n![](dayone-moment:\/\/AD6F2A6EC10C41AEA35E94BAD169936D)"#
        let bytes = Array(#"""
            {"entries":[{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"\#(text)",
             "videos":"none","photos":[7,{"identifier":"AD6F2A6EC10C41AEA35E94BAD169936D","md5":"not-hex","type":"..\/..\/etc"}]}]}
            """#.utf8)
        let snapshot = try ImportFormat.dayOneJSON.read(bytes)
        #expect(snapshot.entries.map(\.content) == ["""
            [PDF, not imported]
            A ![](dayone-moment://AD6F2A6EC10C41AEA35E94BAD169936D)
            [attachment, not imported]
            [photo, not imported]
            [photo, not imported]
            """])
        // The photo linked twice is one photo.
        #expect(snapshot.omissions.attachments == [.photo: 1, .pdf: 1, .other: 1])
        #expect(snapshot.omissions.recordsWithAttachments == [1])
    }

    /// (location or weather, the line kept, or nil for none): each value is unreadable.
    static let unreadable: [(String, String?)] = [
        (#""location":"Berlin""#, nil),
        (#""location":{"placeName":42,"localityName":"Berlin","country":"Germany"}"#, "Location: Berlin, Germany"),
        (#""location":{"latitude":"52.5","longitude":13.4}"#, nil),
        (#""location":{"latitude":95,"longitude":13.4,"country":"Germany"}"#, "Location: Germany"),
        (#""location":{"placeName":"\#(String(repeating: "x", count: 201))","country":"Germany"}"#, "Location: Germany"),
        (#""weather":[1,2]"#, nil),
        (#""weather":{"conditionsDescription":"Rain","temperatureCelsius":"warm"}"#, "Weather: Rain"),
        (#""weather":{"conditionsDescription":true,"temperatureCelsius":1e30,"relativeHumidity":-5,"windSpeedKPH":3}"#, "Weather: wind 3 km/h"),
    ]

    @Test func anUnreadableLocationOrWeatherValueIsLeftOutAndCounted() throws {
        for (member, line) in Self.unreadable {
            let bytes = Array(#"""
                {"entries":[{"uuid":"0FB1A2B3C4D5E6F708192A3B4C5D6E7F","creationDate":"2024-03-05T07:30:00Z","text":"ok"},
                {"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"Out.",\#(member)}]}
                """#.utf8)
            let snapshot = try ImportFormat.dayOneJSON.read(bytes)
            #expect(snapshot.entries.map(\.content) == ["ok", line.map { "Out.\n\n" + $0 } ?? "Out."], "\(member)")
            #expect(snapshot.omissions.recordsWithUnreadableLocationOrWeather == [2], "\(member)")
        }
    }

    @Test func controlCharactersAndLineBreaksInAValueCannotBreakItsLine() throws {
        let bytes = Array(#"""
            {"entries":[{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"Out.",
             "location":{"placeName":"  Café\n\u001b[2J Rose\u0085\t","localityName":"Paris","country":"Paris","latitude":null},
             "weather":{"conditionsDescription":"Clear\u2028Night","temperatureCelsius":-0.4}}]}
            """#.utf8)
        let snapshot = try ImportFormat.dayOneJSON.read(bytes)
        #expect(snapshot.entries.map(\.content) == ["Out.\n\nLocation: Café [2J Rose, Paris\nWeather: Clear Night, 0 °C"])
        #expect(snapshot.omissions.isEmpty)
    }

    @Test func aTextWithNoRoomForTheNotesKeepsTheTextAlone() throws {
        let long = String(repeating: "a", count: Entry.maximumCharacters - 10)
        let bytes = Array(#"""
            {"entries":[{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-05-02T10:00:00Z","text":"\#(long)",
             "location":{"country":"Germany"},"photos":[{"identifier":"AD6F2A6EC10C41AEA35E94BAD169936D"}]}]}
            """#.utf8)
        let snapshot = try ImportFormat.dayOneJSON.read(bytes)
        #expect(snapshot.entries.map(\.content) == [long])
        #expect(snapshot.omissions.recordsWithoutRoomForNotes == [1])
        #expect(snapshot.omissions.attachments == [.photo: 1])
    }
}
