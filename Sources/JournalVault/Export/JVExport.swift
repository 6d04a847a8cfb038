import Foundation

/// The `jv-export` JSON document (SPEC §5): every record in its documented shape, plus the
/// members that make the document lossless (thread and node `metadata`, messages inside their
/// threads with `usage`, analysis `extra`). `jv import --format json` reads it back.
extension VaultSnapshot {
    public static let jvExportFormat = "jv-export"
    public static let jvExportVersion: Int64 = 1

    public func jvExport(exportedAt: Instant = .now()) -> JSONValue {
        let messagesByThread = Dictionary(grouping: messages, by: \.threadID)
        return .object([
            ("format", .string(Self.jvExportFormat)),
            ("version", .integer(Self.jvExportVersion)),
            ("exported_at", .string(exportedAt.iso8601)),
            ("entries", .array(entries.map(\.json))),
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

extension JSONValue {
    /// An object with more members appended.
    func adding(_ members: [(String, JSONValue)]) -> JSONValue {
        guard case .object(let existing) = self else { return self }
        return .object(existing + members)
    }
}
