// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Several entries edited together as jrnl text (`jv edit --from … --to …`): ``text`` is what
/// the editor opens, ``changes(in:zone:)`` turns what was saved into the changes to write.
///
/// Each entry is a header `[YYYY-MM-DD HH:MM] {jv:1a2b3c4d} ` followed by its text, whose first
/// line stays on the header line, where jrnl keeps the title. The marker `{jv:…}`, the start of
/// the entry's id, is what recognises an entry whose date or text changed: a header without one
/// is a new entry, and an entry whose marker is gone is deleted. Star and explicit tags are not
/// in the text and stay as they are.
///
/// ```swift
/// let edit = try EntryBatchEdit(journal.entries(query))
/// let changes = try edit.changes(in: textFromTheEditor, zone: .current)
/// try journal.applyEntryChanges(changes)
/// ```
public struct EntryBatchEdit: Sendable {
    /// The entries being edited, in the order given.
    public let entries: [Entry]
    /// The text for the editor.
    public let text: String
    /// Each entry's marker: its id's first hexadecimal digits, as many as make them all distinct.
    private let markers: [UUID: String]
    private let entriesByMarker: [String: Entry]

    /// Throws ``EntryEditError/headerInText(id:)`` for an entry with a line that would read back
    /// as the header of another.
    public init(_ entries: [Entry]) throws {
        if let entry = entries.first(where: { Self.hasHeaderLikeLine($0.content) }) { throw EntryEditError.headerInText(id: entry.id) }
        let digits = entries.map { ($0.id, $0.id.uuidString.lowercased().filter { $0 != "-" }) }
        // Eight digits are the short id jv prints; longer only where two of these ids share them.
        var length = 8
        while Set(digits.map { $0.1.prefix(length) }).count < digits.count { length += 1 }
        let markers = Dictionary(uniqueKeysWithValues: digits.map { ($0.0, String($0.1.prefix(length))) })
        self.markers = markers
        entriesByMarker = Dictionary(uniqueKeysWithValues: entries.map { (markers[$0.id]!, $0) })
        self.entries = entries
        text = entries.map { entry in "[\(entry.created.minuteText)] {jv:\(markers[entry.id]!)} \(entry.content)\n" }.joined(separator: "\n")
    }

    /// The changes `edited` makes to ``text``; times that changed are read in `zone` (an
    /// unchanged one keeps its seconds and its UTC offset). Throws ``EntryEditError/unreadable(line:reason:)``
    /// for text before the first header, a header whose date is not `YYYY-MM-DD HH:MM`, a marker
    /// of no entry being edited or one given twice, and an entry left without text.
    public func changes(in edited: String, zone: TimeZone) throws -> EntryChanges {
        var changes = EntryChanges()
        var markerLines: [String: Int] = [:]
        let now = Instant.now().millis
        for block in try Self.blocks(of: edited) {
            func unreadable(_ reason: String) -> EntryEditError { .unreadable(line: block.line, reason: reason) }
            let content: String
            do {
                content = try ContentRules.validated(block.text)
            } catch VaultError.contentBlank {
                throw unreadable("the entry has no text (to delete an entry, remove its header and its text)")
            } catch let error as VaultError {
                let sentence = error.description
                throw unreadable(sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence)
            }
            let (utc, offset) = DateExpression.resolve(localSeconds: Int64(block.day.daysSinceEpoch) * 86_400 + Int64(block.seconds), in: zone)
            let written = Instant(millis: utc * 1000, utcOffsetSeconds: offset)
            guard let marker = block.marker else {
                changes.added.append(Entry(content: content, created: written, modifiedAt: now))
                continue
            }
            guard let entry = entriesByMarker[marker] else { throw unreadable("{jv:\(marker)} is not the marker of an entry being edited") }
            if let first = markerLines.updateValue(block.line, forKey: marker) {
                throw unreadable("{jv:\(marker)} was already at line \(first), and each entry's marker may appear once")
            }
            let sameMinute = block.day == entry.localDay && block.seconds == Int(entry.created.localMillisOfDay / 60_000) * 60
            let created = sameMinute ? entry.created : written
            if content != entry.content || created != entry.created {
                changes.updated.append(EntryChanges.Revision(id: entry.id, content: content, created: created))
            }
        }
        changes.deleted = entries.filter { markerLines[markers[$0.id]!] == nil }.map(\.id)
        return changes
    }

    // MARK: Reading

    /// One entry of the edited text: where its header is, what it says, and the text after it.
    private struct Block {
        var line: Int
        var day: CivilDay
        var seconds: Int
        var marker: String?
        var text: String
    }

    /// The entries of `edited`, each from its header to the next. A line starting `[` and four
    /// digits and `-` is a header and must read as one; any other line is text.
    private static func blocks(of edited: String) throws -> [Block] {
        var blocks: [Block] = []
        var lines: [String] = []
        func closeBlock() {
            guard !blocks.isEmpty else { return }
            blocks[blocks.count - 1].text = lines.joined(separator: "\n")
        }
        // Lines of scalars: a Character would join "\r\n", and a grapheme could start with a line's first scalar.
        for (index, scalars) in edited.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(Substring(scalars))
            if isHeaderLike(line) {
                closeBlock()
                let (block, firstLine) = try header(line, number: index + 1)
                blocks.append(block)
                lines = [firstLine]
            } else if !blocks.isEmpty {
                lines.append(line)
            } else if !ContentRules.trimmed(line).isEmpty {
                throw EntryEditError.unreadable(line: index + 1, reason: "there is text before the first header (each entry starts with a line like [2026-01-05 09:00])")
            }
        }
        closeBlock()
        return blocks
    }

    /// A header line read: `[YYYY-MM-DD HH:MM]`, then, after a space, an optional `{jv:…}` marker
    /// and the first line of the text (returned beside the block), with the `\r` of a line ended
    /// CRLF: it is the text's, as on every other line. Read as scalars: a space followed by a
    /// combining mark is one Character.
    private static func header(_ line: String, number: Int) throws -> (Block, String) {
        func unreadable(_ reason: String) -> EntryEditError { .unreadable(line: number, reason: reason) }
        var rest = Substring(line).unicodeScalars
        guard let close = rest.firstIndex(of: "]") else { throw unreadable("the header has no closing ']'") }
        let parts = String(Substring(rest[rest.index(after: rest.startIndex)..<close])).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, let day = CivilDay(iso: parts[0]), let seconds = JrnlFormat.parseHourMinute(String(parts[1])) else {
            throw unreadable("the header's date is not of the form [YYYY-MM-DD HH:MM]")
        }
        rest = rest[rest.index(after: close)...]
        guard rest.isEmpty || rest.first == " " || rest.elementsEqual("\r".unicodeScalars) else {
            throw unreadable("a space must follow the header's ']'")
        }
        rest = rest.dropFirst()
        var marker: String?
        if rest.starts(with: "{jv:".unicodeScalars) {
            guard let end = rest.firstIndex(of: "}") else { throw unreadable("the marker has no closing '}'") }
            let digits = String(Substring(rest[rest.index(rest.startIndex, offsetBy: 4)..<end])).lowercased()
            guard !digits.isEmpty, digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else {
                throw unreadable("the marker does not hold the start of an entry's id, as in {jv:1a2b3c4d}")
            }
            marker = digits
            rest = rest[rest.index(after: end)...]
            if rest.first == " " { rest = rest.dropFirst() }
        }
        return (Block(line: number, day: day, seconds: seconds, marker: marker, text: ""), String(Substring(rest)))
    }

    /// `[` and four digits and `-`: a header, or a mistyped one (never taken for text).
    private static func isHeaderLike(_ line: String) -> Bool {
        let bytes = Array(line.utf8.prefix(6))
        return bytes.count == 6 && bytes[0] == UInt8(ascii: "[") && bytes[5] == UInt8(ascii: "-")
            && bytes[1..<5].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A line after the first that would read back as a header (the first follows the entry's own).
    private static func hasHeaderLikeLine(_ content: String) -> Bool {
        content.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().contains { isHeaderLike(String(Substring($0))) }
    }
}

/// Why edited entries cannot be saved (nothing is saved then), or cannot be edited together.
public enum EntryEditError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The edited text does not say unambiguously what to change; `line` is 1-based.
    case unreadable(line: Int, reason: String)
    /// The entry has a line that would read back as another entry's header.
    case headerInText(id: UUID)

    public var description: String {
        switch self {
        case .unreadable:
            String(problem().dropLast()) + "; nothing was changed."
        case .headerInText(let id):
            "The entry \(String(id.uuidString.lowercased().prefix(8))) has a line starting like an entry header ('[YYYY-'), which would split it in two."
        }
    }

    /// What is wrong, in one sentence that does not say what became of the edit; for the text
    /// shown again with `linesAbove` more lines above it, the line is numbered as shown.
    public func problem(linesAbove: Int = 0) -> String {
        switch self {
        case .unreadable(let line, let reason): "Line \(line + linesAbove) of the edited text: \(reason)."
        case .headerInText: description
        }
    }
}
