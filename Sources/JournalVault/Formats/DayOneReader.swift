// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Day One's JSON export (`Journal.json`): `{"entries": [{uuid, creationDate, timeZone, text,
/// tags, starred, modifiedDate, location, weather, photos, videos, audios, pdfAttachments}]}`.
/// Its uuid becomes the entry id, so importing twice adds nothing. The photos, videos, audio
/// recordings and PDFs found in `folder` (Day One's export folder: `photos/<md5>.jpeg`, …) come
/// as attachments of their entries, with the time, place and pixel size Day One gives for them.
/// What jv cannot keep as such becomes text (see `DayOneNotes.swift`) and is counted in the
/// snapshot's omissions.
enum DayOneReader {
    static func read(_ bytes: [UInt8], folder: ImportFolder? = nil) throws -> VaultSnapshot {
        let document = try ImportError.parsing(bytes)
        guard let items = document["entries"]?.arrayValue else { throw ImportError(reason: "no \"entries\" list: not a Day One JSON export") }
        var snapshot = VaultSnapshot()
        snapshot.omissions.attachmentFolderSearched = folder != nil
        snapshot.omissions.attachmentsMarkedInText = true
        snapshot.entries = try items.enumerated().map { index, item in
            let record = index + 1
            func fail(_ reason: String) -> ImportError { ImportError(record: record, reason: reason) }
            guard let uuidText = item["uuid"]?.stringValue, let id = dayOneUUID(uuidText) else { throw fail("uuid is missing or not 32 hexadecimal digits") }
            var created = try item.requiredInstant("creationDate", fail)
            let zone = item["timeZone"]?.stringValue.flatMap(TimeZone.init(identifier:))
            if let zone { created.utcOffsetSeconds = zone.secondsFromGMT(for: created.date) }
            let modified = try item.optionalInstant("modifiedDate", fail)?.millis ?? created.millis
            let listed = attachments(of: item).map { attachment in
                var attachment = attachment
                attachment.foundAt = attachment.file.flatMap { folder?.file($0) }
                return attachment
            }
            let marked = markingAttachments(in: try item.requiredString("text", fail), listed: listed)
            let text: String
            do { text = try ContentRules.validated(unescapeMarkdown(marked.text)) } catch let error as VaultError { throw fail(error.description) }
            let content = withNotes(text, marked: marked, item: item, record: record, omissions: &snapshot.omissions)
            let inline = Set(Tags.inline(in: content))
            let tags = try item.stringList("tags", fail).compactMap(Tags.normalize).filter { !inline.contains($0) }
            snapshot.attachments += kept(listed, of: id, zone: zone)
            return Entry(id: id, content: content, created: created, modifiedAt: modified,
                         starred: try item.optionalBool("starred", fail), explicitTags: tags)
        }
        return snapshot
    }

    /// `text` with a last paragraph of placeholders for the attachments it does not link and
    /// lines for the location and weather; what is lost or left out is added to `omissions`.
    private static func withNotes(_ text: String, marked: MarkedText, item: JSONValue, record: Int, omissions: inout ImportOmissions) -> String {
        if !marked.lost.isEmpty {
            for kind in marked.lost { omissions.attachments[kind, default: 0] += 1 }
            omissions.recordsWithAttachments.append(record)
        }
        let location = locationLine(item["location"])
        let weather = weatherLine(item["weather"])
        if location.leftOutUnreadable || weather.leftOutUnreadable { omissions.recordsWithUnreadableLocationOrWeather.append(record) }
        let notes = marked.unlinked.map(\.placeholder) + [location.text, weather.text].compactMap { $0 }
        guard !notes.isEmpty else { return text }
        // The text alone was valid; with the notes it can only be too long.
        guard let content = try? ContentRules.validated(text + "\n\n" + notes.joined(separator: "\n")) else {
            omissions.recordsWithoutRoomForNotes.append(record)
            return text
        }
        return content
    }

    /// The attachments of the entry `entryID` whose files were found, a photo's time in the
    /// entry's time zone; each named apart from the others by its place in the entry's lists and its file.
    private static func kept(_ listed: [Attachment], of entryID: UUID, zone: TimeZone?) -> [ImportedAttachment] {
        listed.enumerated().compactMap { index, attachment in
            guard let name = attachment.keptAs, let file = attachment.file, let path = attachment.foundAt else { return nil }
            let takenAt = attachment.taken.map { taken in
                Instant(millis: taken.millis, utcOffsetSeconds: zone?.secondsFromGMT(for: taken.date) ?? taken.utcOffsetSeconds).iso8601
            }
            let media = AttachmentMedia(mediaType: MediaTypes.mediaType(forName: name), width: attachment.width, height: attachment.height,
                                        takenAt: takenAt, location: attachment.location)
            return ImportedAttachment(entryID: entryID, path: path, name: name, media: media, origin: "\(index) \(file)")
        }
    }

    /// Day One writes uuids as 32 hex digits without dashes.
    private static func dayOneUUID(_ text: String) -> UUID? {
        let hex = text.replacingOccurrences(of: "-", with: "")
        guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return nil }
        let chars = Array(hex)
        let dashed = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
        return UUID(uuidString: dashed)
    }

    /// Day One escapes Markdown punctuation in `text` (`\.`, `\!`, `\\`); the backslashes go.
    static func unescapeMarkdown(_ text: String) -> String {
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                if !(character.isASCII && character.isPunctuation || character.isASCII && character.isSymbol) { result.append("\\") }
                result.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        if escaping { result.append("\\") }
        return result
    }
}
