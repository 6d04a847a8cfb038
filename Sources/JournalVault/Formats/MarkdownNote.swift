// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One Markdown note of an Obsidian-style folder, read from its text alone: the front matter's
/// date and tags, the properties kept as text, the note's parts (the whole note, or one part per
/// `## HH:MM` heading) and the files each part embeds. It looks at no file: the folder reader
/// (``MarkdownFolderReader``) resolves what the links name.
///
/// ```swift
/// let note = MarkdownNote("---\ntags: [walk]\nmood: good\n---\nBerlin. ![[gate.jpg|300]]")
/// note.frontMatterTags           // ["walk"]
/// note.keptProperties            // ["mood: good"]
/// note.parts[0].embeds           // [gate.jpg (a wiki link)]
/// ```
struct MarkdownNote {
    /// A file the text shows inline: `![[name]]` (Obsidian's wiki link, its `|size` or `|alias`
    /// and `#heading` left out) or `![alt](path)` (percent-decoded, without its title).
    struct Embed: Hashable {
        var target: String
        /// A Markdown link's path is relative to the note; a wiki link names a file anywhere.
        var isWikiLink: Bool
    }

    /// A part of the note that becomes one entry.
    struct Part: Equatable {
        /// Seconds after midnight of its `## HH:MM` heading; nil for the whole note, or the text
        /// before the first such heading.
        var secondsOfDay: Int?
        /// How many parts before it have the same heading time (it tells two `## 09:00` apart).
        var repeatOfTime: Int
        /// The text: what followed the heading's time on its line, then the lines up to the next.
        var text: String
        var embeds: [Embed]
    }

    /// The front matter's `date` (or else `created`) as written, quotes removed, and its line
    /// (kept as text by the reader when the date cannot be read).
    var frontMatterDate: (value: String, line: String)?
    /// The front matter's `tags` (or `tag`) that are jv tags, normalised.
    var frontMatterTags: [String] = []
    /// The front matter's lines jv has no field for, as written (a `date` it cannot read and a
    /// `tags` holding one that is not a jv tag stay too): kept as text, so nothing is lost.
    var keptProperties: [String] = []
    var parts: [Part] = []

    init(_ text: String) {
        var text = text
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        // Notes written on Windows: one kind of line break, so headings and fences are found.
        if text.utf8.contains(UInt8(ascii: "\r")) { text = text.replacingOccurrences(of: "\r\n", with: "\n") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if let close = Self.frontMatterEnd(lines) {
            readFrontMatter(lines[1..<close])
            lines.removeSubrange(0...close)
        }
        parts = Self.parts(of: lines)
    }

    // MARK: Front matter

    /// The index of the line closing a front matter that opens on the first line; nil for none.
    private static func frontMatterEnd(_ lines: [Substring]) -> Int? {
        func isFence(_ line: Substring, _ marks: [String]) -> Bool { marks.contains(String(line.trimmedOfWhitespace)) }
        guard let first = lines.first, isFence(first, ["---"]) else { return nil }
        return lines.indices.dropFirst().first { isFence(lines[$0], ["---", "..."]) }
    }

    /// Reads the front matter's top-level keys, each with the lines under it (a block list's
    /// `- item`s, indented lines). This is not a YAML parser: it reads the shapes Obsidian writes
    /// for dates and tags and keeps every other line as it is.
    private mutating func readFrontMatter(_ lines: ArraySlice<Substring>) {
        var groups: [(key: String, value: String, lines: [Substring])] = []
        for line in lines where !line.allSatisfy(\.isWhitespace) {
            let continues = line.first == " " || line.first == "\t" || line.hasPrefix("- ") || line == "-"
            if continues, !groups.isEmpty {
                groups[groups.count - 1].lines.append(line)
            } else if !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") {
                let key = Self.unquoted(line[..<colon]).lowercased()
                groups.append((key, Self.unquoted(line[line.index(after: colon)...]), [line]))
            } else {
                groups.append(("", "", [line]))
            }
        }
        let dateKey = groups.contains { $0.key == "date" } ? "date" : "created"
        let tagsKey = groups.contains { $0.key == "tags" } ? "tags" : "tag"
        for group in groups {
            if group.key == dateKey, frontMatterDate == nil, !group.value.isEmpty, group.lines.count == 1 {
                frontMatterDate = (group.value, String(group.lines[0]))
                continue
            }
            if group.key == tagsKey {
                let written = Self.listItems(value: group.value, under: group.lines.dropFirst())
                let tags = written.compactMap(Tags.normalize)
                for tag in tags where !frontMatterTags.contains(tag) { frontMatterTags.append(tag) }
                // A tag jv cannot keep as one (`project/alpha`, `two words`) stays as text.
                if tags.count == written.count { continue }
            }
            keptProperties += group.lines.map(String.init)
        }
    }

    /// The items of a list property: `[a, "b"]`, `a, b` or `a b` on the key's line, or the
    /// `- a` lines under it; each without quotes or a leading `#`.
    private static func listItems(value: String, under lines: ArraySlice<Substring>) -> [String] {
        var items: [Substring] = []
        var inline = value[...]
        if inline.hasPrefix("["), inline.hasSuffix("]") { inline = inline.dropFirst().dropLast() }
        items += inline.split { $0 == "," || $0.isWhitespace }
        for line in lines {
            let item = line.drop { $0.isWhitespace }
            if item.hasPrefix("-") { items.append(item.dropFirst()) }
        }
        return items.map { item in
            let word = unquoted(item)
            return word.hasPrefix("#") ? String(word.dropFirst()) : word
        }.filter { !$0.isEmpty }
    }

    /// `text` trimmed, without one pair of surrounding quotes.
    private static func unquoted(_ text: Substring) -> String {
        let trimmed = text.trimmedOfWhitespace
        if trimmed.count >= 2, let first = trimmed.first, first == "\"" || first == "'", trimmed.last == first {
            return String(trimmed.dropFirst().dropLast())
        }
        return String(trimmed)
    }

    // MARK: Parts

    /// The note's parts: one per `## HH:MM` heading outside code, and the text before the first.
    private static func parts(of lines: [Substring]) -> [Part] {
        var parts: [Part] = []
        var current = Part(secondsOfDay: nil, repeatOfTime: 0, text: "", embeds: [])
        var currentLines: [Substring] = []
        var times: [Int: Int] = [:]
        var fence: Substring?
        func finish() {
            current.text = currentLines.joined(separator: "\n")
            current.embeds = embeds(in: currentLines)
            parts.append(current)
        }
        for line in lines {
            if let marker = codeFence(line) {
                if fence == nil { fence = marker } else if marker.hasPrefix(fence ?? "") { fence = nil }
            } else if fence == nil, let (seconds, rest) = timeHeading(line) {
                finish()
                current = Part(secondsOfDay: seconds, repeatOfTime: times[seconds, default: 0], text: "", embeds: [])
                times[seconds, default: 0] += 1
                currentLines = rest.isEmpty ? [] : [rest]
                continue
            }
            currentLines.append(line)
        }
        finish()
        return parts
    }

    /// `## 9:30` or `## 09:30`, maybe followed by a title: the time and the title.
    private static func timeHeading(_ line: Substring) -> (Int, Substring)? {
        guard line.hasPrefix("## ") else { return nil }
        let rest = line.dropFirst(3).drop { $0 == " " }
        let time = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ":") }
        let after = rest[time.endIndex...]
        guard after.isEmpty || after.first?.isWhitespace == true, let seconds = JrnlFormat.parseHourMinute(time.count == 4 ? "0" + time : String(time))
        else { return nil }
        return (seconds, after.trimmedOfWhitespace)
    }

    /// The marker (three or more backticks or tildes) of a line opening or closing fenced code.
    private static func codeFence(_ line: Substring) -> Substring? {
        let indented = line.prefix { $0 == " " }
        guard indented.count <= 3 else { return nil }
        let rest = line[indented.endIndex...]
        guard let mark = rest.first, mark == "`" || mark == "~" else { return nil }
        let marker = rest.prefix { $0 == mark }
        return marker.count >= 3 ? marker : nil
    }

    // MARK: Embeds

    /// The files `lines` show inline, in order, each once; links in code are text.
    static func embeds(in lines: [Substring]) -> [Embed] {
        var found: [Embed] = []
        var fence: Substring?
        for line in lines {
            if let marker = codeFence(line) {
                if fence == nil { fence = marker } else if marker.hasPrefix(fence ?? "") { fence = nil }
                continue
            }
            guard fence == nil, line.contains("![") else { continue }
            for embed in embeds(inLine: line) where !found.contains(embed) { found.append(embed) }
        }
        return found
    }

    /// `![[…]]` and `![…](…)` on one line, outside inline code. Linear in the line's length:
    /// once a closing mark is missing from the rest of the line, no later link looks for it.
    private static func embeds(inLine line: Substring) -> [Embed] {
        var found: [Embed] = []
        var rest = line
        var inCode = false
        var closes = (wiki: true, bracket: true, parenthesis: true)
        while let index = rest.firstIndex(where: { $0 == "`" || $0 == "!" }) {
            let after = rest[rest.index(after: index)...]
            rest = after
            if line[index] == "`" {
                inCode.toggle()
                continue
            }
            guard !inCode, after.hasPrefix("[") else { continue }
            if after.hasPrefix("[["), closes.wiki {
                guard let close = after.range(of: "]]") else {
                    closes.wiki = false
                    continue
                }
                // `name|300` (a size) or `name|alias`, `name#heading`: the file is the name.
                let inner = after[after.index(after.startIndex, offsetBy: 2)..<close.lowerBound]
                let target = inner.prefix { $0 != "|" && $0 != "#" }.trimmedOfWhitespace
                if !target.isEmpty { found.append(Embed(target: String(target), isWikiLink: true)) }
                rest = after[close.upperBound...]
            } else if closes.bracket {
                guard let altEnd = after.firstIndex(of: "]") else {
                    closes.bracket = false
                    continue
                }
                rest = after[after.index(after: altEnd)...]
                guard rest.hasPrefix("("), closes.parenthesis else { continue }
                guard let (target, end) = linkDestination(rest.dropFirst()) else {
                    closes.parenthesis = false
                    continue
                }
                if let target { found.append(Embed(target: target, isWikiLink: false)) }
                rest = rest[end...]
            }
        }
        return found
    }

    /// A Markdown link's destination after its `(`: `<path with spaces>` or `path "title"`,
    /// percent-decoded; nil as the target for a URL (`https:`, `data:`, …), which names no file
    /// of the folder. Returns nil when the link does not close on this line.
    private static func linkDestination(_ text: Substring) -> (String?, Substring.Index)? {
        guard let close = text.firstIndex(of: ")") else { return nil }
        var destination = text[..<close].trimmedOfWhitespace
        if destination.hasPrefix("<"), let end = destination.firstIndex(of: ">") {
            destination = destination[destination.index(after: destination.startIndex)..<end]
        } else {
            destination = destination.prefix { !$0.isWhitespace }
        }
        let end = text.index(after: close)
        let scheme = destination.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
        if destination.isEmpty || (!scheme.isEmpty && destination.dropFirst(scheme.count).hasPrefix(":")) { return (nil, end) }
        let decoded = String(destination).removingPercentEncoding ?? String(destination)
        return (decoded, end)
    }
}

extension Substring {
    /// Without white space at either end.
    fileprivate var trimmedOfWhitespace: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return self[endIndex...] }
        return self[first...last]
    }
}
