// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The `jv-export` JSON document (README "JSON"): every record in its documented shape, plus the
/// members that make the document lossless (thread and node `metadata`, messages inside their
/// threads with `usage`, analysis `extra`). `jv import --format json` reads it back.
extension VaultSnapshot {
    public static let jvExportFormat = "jv-export"
    public static let jvExportVersion: Int64 = 1

    public func jvExport(exportedAt: Instant = .now()) -> JSONValue {
        let (before, after) = jvExportMembers(exportedAt: exportedAt)
        return .object(before + [("entries", .array(entries.map(\.json)))] + after)
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
    private var json = JSONStreamWriter(pretty: true)

    init(snapshot: VaultSnapshot, exportedAt: Instant) {
        (before, after) = snapshot.jvExportMembers(exportedAt: exportedAt)
    }

    mutating func opening() -> String {
        var text = json.openObject()
        for (name, value) in before { text += json.value(value, name) }
        return text + json.openArray("entries")
    }

    mutating func entry(_ entry: Entry) -> String { json.value(entry.json) }

    mutating func closing() -> String {
        var text = json.close()
        for (name, value) in after { text += json.value(value, name) }
        return text + json.close() + "\n"
    }
}

extension JSONValue {
    /// An object with more members appended.
    func adding(_ members: [(String, JSONValue)]) -> JSONValue {
        guard case .object(let existing) = self else { return self }
        return .object(existing + members)
    }
}
