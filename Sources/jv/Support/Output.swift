import Foundation
import JournalVault

/// How results are printed: JSON for machines, text (coloured on a terminal) for people.
struct Output {
    let json: Bool
    let color: Bool

    init(json: Bool, noColor: Bool) {
        self.json = json
        let environment = ProcessInfo.processInfo.environment
        color = !noColor && environment["NO_COLOR"].map(\.isEmpty) != false && Console.stdoutIsTerminal
            && environment["TERM"] != "dumb"
    }

    /// Pretty-printed JSON with keys in the documented order.
    func printJSON(_ value: JSONValue) {
        Console.out(value.serialized(pretty: true))
    }

    /// A new record: its JSON with `--json`, else its id alone on a line.
    func printRecord(_ record: JSONValue, id: UUID) {
        if json { printJSON(record) } else { Console.out(id.uuidString.lowercased()) }
    }

    /// "1 entry", "2 entries": a count with the kind names `info` uses, singular when one.
    static func count(_ value: Int, of kind: String) -> String {
        let singular = ["entries": "entry", "analyses": "analysis", "messages": "message", "nodes": "node",
                        "relations": "relation", "threads": "thread"]
        return "\(value) \(value == 1 ? singular[kind] ?? kind : kind)"
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
    /// An entry for people: a header line (day, time, short id, star, title), then the text.
    func render(_ entry: Entry, full: Bool = true) -> String {
        let time = String(entry.created.iso8601.dropFirst(11).prefix(5))
        var header = "\(bold(entry.localDay.description + " " + time))  \(dim(String(entry.id.uuidString.lowercased().prefix(8))))"
        if entry.starred { header += " " + yellow("★") }
        header += "  " + entry.title
        let body = entry.content.dropFirst(entry.content.hasPrefix(entry.title) ? entry.title.count : 0)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard full, !body.isEmpty else { return header }
        return header + "\n" + body.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "    " + $0 }.joined(separator: "\n")
    }

    /// An entry as Markdown: a heading with day and time, then the text.
    func markdown(_ entry: Entry) -> String {
        let time = String(entry.created.iso8601.dropFirst(11).prefix(5))
        var heading = "## \(entry.localDay) \(time)"
        if entry.starred { heading += " ★" }
        return heading + "\n\n" + entry.content + "\n"
    }

    /// Prints entries in the chosen format.
    func printEntries(_ entries: [Entry], format: EntryFormat) throws {
        switch json ? .json : format {
        case .json:
            printJSON(.array(entries.map(\.json)))
        case .markdown:
            Console.out(entries.map(markdown).joined(separator: "\n"))
        case .text:
            if entries.isEmpty { return }
            Console.out(entries.map { render($0) }.joined(separator: "\n\n"))
        }
    }
}

enum EntryFormat: String, CaseIterable {
    case text, json, markdown
}
