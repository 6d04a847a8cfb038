import Foundation
import JournalVault

/// How results are printed: JSON for machines, text (coloured on a terminal) for people.
struct Output {
    let json: Bool
    let color: Bool
    let timeFormat: TimeFormat

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
    static func shortID(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }

    /// "1 entry", "2 entries": a count with the kind names `info` uses, singular when one.
    static func count(_ value: Int, of kind: String) -> String {
        let singular = ["entries": "entry", "analyses": "analysis", "messages": "message", "nodes": "node",
                        "relations": "relation", "threads": "thread"]
        return "\(value) \(value == 1 ? singular[kind] ?? kind : kind)"
    }

    /// Text from the vault, for standard output: on a terminal with its control characters
    /// shown rather than acted on (``TerminalText``); exact when piped or redirected.
    func shown(_ text: String) -> String {
        Console.stdoutIsTerminal ? TerminalText.visible(text) : text
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
        var when = time(entry.created)
        if withOffset { when += " " + Instant.offsetText(entry.created.utcOffsetSeconds) }
        var header = "\(bold(when))  \(dim(Self.shortID(entry.id)))"
        if entry.starred { header += " " + yellow("★") }
        header += "  " + shown(entry.title)
        guard full else { return header }
        var lines = [header]
        let body = shown(entry.body)
        if !body.isEmpty { lines += body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 } }
        let inline = Set(Tags.inline(in: entry.content))
        let unseen = entry.tags.filter { !inline.contains($0) }
        if !unseen.isEmpty { lines.append("    " + dim(shown(unseen.map { "#" + $0 }.joined(separator: " ")))) }
        return lines.joined(separator: "\n")
    }

    /// Whether `entries` were written in more than one time zone (their times then show it).
    static func spanZones(_ entries: [Entry]) -> Bool {
        Set(entries.map(\.created.utcOffsetSeconds)).count > 1
    }

    /// An entry as Markdown: a heading with day and time, then the text.
    func markdown(_ entry: Entry) -> String {
        var heading = "## \(time(entry.created))"
        if entry.starred { heading += " ★" }
        return heading + "\n\n" + shown(entry.content) + "\n"
    }

    /// Prints entries in the chosen format; `short`: one header line each.
    func printEntries(_ entries: [Entry], format: EntryFormat, short: Bool = false) throws {
        switch json ? .json : format {
        case .json:
            printJSON(.array(entries.map(\.json)))
        case .markdown:
            Console.out(entries.map(markdown).joined(separator: "\n"))
        case .text:
            if entries.isEmpty { return }
            let withOffset = Self.spanZones(entries)
            Console.out(entries.map { render($0, full: !short, withOffset: withOffset) }.joined(separator: short ? "\n" : "\n\n"))
        }
    }
}

enum EntryFormat: String, CaseIterable {
    case text, json, markdown
}
