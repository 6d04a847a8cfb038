// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The `jv-export` JSON document (README "JSON"): every record in its documented shape, plus the
/// members that make the document lossless (thread and node `metadata`, messages inside their
/// threads with `usage`, analysis `extra`, an entry's measures as its `fields`). `jv import --format json` reads it back.
extension VaultSnapshot {
    public static let jvExportFormat = "jv-export"
    public static let jvExportVersion: Int64 = 1

    public func jvExport(exportedAt: Instant = .now()) -> JSONValue {
        let (before, after) = jvExportMembers(exportedAt: exportedAt)
        return .object(before + [("entries", .array(entries.map { $0.json.adding(measures: measures[$0.id]) }))] + after)
    }

    /// The document's members before and after its entries.
    fileprivate func jvExportMembers(exportedAt: Instant) -> (before: [(String, JSONValue)], after: [(String, JSONValue)]) {
        let messagesByThread = Dictionary(grouping: messages, by: \.threadID)
        return ([
            ("format", .string(Self.jvExportFormat)),
            ("version", .integer(Self.jvExportVersion)),
            ("exported_at", .string(exportedAt.iso8601)),
        ], [
            ("threads", .array(threads.map { thread in
                thread.json.adding([
                    ("metadata", thread.metadata),
                    ("messages", .array((messagesByThread[thread.id] ?? []).map { $0.json.adding([("usage", $0.usage)]) })),
                ])
            })),
            ("analyses", .array(analyses.map { $0.json.adding([("extra", $0.extra)]) })),
            ("nodes", .array(nodes.map { $0.json.adding([("metadata", $0.metadata)]) })),
            ("relations", .array(relations.map(\.json))),
        ])
    }
}

/// The jv-export document, pretty-printed, with a final line break.
struct JVExportRenderer: ExportRenderer {
    private let before: [(String, JSONValue)]
    private let after: [(String, JSONValue)]
    private let measures: [UUID: Measures]
    private var json = JSONStreamWriter(pretty: true)

    init(snapshot: VaultSnapshot, exportedAt: Instant) {
        (before, after) = snapshot.jvExportMembers(exportedAt: exportedAt)
        measures = snapshot.measures
    }

    mutating func opening() -> String {
        var text = json.openObject()
        for (name, value) in before { text += json.value(value, name) }
        return text + json.openArray("entries")
    }

    mutating func entry(_ entry: Entry) -> String { self.entry(entry, attachments: []) }

    mutating func entry(_ entry: Entry, attachments: [Attachment]) -> String {
        let shown = entry.json.adding(measures: measures[entry.id])
        guard !attachments.isEmpty else { return json.value(shown) }
        return json.value(shown.adding([("attachments", .array(attachments.map(\.jvExportJSON)))]))
    }

    mutating func closing() -> String {
        var text = json.close()
        for (name, value) in after { text += json.value(value, name) }
        return text + json.close() + "\n"
    }
}

extension Attachment {
    /// `{"id", "name", "media_type", "kind", "size", "file", "width"?, "height"?, "taken_at"?,
    /// "location"?}`, `file` the path of its content beside the document.
    var jvExportJSON: JSONValue {
        .object([
            ("id", .string(id.storageText)), ("name", .string(name)), ("media_type", .string(mediaType)), ("kind", .string(kind.rawValue)),
            ("size", .integer(size)), ("file", .string(ExportFolder.attachmentPath(id: id, name: name))),
        ] + media.knownJSONMembers)
    }
}

extension JSONValue {
    /// An object with more members appended.
    func adding(_ members: [(String, JSONValue)]) -> JSONValue {
        guard case .object(let existing) = self else { return self }
        return .object(existing + members)
    }

    /// An entry's object with its measures as `fields` (README "JSON"), left as it is for an
    /// entry without any.
    ///
    /// ```swift
    /// entry.json.adding(measures: try journal.measures(of: entry.id))  // {…, "fields": {"mood": 7}}
    /// ```
    public func adding(measures: Measures?) -> JSONValue {
        guard let measures, !measures.isEmpty else { return self }
        return adding([("fields", measures.json)])
    }
}

/// Reads the `jv-export` document back into records, ids and timestamps exactly as exported.
enum JVExportReader {
    /// The attachments an entry lists come from their files in `folder`; without it, or where a
    /// file is not there, they are counted as left out.
    static func read(_ bytes: [UInt8], folder: ImportFolder? = nil) throws -> VaultSnapshot {
        let document = try ImportError.parsing(bytes)
        guard document["format"]?.stringValue == VaultSnapshot.jvExportFormat else {
            throw ImportError(reason: "not a jv export (its \"format\" is not \"jv-export\")")
        }
        guard case .integer(let version)? = document["version"], version <= VaultSnapshot.jvExportVersion else {
            throw ImportError(reason: "jv export version \(document["version"]?.serialized() ?? "?") is newer than this jv understands")
        }
        var snapshot = VaultSnapshot()
        snapshot.omissions.attachmentFolderSearched = folder != nil
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
            let id = try item.requiredID("id") { fail("entry", $0) }
            var missing: [AttachmentKind] = []
            for listed in item["attachments"]?.arrayValue ?? [] {
                let attachment = try Self.attachment(listed, of: id) { fail("attachment", $0) }
                if let path = folder?.file(attachment.path) {
                    snapshot.attachments.append(ImportedAttachment(id: attachment.id, entryID: id, path: path, name: attachment.name,
                                                                   media: attachment.media, expectedSize: attachment.expectedSize))
                } else {
                    missing.append(AttachmentKind(attachment.media))
                }
            }
            if !missing.isEmpty {
                for kind in missing { snapshot.omissions.attachments[kind, default: 0] += 1 }
                snapshot.omissions.recordsWithAttachments.append(position)
            }
            if let fields = item["fields"], fields != .null {
                guard let measures = Measures(json: fields) else {
                    throw fail("entry", "\"fields\" is not an object of field names and numbers, short texts or true/false")
                }
                if !measures.isEmpty { snapshot.measures[id] = measures }
            }
            snapshot.entries.append(Entry(
                id: id, content: validated, created: created,
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

    /// One of an entry's `attachments`, its `file` as the document gives it (a path inside the
    /// export's folder, looked for there by the caller).
    private static func attachment(_ item: JSONValue, of entryID: UUID, _ fail: (String) -> ImportError) throws -> ImportedAttachment {
        guard case .integer(let size)? = item["size"], size >= 0 else { throw fail("\"size\" is missing or not a count of bytes") }
        let mediaType = try item.requiredString("media_type", fail)
        func pixels(_ key: String) throws -> Int? {
            guard let value = item[key], value != .null else { return nil }
            guard case .integer(let count) = value, count > 0 else { throw fail("\"\(key)\" is not a count of pixels") }
            return Int(count)
        }
        var location: GeoLocation?
        if let place = item["location"], place != .null {
            guard let latitude = place["latitude"]?.doubleValue, let longitude = place["longitude"]?.doubleValue else {
                throw fail("\"location\" is not a latitude and a longitude")
            }
            location = GeoLocation(latitude: latitude, longitude: longitude)
        }
        let media = AttachmentMedia(mediaType: mediaType, kind: item["kind"]?.stringValue.flatMap(MediaKind.init(rawValue:)),
                                    width: try pixels("width"), height: try pixels("height"), takenAt: item["taken_at"]?.stringValue,
                                    location: location)
        return ImportedAttachment(id: try item.requiredID("id", fail), entryID: entryID, path: try item.requiredString("file", fail),
                                  name: try item.requiredString("name", fail), media: media, expectedSize: size)
    }

    private static func tags(_ tags: [String], _ fail: (String) -> ImportError) throws -> [String] {
        do {
            return try ContentRules.tags(tags)
        } catch let error as VaultError {
            throw fail(error.description)
        }
    }
}
