// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One readable Markdown document: entries by day (each with its analyses), then the chats.
extension VaultSnapshot {
    public func markdown() -> String { export(.markdown) }
}

/// The Markdown export: lines joined by line breaks, a heading for each new day.
struct MarkdownRenderer: ExportRenderer {
    private let snapshot: VaultSnapshot
    private let analysesByEntry: [UUID: [Analysis]]
    private var currentDay: CivilDay?

    init(snapshot: VaultSnapshot) {
        self.snapshot = snapshot
        analysesByEntry = Dictionary(grouping: snapshot.analyses, by: \.entryID)
    }

    func opening() -> String { "# Journal\n" }

    mutating func entry(_ entry: Entry) -> String { self.entry(entry, attachments: []) }

    /// Each entry's lines, each after a line break (the document's lines are joined by them);
    /// after its text a link to each attachment (an image shown: `![name](attachments/…)`).
    mutating func entry(_ entry: Entry, attachments: [Attachment]) -> String {
        var lines: [String] = []
        if entry.localDay != currentDay {
            currentDay = entry.localDay
            lines += ["## \(entry.localDay)", ""]
        }
        let time = entry.created.timeOfDayText
        lines += ["### \(time) \(entry.title)\(entry.starred ? " ★" : "")", "", entry.content, ""]
        if !attachments.isEmpty { lines += attachments.map(Self.link) + [""] }
        if !entry.tags.isEmpty { lines += ["*Tags: " + entry.tags.joined(separator: ", ") + "*", ""] }
        if let measures = snapshot.measures[entry.id], !measures.isEmpty { lines += ["*Fields: " + measures.line + "*", ""] }
        for analysis in analysesByEntry[entry.id] ?? [] {
            var facts: [String] = []
            if let sentiment = analysis.sentiment { facts.append("sentiment: \(sentiment)") }
            if !analysis.themes.isEmpty { facts.append("themes: " + analysis.themes.joined(separator: ", ")) }
            if analysis.entities != .null { facts.append("entities: `\(analysis.entities.serialized())`") }
            lines += ["> **Analysis** by \(analysis.model), \(analysis.processedAt.minuteText): "
                      + facts.joined(separator: "; "), ""]
        }
        return lines.map { "\n" + $0 }.joined()
    }

    /// Characters a link's path keeps as they are; the rest is percent-encoded.
    private static let plainInPath = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")

    /// `![name](attachments/<id>-<name>)`, the name on one line with its brackets and backslashes
    /// escaped, the path percent-encoded so any name makes one link.
    private static func link(_ attachment: Attachment) -> String {
        var text = ""
        for scalar in attachment.name.unicodeScalars {
            if scalar.properties.generalCategory == .control { text += " "; continue }
            if "\\[]".unicodeScalars.contains(scalar) { text += "\\" }
            text.unicodeScalars.append(scalar)
        }
        let path = ExportFolder.attachmentPath(id: attachment.id, name: attachment.name)
        let target = path.addingPercentEncoding(withAllowedCharacters: plainInPath) ?? path
        return "\(attachment.kind == .image ? "!" : "")[\(text)](\(target))"
    }

    func closing() -> String {
        guard !snapshot.threads.isEmpty else { return "" }
        var lines = ["# Chats", ""]
        let messagesByThread = Dictionary(grouping: snapshot.messages, by: \.threadID)
        for thread in snapshot.threads {
            lines += ["## \(thread.title.isEmpty ? "Untitled" : thread.title)", ""]
            for message in messagesByThread[thread.id] ?? [] {
                let who = message.role.rawValue + (message.model.map { " (\($0))" } ?? "")
                let when = message.timestamp.minuteText
                lines += ["**\(who)**, \(when):", "", message.content, ""]
            }
        }
        return lines.map { "\n" + $0 }.joined()
    }
}
