// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv stats`: how much and how regularly you write, and how it went over time.
struct Stats: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Entries, words, days written, streaks, entries and words per month, entries per week, sentiment and measures per month.",
        discussion: """
            Entries per week covers the last 52 weeks without --from or --to, else the weeks of the range's entries. \
            Sentiment per month is the mean, by the entry's day, of each entry's newest analysis (whatever the model): \
            a number from -1 to 1 as given, positive +1, neutral 0, negative -1; other sentiments are left out, \
            and so is the section when no entry has one. Each field of the entries' measures that holds numbers \
            (jv add --field) gets a sparkline of its mean per month.
            """)

    @OptionGroup var options: GlobalOptions

    @OptionGroup var range: EntryRange

    /// Every line fits this many columns.
    static let width = 80
    /// Weeks, and months of sentiment, on one line of a sparkline.
    static let weeksPerLine = 52, monthsPerLine = 60

    func execute() throws {
        let stats = try options.unlockedVault(access: .readOnly).stats(range.query(), today: Instant.now().localDay)
        if options.json { return options.output.printJSON(Self.json(stats)) }
        Console.out(Self.text(stats, output: options.output))
    }

    /// README "jv stats": the keys before `words_per_month` are the first release's, unchanged.
    static func json(_ stats: JournalStats) -> JSONValue {
        .object([
            ("entries", .integer(Int64(stats.entries))), ("words", .integer(Int64(stats.words))),
            ("days_written", .integer(Int64(stats.daysWritten))),
            ("first_day", stats.firstDay.map { .string($0.description) } ?? .null),
            ("last_day", stats.lastDay.map { .string($0.description) } ?? .null),
            ("longest_streak", .integer(Int64(stats.longestStreak))), ("current_streak", .integer(Int64(stats.currentStreak))),
            ("per_month", .object(stats.perMonth.map { ($0.month, .integer(Int64($0.entries))) })),
            ("words_per_month", .object(stats.wordsPerMonth.map { ($0.month, .integer(Int64($0.words))) })),
            ("entries_per_week", .array(stats.entriesPerWeek.map {
                .object([("week", .string($0.week)), ("entries", .integer(Int64($0.entries)))])
            })),
            ("sentiment_per_month", monthlyMeans(stats.sentimentPerMonth)),
            ("measures_per_month", .object(stats.measuresPerMonth.map { ($0.name, monthlyMeans($0.months)) })),
        ])
    }

    /// `{"YYYY-MM": {"mean", "entries"}}`.
    private static func monthlyMeans(_ months: [(month: String, mean: Double, entries: Int)]) -> JSONValue {
        .object(months.map { ($0.month, .object([("mean", .number($0.mean)), ("entries", .integer(Int64($0.entries)))])) })
    }

    /// The figures, then a bar per month of entries and of words, the weekly sparkline and,
    /// when some entry has a scored sentiment, its monthly sparkline and means.
    static func text(_ stats: JournalStats, output: Output) -> String {
        func days(_ count: Int) -> String { "\(count) day\(count == 1 ? "" : "s")" }
        var lines = ["entries         \(stats.entries)", "words           \(stats.words)",
                     "days written    \(stats.daysWritten)" + (stats.firstDay.map { first in "  (\(first) … \(stats.lastDay ?? first))" } ?? ""),
                     "longest streak  \(days(stats.longestStreak))", "current streak  \(days(stats.currentStreak))"]
        lines += monthBars("entries per month", stats.perMonth.map { ($0.month, $0.entries) }, output: output)
        lines += monthBars("words per month", stats.wordsPerMonth.map { ($0.month, $0.words) }, output: output)
        if let first = stats.entriesPerWeek.first, let last = stats.entriesPerWeek.last {
            let most = stats.entriesPerWeek.map(\.entries).max() ?? 0
            lines += ["", output.bold("entries per week") + "  \(first.week) … \(last.week), ▁ none … █ \(most)"]
            for start in stride(from: 0, to: stats.entriesPerWeek.count, by: weeksPerLine) {
                let weeks = stats.entriesPerWeek[start..<min(start + weeksPerLine, stats.entriesPerWeek.count)]
                let line = TextChart.sparkline(weeks.map { Double($0.entries) }, lowest: 0, highest: Double(most))
                lines.append("  \(stats.entriesPerWeek[start].week)  " + output.green(line))
            }
        }
        if !stats.sentimentPerMonth.isEmpty {
            lines += ["", output.bold("sentiment per month") + "  ▁ -1 negative … █ +1 positive, newest analysis per entry"]
            for start in stride(from: 0, to: stats.sentimentPerMonth.count, by: monthsPerLine) {
                let months = stats.sentimentPerMonth[start..<min(start + monthsPerLine, stats.sentimentPerMonth.count)]
                lines.append("  " + TextChart.sparkline(months.map(\.mean), lowest: -1, highest: 1))
            }
            for month in stats.sentimentPerMonth {
                let mean = String(format: "%+.2f", month.mean)
                let shown = month.mean > 0 ? output.green(mean) : month.mean < 0 ? output.red(mean) : mean
                lines.append("  \(month.month)  \(shown)  \(Output.count(month.entries, of: "entries"))")
            }
        }
        for (name, months) in stats.measuresPerMonth {
            guard let first = months.first, let last = months.last else { continue }
            let means = months.map(\.mean)
            let (lowest, highest) = (means.min() ?? 0, means.max() ?? 0)
            let shown = { (value: Double) in MeasureValue.number((value * 100).rounded() / 100).shown }
            lines += ["", output.bold(output.shown(name) + " per month") + "  \(first.month) … \(last.month), ▁ \(shown(lowest)) … █ \(shown(highest))"]
            for start in stride(from: 0, to: months.count, by: monthsPerLine) {
                lines.append("  " + output.green(TextChart.sparkline(Array(means[start..<min(start + monthsPerLine, means.count)]), lowest: lowest, highest: highest)))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A titled block of `YYYY-MM  count  bar` lines, the bars scaled to the largest count and
    /// the whole line within ``width``; nothing when there are no months.
    private static func monthBars(_ title: String, _ months: [(month: String, count: Int)], output: Output) -> [String] {
        guard let most = months.map(\.count).max() else { return [] }
        let digits = String(most).count
        let barWidth = width - (2 + 7 + 2 + digits + 2)
        return ["", output.bold(title)] + months.map { month in
            let count = String(repeating: " ", count: digits - String(month.count).count) + String(month.count)
            return "  \(month.month)  \(count)  " + output.green(TextChart.bar(month.count, of: most, width: barWidth))
        }
    }
}
