// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What a Day One entry holds beside its text, turned into text jv can keep: a marker for each
/// attachment where the text linked it (`[photo: <md5>.jpeg]` for one imported from the export
/// folder, `[photo: photos/<md5>.jpeg, not imported]` for one whose file is not there) and lines for its location and
/// weather (`Location: Brandenburger Tor, Berlin, Germany (52.51627, 13.37770)`,
/// `Weather: Mostly Cloudy, 12 °C, 71 % humidity, wind 9 km/h`). All of it is untrusted: a value
/// of the wrong type, out of range or too long is left out and reported, never fatal.
extension DayOneReader {
    /// The longest place name or weather description kept, in characters.
    static let maximumNoteCharacters = 200

    /// The entry's Day One link to an attachment: `![](dayone-moment://ID)` for a photo,
    /// `![](dayone-moment:/video/ID)` (also `audio`, `pdfAttachment`) for the others.
    private static let momentLink = "![](dayone-moment:"
    /// The longest link target read after `dayone-moment:`; a longer one is left as text.
    private static let maximumMomentPath = 200

    /// An attachment an entry lists (`photos`, `videos`, `audios`, `pdfAttachments`).
    struct Attachment: Equatable {
        let kind: AttachmentKind
        /// How the text links it (Day One's 32 hex digits), if the entry says.
        let identifier: String?
        /// Where Day One's export folder holds it (`photos/<md5>.jpeg`), if the entry says.
        let file: String?
        /// What Day One says of the file: when and where it was taken, its pixel size.
        var taken: Instant? = nil
        var location: GeoLocation? = nil
        var width: Int? = nil
        var height: Int? = nil
        /// Where its file was found, in the export folder.
        var foundAt: String? = nil

        /// The name it is attached under, its file's (`<md5>.jpeg`), once the file was found.
        var keptAs: String? { foundAt == nil ? nil : file?.split(separator: "/").last.map(String.init) }

        var placeholder: String {
            keptAs.map { "[\(kind.label): \($0)]" } ?? "[\(kind.label)\(file.map { ": " + $0 } ?? ""), not imported]"
        }
    }

    /// The text with its attachment links replaced by placeholders, what was lost, and the
    /// listed attachments the text never links (they get a placeholder line at the end).
    struct MarkedText {
        var text: String
        var lost: [AttachmentKind]
        var unlinked: [Attachment]
    }

    /// Day One's lists of attachments in `item`, in the order photos, videos, audio, PDFs.
    /// An element that is not an object is no attachment; one with unreadable details is still
    /// one, named by its kind alone.
    static func attachments(of item: JSONValue) -> [Attachment] {
        let lists: [(AttachmentKind, key: String, folder: String)] = [
            (.photo, "photos", "photos"), (.video, "videos", "videos"), (.audio, "audios", "audios"), (.pdf, "pdfAttachments", "pdfs"),
        ]
        return lists.flatMap { kind, key, folder in
            (item[key]?.arrayValue ?? []).compactMap { element -> Attachment? in
                guard case .object = element else { return nil }
                let identifier = element["identifier"]?.stringValue.flatMap(momentIdentifier)
                let md5 = element["md5"]?.stringValue.flatMap { $0.count == 32 && $0.allSatisfy(\.isHexDigit) ? $0.lowercased() : nil }
                // Day One calls a photo's or video's file type `type` and an audio recording's
                // `format`; it saves recordings it calls `aac` as `.m4a`.
                let declared = (element["type"] ?? element["format"])?.stringValue
                    .flatMap { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? $0.lowercased() : nil }
                let fileExtension = kind == .audio && declared == "aac" ? "m4a" : declared ?? (kind == .pdf ? "pdf" : nil)
                let file = md5.flatMap { md5 in fileExtension.map { "\(folder)/\(md5).\($0)" } }
                var attachment = Attachment(kind: kind, identifier: identifier, file: file)
                // Untrusted like the rest: a value of the wrong type or out of range is not kept.
                attachment.taken = try? element.optionalInstant("date") { ImportError(reason: $0) }
                var place = NoteFields(element["location"])
                if let latitude = place.number("latitude", in: -90...90), let longitude = place.number("longitude", in: -180...180) {
                    attachment.location = GeoLocation(latitude: latitude, longitude: longitude)
                }
                func pixels(_ key: String) -> Int? {
                    guard case .integer(let value)? = element[key], (1...1_000_000).contains(value) else { return nil }
                    return Int(value)
                }
                attachment.width = pixels("width")
                attachment.height = pixels("height")
                return attachment
            }
        }
    }

    /// Replaces each `![](dayone-moment:…)` link in Day One's raw `text` (before its Markdown
    /// escapes are undone, so a link the writer typed as text, which Day One escaped, stays text).
    static func markingAttachments(in text: String, listed: [Attachment]) -> MarkedText {
        var byIdentifier: [String: Int] = [:]
        for (index, attachment) in listed.enumerated() {
            if let identifier = attachment.identifier, byIdentifier[identifier] == nil { byIdentifier[identifier] = index }
        }
        var linked = Set<Int>()
        var unknownLinks: [String: AttachmentKind] = [:]
        var marked = ""
        var rest = text[...]
        while let link = rest.firstRange(of: momentLink) {
            let path = rest[link.upperBound...].prefix(maximumMomentPath + 1)
            guard let close = path.firstIndex(where: { $0 == ")" || $0.isWhitespace }), rest[close] == ")" else {
                marked += rest[..<link.upperBound]
                rest = rest[link.upperBound...]
                continue
            }
            let (kind, identifier) = moment(rest[link.upperBound..<close])
            marked += rest[..<link.lowerBound]
            if let identifier, let index = byIdentifier[identifier] {
                linked.insert(index)
                marked += listed[index].placeholder
            } else {
                unknownLinks["\(kind.rawValue)/\(identifier ?? "")"] = kind
                marked += Attachment(kind: kind, identifier: identifier, file: nil).placeholder
            }
            rest = rest[rest.index(after: close)...]
        }
        marked += rest
        let unlinked = listed.indices.filter { !linked.contains($0) }.map { listed[$0] }
        let lost = listed.filter { $0.keptAs == nil }.map(\.kind) + unknownLinks.values.sorted()
        return MarkedText(text: marked, lost: lost, unlinked: unlinked)
    }

    /// The kind and identifier a link's target names: `//ID` is a photo, `/video/ID` a video.
    private static func moment(_ path: Substring) -> (AttachmentKind, String?) {
        if path.hasPrefix("//") { return (.photo, momentIdentifier(String(path.dropFirst(2)))) }
        let parts = path.drop(while: { $0 == "/" }).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let kinds: [Substring: AttachmentKind] = ["video": .video, "audio": .audio, "pdfAttachment": .pdf]
        guard parts.count == 2 else { return (.other, nil) }
        return (kinds[parts[0]] ?? .other, momentIdentifier(String(parts[1])))
    }

    /// An identifier as Day One writes them (hexadecimal, sometimes a dashed UUID), upper-cased
    /// so a link and its list entry match whatever their case; nil for anything else.
    private static func momentIdentifier(_ text: String) -> String? {
        guard (1...64).contains(text.utf8.count), text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        return text.uppercased()
    }

    /// A line of the entry's notes, and whether a value was left out of it as unreadable.
    struct NoteLine {
        var text: String?
        var leftOutUnreadable: Bool
    }

    /// `Location: placeName, localityName, administrativeArea, country (latitude, longitude)`,
    /// a name repeated by a later field written once, coordinates to five decimals (about 1 m).
    static func locationLine(_ value: JSONValue?) -> NoteLine {
        var location = NoteFields(value)
        var names: [String] = []
        for key in ["placeName", "localityName", "administrativeArea", "country"] {
            if let name = location.text(key), !names.contains(name) { names.append(name) }
        }
        var coordinates: String?
        let latitude = location.number("latitude", in: -90...90)
        let longitude = location.number("longitude", in: -180...180)
        if let latitude, let longitude {
            coordinates = String(format: "%.5f, %.5f", latitude, longitude)
        } else if latitude != nil || longitude != nil {
            location.leftOutUnreadable = true
        }
        let place = names.joined(separator: ", ")
        let line: String? = switch (place.isEmpty, coordinates) {
        case (true, nil): nil
        case (true, let coordinates?): "Location: \(coordinates)"
        case (false, nil): "Location: \(place)"
        case (false, let coordinates?): "Location: \(place) (\(coordinates))"
        }
        return NoteLine(text: line, leftOutUnreadable: location.leftOutUnreadable)
    }

    /// `Weather: conditionsDescription, temperatureCelsius °C, relativeHumidity % humidity,
    /// wind windSpeedKPH km/h`, numbers rounded to whole units as Day One shows them.
    static func weatherLine(_ value: JSONValue?) -> NoteLine {
        var weather = NoteFields(value)
        func whole(_ number: Double) -> Int { Int(number.rounded()) }
        let parts = [
            weather.text("conditionsDescription"),
            weather.number("temperatureCelsius", in: -100...100).map { "\(whole($0)) °C" },
            weather.number("relativeHumidity", in: 0...100).map { "\(whole($0)) % humidity" },
            weather.number("windSpeedKPH", in: 0...500).map { "wind \(whole($0)) km/h" },
        ].compactMap { $0 }
        return NoteLine(text: parts.isEmpty ? nil : "Weather: " + parts.joined(separator: ", "), leftOutUnreadable: weather.leftOutUnreadable)
    }

    /// `text` on one line: control characters and runs of white space (line breaks included)
    /// become one space, so a value cannot break the note's line; nil when over `limit`.
    static func singleLine(_ text: String, limit: Int = maximumNoteCharacters) -> String? {
        guard text.prefix(limit + 1).count <= limit else { return nil }
        var line = ""
        var spaceBefore = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                spaceBefore = !line.isEmpty
            } else {
                if spaceBefore { line += " " }
                spaceBefore = false
                line.unicodeScalars.append(scalar)
            }
        }
        return line
    }
}

/// The optional members of an untrusted object (Day One's `location`, `weather`): absent or
/// null is nothing; present but unreadable is nothing too, and noted.
private struct NoteFields {
    let object: JSONValue?
    var leftOutUnreadable = false

    init(_ value: JSONValue?) {
        switch value {
        case nil, .null?: object = nil
        case .object?: object = value
        default:
            object = nil
            leftOutUnreadable = true
        }
    }

    mutating func text(_ key: String) -> String? {
        guard let value = object?[key], value != .null else { return nil }
        guard let line = value.stringValue.flatMap({ DayOneReader.singleLine($0) }) else {
            leftOutUnreadable = true
            return nil
        }
        return line.isEmpty ? nil : line
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>) -> Double? {
        guard let value = object?[key], value != .null else { return nil }
        guard let number = value.doubleValue, range.contains(number) else {
            leftOutUnreadable = true
            return nil
        }
        return number
    }
}
