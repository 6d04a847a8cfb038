// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv search`: find text in decrypted records.
struct Search: VaultCommand, TakesFreeText {
    static let configuration = CommandConfiguration(
        commandName: "search",
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

    @OptionGroup var paging: PagerOption

    func execute() throws {
        let (from, to) = try DateArgument.range(from: from, to: to)
        let journal = try options.unlockedVault(access: .readOnly)
        let kinds = kind.map { [$0] } ?? Kind.allCases
        var range = EntryQuery()
        range.from = from
        range.to = to
        range.contains = query
        let output = options.output
        var printed = 0
        // Entries are printed as they are decrypted; the chat messages and analyses that match follow.
        try StandardOutput.with(pager: output.json ? nil : paging.pager) { stream in
            let style = RecordStyle(json: output.json)
            let printer = try RecordPrinter(stream, style: style)
            if kinds.contains(.entry) {
                let withOffset = try !output.json && journal.entriesSpanZones(range)
                try journal.forEachEntry(matching: range, transform: { entry in
                    style.render(entry.json, text: output.render(entry, withOffset: withOffset))
                }, printer.print)
            }
            for message in kinds.contains(.chat) ? try journal.searchMessages(query, from: from, to: to) : [] {
                let when = output.bold(output.time(message.timestamp)), thread = output.dim("chat " + Output.shortID(message.threadID))
                try printer.print(style.render(message.json, text: "\(when)  \(thread)  \(message.role.rawValue): \(output.shown(message.content))"))
            }
            for analysis in kinds.contains(.analysis) ? try journal.searchAnalyses(query, from: from, to: to) : [] {
                try printer.print(style.render(analysis.json, text: output.summary(analysis)))
            }
            try printer.finish()
            printed = printer.count
        }
        if printed == 0 && !output.json { Console.note("Nothing matches “\(query)”.") }
    }
}
