// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Readers of the import formats, each turning a file into a ``VaultSnapshot``. They read
/// untrusted bytes: every field is checked, and the first problem is reported with where it is.
public enum ImportFormat: String, CaseIterable, Sendable {
    /// The largest file `jv import` reads (256 MiB). A file is read whole and checked before
    /// anything is written, which takes about twice its size in memory: past this, split it.
    public static let maximumFileSize = 256 << 20

    /// Our own `jv-export` document (lossless).
    case json
    /// jrnl's JSON export.
    case jrnlJSON = "jrnl-json"
    /// jrnl's plain-text journal.
    case jrnlText = "jrnl-txt"
    /// Day One's `Journal.json`.
    case dayOneJSON = "dayone-json"

    /// Reads `bytes` in this format; wall-clock times without a zone are read in `zone`.
    public func read(_ bytes: [UInt8], zone: TimeZone = .current) throws -> VaultSnapshot {
        switch self {
        case .json: return try JVExportReader.read(bytes)
        case .jrnlJSON:
            var snapshot = VaultSnapshot()
            snapshot.entries = try JrnlFormat.parseJSON(bytes, zone: zone)
            return snapshot
        case .jrnlText:
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw ImportError(line: Self.lineOfFirstInvalidUTF8(bytes), reason: "the text is not valid UTF-8")
            }
            var snapshot = VaultSnapshot()
            snapshot.entries = try JrnlFormat.parseText(text, zone: zone)
            return snapshot
        case .dayOneJSON: return try DayOneReader.read(bytes)
        }
    }
}

extension ImportFormat {
    /// The 1-based line holding the first byte that is not part of valid UTF-8.
    static func lineOfFirstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var line = 1
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            if scalar == "\n" { line += 1 }
        }
        return line
    }
}

/// Reads the `jv-export` document back into records, ids and timestamps exactly as exported.
enum JVExportReader {
    static func read(_ bytes: [UInt8]) throws -> VaultSnapshot {
        let document = try ImportError.parsing(bytes)
        guard document["format"]?.stringValue == VaultSnapshot.jvExportFormat else {
            throw ImportError(reason: "not a jv export (its \"format\" is not \"jv-export\")")
        }
        guard case .integer(let version)? = document["version"], version <= VaultSnapshot.jvExportVersion else {
            throw ImportError(reason: "jv export version \(document["version"]?.serialized() ?? "?") is newer than this jv understands")
        }
        var snapshot = VaultSnapshot()
        var position = 0
        func records(_ key: String) throws -> [JSONValue] {
            guard let value = document[key] else { return [] }
            guard let items = value.arrayValue else { throw ImportError(reason: "\"\(key)\" is not a list") }
            return items
        }
        func fail(_ kind: String, _ reason: String) -> ImportError { ImportError(record: position, reason: "\(kind): \(reason)") }
        for item in try records("entries") {
            position += 1
            let content = try item.requiredString("content") { fail("entry", $0) }
            let validated: String
            do { validated = try ContentRules.validated(content) } catch let error as VaultError { throw fail("entry", error.description) }
            let created = try item.requiredInstant("created_at") { fail("entry", $0) }
            let tags = try item.stringList("tags") { fail("entry", $0) }
            let inline = Set(Tags.inline(in: validated))
            snapshot.entries.append(Entry(
                id: try item.requiredID("id") { fail("entry", $0) }, content: validated, created: created,
                modifiedAt: try item.optionalInstant("modified_at") { fail("entry", $0) }?.millis ?? created.millis,
                starred: try item.optionalBool("starred") { fail("entry", $0) },
                explicitTags: try Self.tags(tags) { fail("entry", $0) }.filter { !inline.contains($0) }))
        }
        for item in try records("threads") {
            position += 1
            let id = try item.requiredID("id") { fail("thread", $0) }
            let created = try item.requiredInstant("created_at") { fail("thread", $0) }
            snapshot.threads.append(ChatThread(
                id: id, title: item["title"]?.stringValue ?? "", isActive: try item.optionalBool("is_active") { fail("thread", $0) }, created: created,
                updatedAt: try item.optionalInstant("updated_at") { fail("thread", $0) }?.millis ?? created.millis,
                lastMessageAt: try item.optionalInstant("last_message_at") { fail("thread", $0) }?.millis,
                messageCount: 0, metadata: item["metadata"] ?? .null))
            for message in item["messages"]?.arrayValue ?? [] {
                guard let role = message["role"]?.stringValue.flatMap(ChatRole.init(rawValue:)) else { throw fail("message", "role is not user, assistant or system") }
                let content = try message.requiredString("content") { fail("message", $0) }
                snapshot.messages.append(ChatMessage(
                    id: try message.requiredID("id") { fail("message", $0) }, threadID: id, role: role, content: content,
                    timestamp: try message.requiredInstant("timestamp") { fail("message", $0) },
                    model: message["model"]?.stringValue, language: message["language"]?.stringValue,
                    entryID: try message.optionalID("entry_id") { fail("message", $0) }, usage: message["usage"] ?? .null))
            }
        }
        for item in try records("analyses") {
            position += 1
            snapshot.analyses.append(Analysis(
                id: try item.requiredID("id") { fail("analysis", $0) }, entryID: try item.requiredID("entry_id") { fail("analysis", $0) },
                model: try item.requiredString("model") { fail("analysis", $0) },
                processedAt: try item.requiredInstant("processed_at") { fail("analysis", $0) },
                sentiment: item["sentiment"]?.stringValue, themes: try item.stringList("themes") { fail("analysis", $0) },
                entities: item["entities"] ?? .null, extra: item["extra"] ?? .null))
        }
        for item in try records("nodes") {
            position += 1
            guard let type = item["type"]?.stringValue.flatMap(KnowledgeNode.normalizedType) else { throw fail("node", "type is not one word") }
            snapshot.nodes.append(KnowledgeNode(
                id: try item.requiredID("id") { fail("node", $0) }, type: type, name: try item.requiredString("name") { fail("node", $0) },
                created: try item.requiredInstant("created_at") { fail("node", $0) }, metadata: item["metadata"] ?? .null))
        }
        for item in try records("relations") {
            position += 1
            guard let strength = item["strength"]?.doubleValue, (0...1).contains(strength) else { throw fail("relation", "strength is not a number in 0…1") }
            snapshot.relations.append(KnowledgeRelation(
                id: try item.requiredID("id") { fail("relation", $0) }, from: try item.requiredID("from") { fail("relation", $0) },
                to: try item.requiredID("to") { fail("relation", $0) }, type: try item.requiredString("type") { fail("relation", $0) },
                strength: strength, entryID: try item.optionalID("entry_id") { fail("relation", $0) }))
        }
        return snapshot
    }

    private static func tags(_ tags: [String], _ fail: (String) -> ImportError) throws -> [String] {
        do {
            return try ContentRules.tags(tags)
        } catch let error as VaultError {
            throw fail(error.description)
        }
    }
}

/// Day One's JSON export (`Journal.json`): `{"entries": [{uuid, creationDate, timeZone, text,
/// tags, starred, modifiedDate, location, weather, photos, videos, audios, pdfAttachments}]}`.
/// Its uuid becomes the entry id, so importing twice adds nothing. What jv cannot keep as such
/// becomes text (see `DayOneNotes.swift`) and is counted in the snapshot's omissions.
enum DayOneReader {
    static func read(_ bytes: [UInt8]) throws -> VaultSnapshot {
        let document = try ImportError.parsing(bytes)
        guard let items = document["entries"]?.arrayValue else { throw ImportError(reason: "no \"entries\" list: not a Day One JSON export") }
        var snapshot = VaultSnapshot()
        snapshot.entries = try items.enumerated().map { index, item in
            let record = index + 1
            func fail(_ reason: String) -> ImportError { ImportError(record: record, reason: reason) }
            guard let uuidText = item["uuid"]?.stringValue, let id = dayOneUUID(uuidText) else { throw fail("uuid is missing or not 32 hexadecimal digits") }
            var created = try item.requiredInstant("creationDate", fail)
            if let zoneName = item["timeZone"]?.stringValue, let zone = TimeZone(identifier: zoneName) {
                created.utcOffsetSeconds = zone.secondsFromGMT(for: created.date)
            }
            let modified = try item.optionalInstant("modifiedDate", fail)?.millis ?? created.millis
            let marked = markingAttachments(in: try item.requiredString("text", fail), listed: attachments(of: item))
            let text: String
            do { text = try ContentRules.validated(unescapeMarkdown(marked.text)) } catch let error as VaultError { throw fail(error.description) }
            let content = withNotes(text, marked: marked, item: item, record: record, omissions: &snapshot.omissions)
            let inline = Set(Tags.inline(in: content))
            let tags = try item.stringList("tags", fail).compactMap(Tags.normalize).filter { !inline.contains($0) }
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

extension JSONValue {
    func requiredString(_ key: String, _ fail: (String) -> ImportError) throws -> String {
        guard let text = self[key]?.stringValue else { throw fail("\"\(key)\" is missing or not a string") }
        return text
    }

    func requiredID(_ key: String, _ fail: (String) -> ImportError) throws -> UUID {
        guard let id = try optionalID(key, fail) else { throw fail("\"\(key)\" is missing") }
        return id
    }

    func optionalID(_ key: String, _ fail: (String) -> ImportError) throws -> UUID? {
        guard let value = self[key], value != .null else { return nil }
        guard let text = value.stringValue, let id = UUID(uuidString: text) else { throw fail("\"\(key)\" is not a UUID") }
        return id
    }

    func requiredInstant(_ key: String, _ fail: (String) -> ImportError) throws -> Instant {
        guard let instant = try optionalInstant(key, fail) else { throw fail("\"\(key)\" is missing") }
        return instant
    }

    /// An ISO 8601 date-time (`YYYY-MM-DDTHH:MM…`); without an offset it is read as UTC.
    /// Relative forms (`yesterday 10:00`) are not timestamps and are refused.
    func optionalInstant(_ key: String, _ fail: (String) -> ImportError) throws -> Instant? {
        guard let value = self[key], value != .null else { return nil }
        guard let text = value.stringValue, CivilDay(iso: text.prefix(10)) != nil, text.count > 10,
              case .instant(let instant)? = try? DateExpression.parse(text, now: Instant(millis: 0, utcOffsetSeconds: 0), zone: TimeZone(identifier: "UTC")!)
        else { throw fail("\"\(key)\" is not an ISO 8601 date-time") }
        return instant
    }

    /// A boolean member, false when absent; any other type is refused.
    func optionalBool(_ key: String, _ fail: (String) -> ImportError) throws -> Bool {
        guard let value = self[key], value != .null else { return false }
        guard let flag = value.boolValue else { throw fail("\"\(key)\" is not true or false") }
        return flag
    }

    func stringList(_ key: String, _ fail: (String) -> ImportError) throws -> [String] {
        guard let value = self[key], value != .null else { return [] }
        guard let items = value.arrayValue else { throw fail("\"\(key)\" is not a list") }
        return try items.map { item in
            guard let text = item.stringValue else { throw fail("\"\(key)\" holds something that is not a string") }
            return text
        }
    }
}
