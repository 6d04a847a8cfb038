// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// How results are printed: JSON for machines, text (coloured on a terminal) for people.
struct Output {
    let json: Bool
    let color: Bool
    let timeFormat: TimeFormat
    /// A search whose matched words ``shown(_:)`` prints in bold (set only when `color` is).
    var highlight: SearchQuery?

    init(json: Bool, noColor: Bool) {
        self.json = json
        let environment = ProcessInfo.processInfo.environment
        // The config file was read, and a fault in it reported, before the command ran (VaultCommand).
        let config = try? Config.current
        color = !noColor && environment["NO_COLOR"].map(\.isEmpty) != false && Console.stdoutIsTerminal
            && environment["TERM"] != "dumb" && config?.color != false
        timeFormat = config?.timeFormat ?? .twentyFourHour
    }

    /// A moment's day and time to the minute, as the config file's `time_format` asks.
    func time(_ instant: Instant) -> String { timeFormat.minuteText(instant) }

    /// Pretty-printed JSON with keys in the documented order.
    func printJSON(_ value: JSONValue) {
        Console.out(value.serialized(pretty: true))
    }

    /// A new record: its JSON with `--json`, else its id alone on a line.
    func printRecord(_ record: JSONValue, id: UUID) {
        if json { printJSON(record) } else { Console.out(id.uuidString.lowercased()) }
    }

    /// The first 8 characters of an id: enough to type it back (ids resolve from 4).
    static func shortID(_ id: UUID) -> String { String(Substring(id.storageText.utf8.prefix(8))) }

    /// "1 entry", "2 entries": a count with the kind names `info` uses, singular when one.
    static func count(_ value: Int, of kind: String) -> String {
        let singular = ["entries": "entry", "analyses": "analysis", "messages": "message", "nodes": "node",
                        "relations": "relation", "threads": "thread", "changes": "change", "packs": "pack",
                        "conflict copies": "conflict copy", "editor files": "editor file", "writes": "write",
                        "attachments": "attachment", "attachment contents": "attachment content", "attachment chunks": "attachment chunk",
                        "measures": "measure"]
        return "\(value) \(value == 1 ? singular[kind] ?? kind : kind)"
    }

    /// Text from the vault, for standard output: on a terminal with its control characters
    /// shown rather than acted on (``TerminalText``); exact when piped or redirected.
    func shown(_ text: String) -> String {
        guard color, let highlight else { return Console.stdoutIsTerminal ? TerminalText.visible(text) : text }
        // Highlighting is for a colour terminal only: each piece is shown, matches in bold.
        var result = "", position = 0
        let utf8 = text.utf8
        func piece(_ range: Range<Int>) -> String {
            TerminalText.visible(String(Substring(utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)])))
        }
        for match in highlight.matchedUTF8Ranges(in: text) {
            result += piece(position..<match.lowerBound) + bold(piece(match))
            position = match.upperBound
        }
        return result + piece(position..<utf8.count)
    }

    func bold(_ text: String) -> String { styled(text, "1") }
    func dim(_ text: String) -> String { styled(text, "2") }
    func yellow(_ text: String) -> String { styled(text, "33") }
    func green(_ text: String) -> String { styled(text, "32") }
    func red(_ text: String) -> String { styled(text, "31") }

    private func styled(_ text: String, _ code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

extension Output {
    /// An entry for people: a header line (day, time, short id, star, title), then the text,
    /// then the explicit tags the text does not show. `withOffset` adds the writer's UTC offset
    /// to the time, for entries written in several time zones.
    func render(_ entry: Entry, full: Bool = true, withOffset: Bool = false) -> String {
        let (title, body) = entry.titleAndBody
        var text = "\(bold(when(entry, withOffset: withOffset)))  \(dim(Self.shortID(entry.id)))"
        if entry.starred { text += " " + yellow("★") }
        text += "  " + shown(title)
        guard full else { return text }
        if !body.isEmpty { text += Self.indentedLines(shown(body)) }
        let unseen = entry.explicitTagsNotInText
        if !unseen.isEmpty { text += "\n    " + dim(shown(unseen.map { "#" + $0 }.joined(separator: " "))) }
        return text
    }

    /// Each line of `text` after a line break and four spaces (empty lines too): the lines under
    /// a header line. Line breaks are found by `memchr` in the UTF-8 bytes and the lines appended as they
    /// are: a long listing indents every line of every entry, and walking a `String` by
    /// `Character` (or generically by byte) took a third of its time.
    static func indentedLines(_ text: String) -> String {
        var text = text
        let breaks = text.withUTF8 { bytes in
            var offsets: [Int] = []
            guard let base = bytes.baseAddress else { return offsets }
            var start = 0
            while start < bytes.count, let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) {
                let offset = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                offsets.append(offset)
                start = offset + 1
            }
            return offsets
        }
        let indent = "\n    "
        guard !breaks.isEmpty else { return indent + text }
        var result = ""
        result.reserveCapacity(text.utf8.count + indent.utf8.count * (breaks.count + 1))
        var lineStart = text.startIndex
        for offset in breaks {
            // A line break is ASCII: each line is whole UTF-8, appended without decoding.
            let lineEnd = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
            result += indent
            result += text[lineStart..<lineEnd]
            lineStart = text.utf8.index(after: lineEnd)
        }
        result += indent
        result += text[lineStart...]
        return result
    }

    /// When the entry was written, in the configured time format; with its UTC offset when
    /// `withOffset`.
    private func when(_ entry: Entry, withOffset: Bool) -> String {
        time(entry.created) + (withOffset ? " " + Instant.offsetText(entry.created.utcOffsetSeconds) : "")
    }


    /// An entry as Markdown: a heading with day and time, then the text.
    func markdown(_ entry: Entry) -> String {
        var heading = "## \(time(entry.created))"
        if entry.starred { heading += " ★" }
        return heading + "\n\n" + shown(entry.content) + "\n"
    }

    /// An entry in one of the formats for people (`text`, `short`, `fancy`, `markdown`).
    func text(_ entry: Entry, format: EntryFormat, withOffset: Bool) -> String {
        switch format {
        case .markdown: markdown(entry)
        case .fancy: fancy(entry, withOffset: withOffset)
        case .short: render(entry, full: false, withOffset: withOffset)
        case .text, .json: render(entry, withOffset: withOffset)
        }
    }

    /// jrnl's `fancy` view: the entry in a ruled box as wide as the terminal (at most 79
    /// columns, 79 when not a terminal), its time and id on the top rule, the title, then the
    /// text wrapped inside.
    func fancy(_ entry: Entry, withOffset: Bool = false) -> String {
        let width = Self.fancyWidth, inner = width - 4
        var label = when(entry, withOffset: withOffset) + " · " + Self.shortID(entry.id) + (entry.starred ? " ★" : "")
        // A box a long label would break keeps its shape: the label gives way.
        if label.count > width - 6 { label = String(label.prefix(width - 6)) }
        var lines = ["┎─ " + bold(label) + " " + String(repeating: "─", count: max(0, width - 5 - label.count)) + "╮"]
        func boxed(_ text: String) -> [String] {
            Self.wrapped(shown(text), width: inner).map { "┃ " + $0 + String(repeating: " ", count: inner - $0.count) + " │" }
        }
        let (title, body) = entry.titleAndBody
        lines += boxed(title)
        let unseen = entry.explicitTagsNotInText
        if !body.isEmpty || !unseen.isEmpty {
            lines.append("┠" + String(repeating: "╌", count: width - 2) + "┤")
            if !body.isEmpty { lines += boxed(body) }
            if !unseen.isEmpty { lines += boxed(unseen.map { "#" + $0 }.joined(separator: " ")) }
        }
        lines.append("┖" + String(repeating: "─", count: width - 2) + "┘")
        return lines.joined(separator: "\n")
    }

    private static var fancyWidth: Int {
        var size = winsize()
        guard Console.stdoutIsTerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 79 }
        return max(20, min(79, Int(size.ws_col)))
    }

    /// `text`'s lines broken at spaces into lines of at most `width` characters (a longer
    /// word is cut).
    static func wrapped(_ text: String, width: Int) -> [String] {
        var result: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for var word in paragraph.split(separator: " ") {
                if !line.isEmpty {
                    if line.count + 1 + word.count <= width {
                        line += " " + word
                        continue
                    }
                    result.append(line)
                }
                while word.count > width {
                    result.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                line = String(word)
            }
            result.append(line)
        }
        return result
    }
}

/// How `jv list` prints entries: `text` (a header line, then the text), `short` (the header
/// line alone), `fancy` (jrnl's boxed view), `json`, or `markdown`.
enum EntryFormat: String, CaseIterable {
    case text, short, fancy, json, markdown

    /// What comes between two entries (each ends without a line break).
    var separator: String { self == .short || self == .markdown ? "\n" : "\n\n" }
}

/// How records are printed: as elements of one pretty-printed JSON array, or as blocks of
/// text between separators.
struct RecordStyle: Sendable {
    let json: Bool
    var separator = "\n\n"

    /// A record's printed form: made where the record is decrypted, on every core, for entries.
    func render(_ value: @autoclosure () -> JSONValue, text: @autoclosure () -> String) -> String {
        json ? value().serialized(pretty: true, depth: 1) : text()
    }
}

/// Records printed one at a time as they come, rendered by ``RecordStyle/render(_:text:)``. The
/// bytes are those of printing them all at once.
final class RecordPrinter {
    private let stream: StandardOutput
    private let style: RecordStyle
    private var json = JSONStreamWriter(pretty: true)
    private(set) var count = 0

    /// Opens the JSON array at once.
    init(_ stream: StandardOutput, style: RecordStyle) throws {
        self.stream = stream
        self.style = style
        if style.json { try stream.write(json.openArray()) }
    }

    func print(_ rendered: String) throws {
        defer { count += 1 }
        if style.json { return try stream.write(json.value(serialized: rendered)) }
        try stream.write((count > 0 ? style.separator : "") + rendered)
    }

    /// Ends the array, or the last block's line.
    func finish() throws {
        if style.json { return try stream.line(json.close()) }
        if count > 0 { try stream.write("\n") }
    }
}
