import ArgumentParser
import JournalVault

/// `jv search`: find text in decrypted records.
struct Search: VaultCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search the decrypted text of entries, chat messages and analyses (case- and accent-insensitive).",
        discussion: """
            Without --kind every kind is searched. --json prints one array of records in their own \
            shapes: entries first, then chat messages, then analyses.
            """)

    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case entry, chat, analysis
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The text to find.")
    var query: String

    @Option(help: "Only records from this date on.")
    var from: String?

    @Option(help: "Only records up to this date (inclusive).")
    var to: String?

    @Option(help: "What to search: entry, chat or analysis (default: all).")
    var kind: Kind?

    func execute() throws {
        let (from, to) = try DateArgument.range(from: from, to: to)
        let journal = try options.unlockedVault(access: .readOnly)
        let kinds = kind.map { [$0] } ?? Kind.allCases
        var range = EntryQuery()
        range.from = from
        range.to = to
        let entries = kinds.contains(.entry) ? try journal.searchEntries(query, in: range) : []
        let messages = kinds.contains(.chat) ? try journal.searchMessages(query, from: from, to: to) : []
        let analyses = kinds.contains(.analysis) ? try journal.searchAnalyses(query, from: from, to: to) : []
        let output = options.output
        if output.json {
            return output.printJSON(.array(entries.map(\.json) + messages.map(\.json) + analyses.map(\.json)))
        }
        var sections: [String] = []
        let withOffset = Output.spanZones(entries)
        if !entries.isEmpty { sections.append(entries.map { output.render($0, withOffset: withOffset) }.joined(separator: "\n\n")) }
        for message in messages {
            let when = output.time(message.timestamp)
            sections.append("\(output.bold(when))  \(output.dim("chat " + Output.shortID(message.threadID)))  \(message.role.rawValue): \(output.shown(message.content))")
        }
        sections += analyses.map(output.summary)
        if sections.isEmpty {
            Console.note("Nothing matches “\(query)”.")
        } else {
            Console.out(sections.joined(separator: "\n\n"))
        }
    }
}
