// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv search`: find words in decrypted records.
struct Search: VaultCommand, TakesFreeText {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the decrypted text of entries, chat messages and analyses (case- and accent-insensitive).",
        discussion: """
            Every word must occur (as a whole word); "a phrase" in quotes must occur as written; \
            word* finds words that start with it; A OR B finds either; -word leaves out what has \
            it. Results come newest first within each kind (entries, then chat messages, then \
            analyses); --rank orders each kind by relevance. Without --kind every kind is \
            searched. --json prints one array of records in their own shapes; --count prints \
            how many match.
            """)

    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case entry, chat, analysis

        var searchKind: SearchKind {
            switch self {
            case .entry: .entry
            case .chat: .chatMessage
            case .analysis: .analysis
            }
        }
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: "What to find: words, \"phrases\", prefix*, OR, -excluded.")
    var words: [String]

    @Option(help: "Only records from this date on.")
    var from: String?

    @Option(help: "Only records up to this date (inclusive).")
    var to: String?

    @Option(help: "What to search: entry, chat or analysis (default: all).")
    var kind: Kind?

    @Flag(help: "Order each kind by relevance (bm25), best first, instead of newest first.")
    var rank = false

    @Flag(help: "Print only how many records match (with --json: per kind and in total).")
    var count = false

    @OptionGroup var paging: PagerOption

    func execute() throws {
        let text = words.joined(separator: " ")
        // A query that cannot be read is refused before anything is unlocked.
        let query = try SearchQuery.parse(text)
        let (from, to) = try DateArgument.range(from: from, to: to)
        let kinds = kind.map { [$0.searchKind] } ?? SearchKind.allCases
        let journal = try options.unlockedVault(access: .readOnly)
        let request = SearchRequest(query: query, kinds: Set(kinds), from: from, to: to, ranked: rank)
        var output = options.output
        if count { return printCount(try journal.search(request), kinds: kinds, output) }
        output.highlight = output.color ? query : nil
        let style = RecordStyle(json: output.json)
        // Times carry their UTC offset when the entries of the dates searched were written at
        // more than one (as `jv list` decides): known before the first result is found.
        var range = EntryQuery()
        range.from = from
        range.to = to
        let withOffset = try !output.json && kinds.contains(.entry) && journal.entriesSpanZones(range)
        var printed = 0
        try StandardOutput.with(pager: output.json ? nil : paging.pager) { [output] stream in
            let printer = try RecordPrinter(stream, style: style)
            try journal.forEachSearchMatch(request, transform: { result in
                switch result {
                case .entry(let entry):
                    return style.render(entry.json, text: output.render(entry, withOffset: withOffset))
                case .chatMessage(let message):
                    let when = output.bold(output.time(message.timestamp)), thread = output.dim("chat " + Output.shortID(message.threadID))
                    return style.render(message.json, text: "\(when)  \(thread)  \(message.role.rawValue): \(output.shown(message.content))")
                case .analysis(let analysis):
                    return style.render(analysis.json, text: output.summary(analysis))
                }
            }, printer.print)
            try printer.finish()
            printed = printer.count
        }
        if printed == 0 && !output.json { Console.note("Nothing matches “\(text)”.") }
    }

    /// `--count`: one number, or with `--json` an object per kind searched and the total.
    private func printCount(_ hits: [SearchHit], kinds: [SearchKind], _ output: Output) {
        guard output.json else { return Console.out(String(hits.count)) }
        let names: [SearchKind: String] = [.entry: "entries", .chatMessage: "chat_messages", .analysis: "analyses"]
        let counts = kinds.map { kind in (names[kind]!, JSONValue.integer(Int64(hits.count { $0.kind == kind }))) }
        output.printJSON(.object(counts + [("total", .integer(Int64(hits.count)))]))
    }
}
