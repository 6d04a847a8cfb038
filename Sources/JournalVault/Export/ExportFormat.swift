// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The formats of `jv export`: the lossless jv-export document, readable Markdown, and jrnl's
/// plain-text journal and JSON export.
public enum ExportFormat: String, Sendable, CaseIterable {
    case json, markdown, txt
    case jrnlJSON = "jrnl-json"
}

/// The attachments of the entries an export wrote: those it links (to be written beside the
/// document, at ``ExportFolder/attachmentPath(id:name:)``) and how many it left out.
public struct ExportedAttachments: Sendable {
    public var linked: [Attachment] = []
    /// Attachments of exported entries the document does not carry: all of them unless linked
    /// (a document in one file), and those whose content sync left at the location.
    public var leftOut = 0

    public init() {}
}

extension UnlockedVault {
    /// Writes the export of everything, or of `from`…`to` (what ``snapshot(from:to:)`` holds),
    /// a piece at a time as the entries are decrypted: `write` is given the document in order,
    /// and memory holds the records other than entries and two batches of entries, however
    /// many entries there are. The text is the same as ``VaultSnapshot/export(_:exportedAt:)``
    /// of the snapshot. An error thrown by `write` stops the export.
    ///
    /// With `linkingAttachments`, the Markdown document links each entry's attachments and the
    /// JSON one lists them (README "JSON"), both at ``ExportFolder/attachmentPath(id:name:)``;
    /// the caller writes their content there, from what this returns.
    ///
    /// ```swift
    /// try journal.export(.markdown) { piece in FileHandle.standardOutput.write(Data(piece.utf8)) }
    /// ```
    @discardableResult
    public func export(_ format: ExportFormat, from: DateExpression? = nil, to: DateExpression? = nil, exportedAt: Instant = .now(),
                       linkingAttachments: Bool = false, _ write: (String) throws -> Void) throws -> ExportedAttachments {
        let (others, query) = try snapshotWithoutEntries(from: from, to: to)
        var renderer = others.renderer(format, exportedAt: exportedAt)
        // Only counted (plaintext, nothing opened) unless linked.
        let counts = try attachmentCounts()
        let byEntry = linkingAttachments && !counts.isEmpty ? Dictionary(grouping: try attachments().filter(\.stored), by: \.entryID) : [:]
        var exported = ExportedAttachments()
        func render(_ entry: Entry) -> String {
            let linked = byEntry[entry.id] ?? []
            exported.linked += linked
            exported.leftOut += (counts[entry.id] ?? 0) - linked.count
            return renderer.entry(entry, attachments: linked)
        }
        if renderer.readsEntriesTwice { try forEachEntry(matching: query) { renderer.look(at: $0) } }
        try write(renderer.opening())
        var order = WallClockOrder()
        try forEachEntry(matching: query) { entry in
            guard renderer.inWallClockOrder else { return try write(render(entry)) }
            for ready in order.add(entry) { try write(render(ready)) }
        }
        for ready in order.drain() { try write(render(ready)) }
        try write(renderer.closing())
        return exported
    }
}

extension VaultSnapshot {
    /// The snapshot's export in `format`, whole.
    public func export(_ format: ExportFormat, exportedAt: Instant = .now()) -> String {
        var renderer = renderer(format, exportedAt: exportedAt)
        let entries = renderer.inWallClockOrder ? JrnlFormat.sortedForJrnl(entries) : entries
        if renderer.readsEntriesTwice { entries.forEach { renderer.look(at: $0) } }
        var text = renderer.opening()
        for entry in entries { text += renderer.entry(entry) }
        return text + renderer.closing()
    }

    /// The renderer of `format` for this snapshot's other records.
    func renderer(_ format: ExportFormat, exportedAt: Instant) -> any ExportRenderer {
        switch format {
        case .json: JVExportRenderer(snapshot: self, exportedAt: exportedAt)
        case .markdown: MarkdownRenderer(snapshot: self)
        case .txt: JrnlFormat.TextRenderer()
        case .jrnlJSON: JrnlFormat.JSONRenderer()
        }
    }
}

/// An export format written an entry at a time: what comes before the entries, each entry,
/// and what comes after them.
protocol ExportRenderer {
    /// Entries ordered by the writer's wall-clock time (jrnl's order), not by instant.
    var inWallClockOrder: Bool { get }
    /// The opening needs every entry first (``look(at:)``), then they are given again.
    var readsEntriesTwice: Bool { get }
    mutating func look(at entry: Entry)
    mutating func opening() -> String
    mutating func entry(_ entry: Entry) -> String
    /// The entry with its attachments, linked at ``ExportFolder/attachmentPath(id:name:)``, in a
    /// format that can link them.
    mutating func entry(_ entry: Entry, attachments: [Attachment]) -> String
    mutating func closing() -> String
}

extension ExportRenderer {
    var inWallClockOrder: Bool { false }
    var readsEntriesTwice: Bool { false }
    mutating func look(at entry: Entry) {}
    mutating func entry(_ entry: Entry, attachments: [Attachment]) -> String { self.entry(entry) }
}

/// Entries given in the vault's order (by instant, then id) handed on in jrnl's order (by
/// wall-clock time, ties in the vault's order), holding only those that a later entry could
/// still precede: an entry's wall-clock time is within ``Instant/offsetRange`` of its instant,
/// so once the instants read pass an entry's wall-clock time by that much, nothing unread
/// comes before it.
struct WallClockOrder {
    private var waiting: [Entry] = []
    private static let widestOffsetMillis = Int64(Instant.offsetRange.upperBound) * 1000

    /// Takes the next entry in the vault's order; returns the entries now certain to come next.
    mutating func add(_ entry: Entry) -> [Entry] {
        // After every waiting entry of the same wall-clock time: ties keep the vault's order.
        let wall = entry.wallClockMillis
        var low = 0, high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            if waiting[middle].wallClockMillis <= wall { low = middle + 1 } else { high = middle }
        }
        waiting.insert(entry, at: low)
        let settled = entry.created.millis - Self.widestOffsetMillis
        let ready = waiting.prefix { $0.wallClockMillis <= settled }
        waiting.removeFirst(ready.count)
        return Array(ready)
    }

    /// The entries still waiting, once there are no more.
    mutating func drain() -> [Entry] {
        defer { waiting = [] }
        return waiting
    }
}
