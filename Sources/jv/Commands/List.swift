import ArgumentParser
import JournalVault

/// `jv list`: entries in time order.
struct List: VaultCommand {
    static let configuration = CommandConfiguration(
        abstract: "List entries in time order.",
        discussion: """
            Dates: YYYY-MM-DD, ISO 8601 date-times, today, yesterday, tomorrow, 'N days ago', weekday \
            names, each optionally followed by a time (yesterday 21:30). Day bounds use the day the \
            entry was written where it was written; --to includes its whole day.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "Entries from this date on.")
    var from: String?

    @Option(help: "Entries up to this date (inclusive).")
    var to: String?

    @Option(help: "Entries of this day.")
    var on: String?

    @Option(name: .short, help: "Only the last N entries.")
    var n: Int?

    @Flag(help: "Only starred entries.")
    var starred = false

    @Option(name: .customLong("tag"), help: "Only entries with this tag (repeatable: all must match).")
    var tags: [String] = []

    @Option(name: .customLong("any-tag"), help: "Only entries with at least one of these tags (repeatable).")
    var anyTags: [String] = []

    @Option(name: .customLong("not-tag"), help: "Only entries without this tag (repeatable: none of them).")
    var notTags: [String] = []

    @Option(help: "Only entries containing this text (case- and accent-insensitive).")
    var contains: String?

    @Option(name: .customLong("on-this-day"),
            help: ArgumentHelp("Entries of this day's date in earlier years (alone: today's).", valueName: "date"))
    var onThisDay: String?

    @Flag(help: "One line per entry: its time, id and title (--format short).")
    var short = false

    @Flag(help: "Newest first.")
    var reverse = false

    @Option(help: "text, short (one line each), fancy (boxed), json or markdown.")
    var format: EntryFormat = .text

    @OptionGroup var paging: PagerOption

    func validate() throws {
        if let n, n < 0 { throw ValidationError("-n takes a number of entries, 0 or more.") }
        if short && ![.text, .short].contains(format) { throw ValidationError("--short is --format short: give one or the other.") }
    }

    func execute() throws {
        var query = EntryQuery()
        (query.from, query.to) = try DateArgument.range(from: from, to: to)
        query.on = try DateArgument.day(on)
        query.limit = n
        query.starredOnly = starred
        query.tags = try ContentRules.tags(tags)
        query.anyTags = try ContentRules.tags(anyTags)
        query.withoutTags = try ContentRules.tags(notTags)
        query.contains = contains
        query.onThisDay = try DateArgument.day(onThisDay)
        let journal = try options.unlockedVault(access: .readOnly)
        let output = options.output
        let format = output.json ? .json : short ? .short : format
        let withOffset = try [.text, .short, .fancy].contains(format) && journal.entriesSpanZones(query)
        var printed = 0
        // Printed as they are decrypted, in order: --reverse walks the vault newest first.
        let style = RecordStyle(json: format == .json, separator: format.separator)
        try StandardOutput.with(pager: format == .json ? nil : paging.pager) { stream in
            let printer = try RecordPrinter(stream, style: style)
            try journal.forEachEntry(matching: query, order: reverse ? .newestFirst : .oldestFirst, transform: { entry in
                style.render(entry.json, text: output.text(entry, format: format, withOffset: withOffset))
            }, printer.print)
            try printer.finish()
            printed = printer.count
        }
        // Nothing printed is not silence: standard error says why (standard output stays empty).
        if printed == 0 && format != .json {
            let isEmpty = try journal.vault.info().counts["entries", default: 0] == 0
            Console.note(isEmpty ? "The vault has no entries yet; add one with 'jv add'." : "No entries match.")
        }
    }
}

extension EntryFormat: ExpressibleByArgument {}
