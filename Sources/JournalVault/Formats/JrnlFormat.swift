// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// jrnl's formats (jrnl 4.x, default configuration): its plain-text journal, which
/// `jrnl --import` reads, and its JSON export. jrnl knows no time zones, UTC offsets or explicit
/// tags: entries are written at the writer's wall-clock time, and explicit tags that are not in
/// the text are appended to it as a last line of `@tags`, so they survive as jrnl tags.
///
/// ```swift
/// let text = JrnlFormat.text(of: snapshot.entries)   // for `jrnl --import`
/// let entries = try JrnlFormat.parseText(text, zone: .current)
/// ```
public enum JrnlFormat {
    // MARK: Writing

    /// The text jrnl would hold for `entry`: its content plus a line of explicit-only tags.
    static func jrnlText(_ entry: Entry) -> String {
        let inline = Set(Tags.inline(in: entry.content))
        let extra = entry.explicitTags.filter { !inline.contains($0) }
        return extra.isEmpty ? entry.content : entry.content + "\n\n" + extra.map { "@" + $0 }.joined(separator: " ")
    }

    /// jrnl orders by its naive wall-clock dates; ties keep the vault's order.
    static func sortedForJrnl(_ entries: [Entry]) -> [Entry] {
        entries.enumerated().sorted { ($0.element.wallClockMillis, $0.offset) < ($1.element.wallClockMillis, $1.offset) }.map(\.element)
    }

    /// jrnl's plain-text journal: `[YYYY-MM-DD hh:mm:ss AM] Title *` (timeformat `%F %r`), the
    /// body on the following lines, entries separated by a blank line.
    public static func text(of entries: [Entry]) -> String {
        var snapshot = VaultSnapshot()
        snapshot.entries = entries
        return snapshot.export(.txt)
    }

    /// The plain-text journal an entry at a time.
    struct TextRenderer: ExportRenderer {
        private var first = true
        var inWallClockOrder: Bool { true }
        func opening() -> String { "" }
        func closing() -> String { "" }

        mutating func entry(_ entry: Entry) -> String {
            defer { first = false }
            return (first ? "" : "\n") + "[\(entry.localDay) \(twelveHourTime(entry))] " + writtenText(entry)
        }
    }

    /// An entry as it stands in jrnl's file after its date: title (with ` *` when starred),
    /// body, final line break — what jrnl will read back as that entry's text.
    static func writtenText(_ entry: Entry) -> String {
        let (title, body) = Tags.split(jrnlText(entry))
        return title + (entry.starred ? " *" : "") + (body.isEmpty ? "" : "\n" + body) + "\n"
    }

    /// jrnl's `Entry._parse_text`: a first line ending in `*` marks a star (and loses its
    /// trailing spaces and asterisks), then `split_title` gives the title and body. jrnl cannot
    /// tell an unstarred title ending in `*` from a star; this reads it as jrnl does.
    static func readEntryText(_ raw: String) -> (title: String, body: String, starred: Bool) {
        // Only the first line can mark a star; it is read on its own (most entries have none).
        let scalars = raw.unicodeScalars
        var first = String(Substring(scalars[..<(scalars.firstIndex(of: "\n") ?? scalars.endIndex)]))
        if first.unicodeScalars.last == "\r" { first.unicodeScalars.removeLast() }
        guard ContentRules.trimmed(first).unicodeScalars.last == "*" else {
            let (title, body) = Tags.split(raw)
            return (title, body, false)
        }
        var lines = raw.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        if lines.last?.isEmpty == true { lines.removeLast() }  // Python's splitlines() drops it
        let title = first.trimmingCharacters(in: CharacterSet(charactersIn: "\n *"))
        let (splitTitle, body) = Tags.split(title + "\n" + lines.dropFirst().joined(separator: "\n"))
        return (splitTitle, body, true)
    }

    /// jrnl's JSON export, as `jv export --format jrnl-json` writes it (pretty-printed):
    /// `{"tags": {tag: count}, "entries": [{title, body, date, time, tags, starred}]}`.
    public static func json(of entries: [Entry]) -> String {
        var snapshot = VaultSnapshot()
        snapshot.entries = entries
        return snapshot.export(.jrnlJSON)
    }

    /// An entry of jrnl's JSON export, and its tags: exactly what jrnl reads from the text export
    /// of the entry.
    private static func jsonEntry(_ entry: Entry) -> (value: JSONValue, tags: [String]) {
        let written = writtenText(entry)
        let (title, body, starred) = readEntryText(written)
        let tags = jrnlTags(in: written)
        return (.object([
            ("title", .string(title)),
            ("body", .string(body)),
            ("date", .string(entry.localDay.description)),
            ("time", .string(entry.created.timeOfDayText)),
            ("tags", .strings(tags)),
            ("starred", .bool(starred)),
        ]), tags)
    }

    /// `{tag: count}`, most used first, then by name.
    private static func tagCounts(_ counts: [String: Int]) -> JSONValue {
        .object(counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, .integer(Int64($0.value))) })
    }

    /// jrnl's JSON export an entry at a time, pretty-printed with a final line break: the tag
    /// counts come first, so the entries are read twice (counted, then written).
    struct JSONRenderer: ExportRenderer {
        private var counts: [String: Int] = [:]
        private var json = JSONStreamWriter(pretty: true)
        var inWallClockOrder: Bool { true }
        var readsEntriesTwice: Bool { true }

        mutating func look(at entry: Entry) {
            for tag in jrnlTags(in: writtenText(entry)) { counts[tag, default: 0] += 1 }
        }

        mutating func opening() -> String {
            json.openObject() + json.value(tagCounts(counts), "tags") + json.openArray("entries")
        }

        mutating func entry(_ entry: Entry) -> String { json.value(jsonEntry(entry).value) }

        mutating func closing() -> String { json.close() + json.close() + "\n" }
    }

    /// jrnl's tags: `(?<!\S)[#@][-+*#/\w]+`, lower-cased, each once (sorted for a stable output;
    /// jrnl's own order is a set's).
    static func jrnlTags(in text: String) -> [String] {
        var tags = Set<String>()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "#" || scalars[index] == "@", index == 0 || scalars[index - 1].properties.isWhitespace else { continue }
            var end = index + 1
            while end < scalars.count, isJrnlTagScalar(scalars[end]) { end += 1 }
            if end > index + 1 {
                tags.insert(String(String.UnicodeScalarView(scalars[index..<end])).lowercased())
                index = end - 1
            }
        }
        return tags.sorted()
    }

    /// Python's `[-+*#/\w]`: `\w` is a letter (categories L*), a numeric character or `_`.
    private static func isJrnlTagScalar(_ scalar: Unicode.Scalar) -> Bool {
        if "-+*#/_".unicodeScalars.contains(scalar) || scalar.properties.numericType != nil { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    /// `%r`: `hh:mm:ss AM`.
    fileprivate static func twelveHourTime(_ entry: Entry) -> String {
        let seconds = Int(entry.created.localMillisOfDay / 1000)
        let hour = seconds / 3600, minute = seconds / 60 % 60, second = seconds % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let twelve = hour % 12 == 0 ? 12 : hour % 12
        return "\(two(twelve)):\(two(minute)):\(two(second)) \(hour < 12 ? "AM" : "PM")"
    }

    // MARK: Reading

    /// Entries of a jrnl plain-text journal. Dates are read as wall-clock times in `zone`. Each
    /// entry's id derives from its date, time and text, so importing the same file twice adds
    /// nothing.
    public static func parseText(_ text: String, zone: TimeZone) throws -> [Entry] {
        // jrnl: an entry starts at "[date] " at the start of the text or of a line, where the
        // bracket holds a date it can read; other brackets are text.
        // One pass over the bytes, each line looked at once (a `[` without its `]` searches its
        // own line only), line numbers counted on the way: linear in the size of the file.
        var starts: [(start: String.Index, textStart: String.Index, date: CivilDay, seconds: Int, line: Int)] = []
        let bytes = text.utf8
        var lineStart = bytes.startIndex
        var lineNumber = 1
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            if bytes[lineStart] == UInt8(ascii: "["), let close = bytes[lineStart..<lineEnd].firstIndex(of: UInt8(ascii: "]")) {
                let afterClose = bytes.index(after: close)
                if afterClose < lineEnd, bytes[afterClose] == UInt8(ascii: " "),
                   let (day, seconds) = parseJrnlDate(Self.scalars(of: text, bytes.index(after: lineStart)..<close)) {
                    starts.append((lineStart, bytes.index(after: afterClose), day, seconds, lineNumber))
                }
            }
            guard lineEnd < bytes.endIndex else { break }
            lineStart = bytes.index(after: lineEnd)
            lineNumber += 1
        }
        guard !starts.isEmpty else { throw ImportError(line: 1, reason: "no jrnl entries found (each starts with a line like '[2026-01-05 09:00:00 AM] Title')") }
        return try starts.enumerated().map { index, start in
            let end = index + 1 < starts.count ? starts[index + 1].start : text.endIndex
            let (title, body, starred) = readEntryText(Self.scalars(of: text, start.textStart..<end))
            return try entry(title: title, body: body, day: start.date, seconds: start.seconds, tags: [], starred: starred,
                             zone: zone, line: start.line)
        }
    }

    /// The text between two scalar boundaries, exactly: a slice of the string itself would round
    /// to the start of a grapheme cluster (a combining mark after the `] `).
    private static func scalars(of text: String, _ range: Range<String.Index>) -> String {
        // Substring of the scalar view: bounds kept exactly, bytes copied whole.
        String(Substring(text.unicodeScalars[range]))
    }

    /// Entries of a jrnl JSON export.
    public static func parseJSON(_ bytes: [UInt8], zone: TimeZone) throws -> [Entry] {
        let document = try ImportError.parsing(bytes)
        guard let items = document["entries"]?.arrayValue else { throw ImportError(reason: "no \"entries\" list: not a jrnl JSON export") }
        return try items.enumerated().map { index, item in
            func fail(_ reason: String) -> ImportError { ImportError(record: index + 1, reason: reason) }
            guard let title = item["title"]?.stringValue, let body = item["body"]?.stringValue else { throw fail("title or body missing") }
            guard let dayText = item["date"]?.stringValue, let day = CivilDay(iso: dayText) else { throw fail("date is not YYYY-MM-DD") }
            guard let timeText = item["time"]?.stringValue, let seconds = parseHourMinute(timeText) else { throw fail("time is not HH:MM") }
            let tags = try item.stringList("tags", fail)
            let starred = try item.optionalBool("starred", fail)
            return try entry(title: title, body: body, day: day, seconds: seconds, tags: tags, starred: starred, zone: zone, record: index + 1)
        }
    }

    /// The jv entry for a jrnl entry; tags jrnl lists that the text lacks become explicit tags.
    private static func entry(title: String, body: String, day: CivilDay, seconds: Int, tags: [String], starred: Bool,
                              zone: TimeZone, line: Int? = nil, record: Int? = nil) throws -> Entry {
        let content = body.isEmpty ? title : title + "\n" + body
        let validated: String
        do {
            validated = try ContentRules.validated(content)
        } catch let error as VaultError {
            throw ImportError(line: line, record: record, reason: error.description)
        }
        let inline = Set(Tags.inline(in: validated))
        let explicit = tags.compactMap(Tags.normalize).filter { !inline.contains($0) }
        let (utc, offset) = DateExpression.resolve(localSeconds: Int64(day.daysSinceEpoch) * 86_400 + Int64(seconds), in: zone)
        let created = Instant(millis: utc * 1000, utcOffsetSeconds: offset)
        // Minute precision: jrnl's JSON has no seconds, and both formats must give the same id.
        let minute = "\(day) \(seconds / 3600):\(seconds / 60 % 60)"
        return Entry(id: StableID.make(source: "jrnl", parts: [minute, title, body]), content: validated, created: created,
                     modifiedAt: created.millis, starred: starred, explicitTags: explicit)
    }

    /// jrnl's default `%F %r` (`2026-01-05 09:00:00 AM`), or any ISO-like date and time. It
    /// must start with the date: a body line like "[9pm] Dinner" is not a relative date.
    private static func parseJrnlDate(_ text: String) -> (CivilDay, Int)? {
        let utc = TimeZone(identifier: "UTC")!
        guard CivilDay(iso: text.prefix(10)) != nil,
              case .instant(let instant)? = try? DateExpression.parse(text, now: Instant(millis: 0, utcOffsetSeconds: 0), zone: utc),
              instant.utcOffsetSeconds == 0 || !text.contains(where: { $0 == "+" || $0 == "Z" }) else { return nil }
        let wall = Instant(millis: instant.millis + Int64(instant.utcOffsetSeconds) * 1000, utcOffsetSeconds: 0)
        return (wall.localDay, Int(wall.localMillisOfDay / 1000))
    }

    static func parseHourMinute(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        return hour * 3600 + minute * 60
    }
}

extension Entry {
    /// The writer's wall-clock time as milliseconds since 1970-01-01T00:00 (offset applied).
    var wallClockMillis: Int64 { created.millis + Int64(created.utcOffsetSeconds) * 1000 }
}

/// Ids for imported records that have none of their own: a UUID (version 8, RFC 9562) from a
/// BLAKE2b hash of where they came from, so the same source record always gets the same id.
enum StableID {
    static func make(source: String, parts: [String]) -> UUID {
        var message = Array("jv-import\0\(source)".utf8)
        for part in parts { message += [0] + Array(part.utf8) }
        return UUID(version8From: Blake2b.hash(message, length: 16))
    }
}
