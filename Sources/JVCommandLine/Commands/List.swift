// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv list`: entries in time order.
struct List: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List entries in time order.",
        discussion: """
            Dates: YYYY-MM-DD, ISO 8601 date-times, now, today, yesterday, tomorrow, 'N days ago', \
            'N weeks ago', 'in N days', 'an hour ago', 'N minutes ago', weekday names (monday, last monday, \
            next friday), a month and day ('nov 5', '5 november', \
            'november 5 2025'), each optionally followed by a time ('yesterday 21:30', 'nov 5 9pm', \
            'friday noon', or 'noon yesterday'); a time alone (9pm, 21:00, noon, midnight) is today at that time; \
            'this morning' (06:00), 'this afternoon' (13:00), 'this evening' (18:00), 'tonight', 'last night' (21:00). Runs of \
            days: 2026, 2026-11, 'nov 2026', 'this week', 'last week' (Monday to Sunday), 'this month', \
            'last month', 'this year', 'last year': --from takes the first day, --to the last, --on all \
            of them. Day bounds use the day the entry was written where it was written; --to includes \
            its whole day.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "Entries from this date on.")
    var from: String?

    @Option(help: "Entries up to this date (inclusive).")
    var to: String?

    @Option(help: "Entries of this day, or of these days (2026-11, 'last week').")
    var on: String?

    @Option(name: .short, help: "Only the last N entries (default: the config file's limit, else all; with --from, --to or --on, all).")
    var n: Int?

    @Flag(help: "All entries, even when the config file sets a limit.")
    var all = false

    @Flag(help: "Only starred entries.")
    var starred = false

    @Option(name: .customLong("tag"), help: "Only entries with this tag (repeatable: all must match).", completion: Completions.tag)
    var tags: [String] = []

    @Option(name: .customLong("any-tag"), help: "Only entries with at least one of these tags (repeatable).", completion: Completions.tag)
    var anyTags: [String] = []

    @Option(name: .customLong("not-tag"), help: "Only entries without this tag (repeatable: none of them).", completion: Completions.tag)
    var notTags: [String] = []

    @Option(help: "Only entries containing this text (case- and accent-insensitive).")
    var contains: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("Only entries whose fields meet this: 'mood>=7', 'weather=rain', 'sleep' (has it), "
                                                         + "'!sleep' (has it not); =, !=, <, <=, >, >= (repeatable: all must hold).",
                                                         valueName: "condition"))
    var conditions: [String] = []

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
        if n != nil && all { throw ValidationError("-n and --all contradict each other; give one of them.") }
        if short && ![.text, .short].contains(format) { throw ValidationError("--short is --format short: give one or the other.") }
    }

    func execute() throws {
        var query = EntryQuery()
        (query.from, query.to) = try DateArgument.range(from: from, to: to)
        query.on = try DateArgument.days(on)
        // The config file's limit trims a plain listing; a range asked for is shown whole.
        let isRange = from != nil || to != nil || on != nil || onThisDay != nil
        query.limit = try all ? nil : n ?? (isRange ? nil : Config.current.limit)
        query.starredOnly = starred
        query.tags = try ContentRules.tags(tags)
        query.anyTags = try ContentRules.tags(anyTags)
        query.withoutTags = try ContentRules.tags(notTags)
        query.contains = contains
        query.onThisDay = try DateArgument.day(onThisDay)
        query.measureConditions = try conditions.map(MeasureCondition.parse)
        let journal = try options.unlockedVault(access: .readOnly)
        let output = options.output
        let format = output.json ? .json : short ? .short : format
        let withOffset = try [.text, .short, .fancy].contains(format) && journal.entriesSpanZones(query)
        var printed = 0
        // Printed as they are decrypted, in order: --reverse walks the vault newest first.
        let style = RecordStyle(json: format == .json, separator: format.separator)
        // A plaintext count per listed entry, read once (nothing when they have no attachments).
        let attachmentCounts = try journal.attachmentCounts(matching: query)
        // JSON shows each entry's fields; they are opened once, all together (none: nothing opened).
        let measures = format == .json ? try journal.measures(matching: query) : [:]
        try StandardOutput.with(pager: format == .json ? nil : paging.pager) { stream in
            let printer = try RecordPrinter(stream, style: style)
            try journal.forEachEntry(matching: query, order: reverse ? .newestFirst : .oldestFirst, transform: { entry in
                let files = attachmentCounts[entry.id] ?? 0
                return style.render(entry.json.adding(measures: measures[entry.id]).adding(attachmentCount: files),
                                    text: output.marked(output.text(entry, format: format, withOffset: withOffset), attachments: files, format: format))
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
