// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv stats`: how much and how regularly you write.
struct Stats: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Entries, words, days written, the longest and current streak of days, and entries per month.")

    @OptionGroup var options: GlobalOptions

    @OptionGroup var range: EntryRange

    func execute() throws {
        let stats = try options.unlockedVault(access: .readOnly).stats(range.query(), today: Instant.now().localDay)
        if options.json {
            return options.output.printJSON(.object([
                ("entries", .integer(Int64(stats.entries))), ("words", .integer(Int64(stats.words))),
                ("days_written", .integer(Int64(stats.daysWritten))),
                ("first_day", stats.firstDay.map { .string($0.description) } ?? .null),
                ("last_day", stats.lastDay.map { .string($0.description) } ?? .null),
                ("longest_streak", .integer(Int64(stats.longestStreak))), ("current_streak", .integer(Int64(stats.currentStreak))),
                ("per_month", .object(stats.perMonth.map { ($0.month, .integer(Int64($0.entries))) })),
            ]))
        }
        func days(_ count: Int) -> String { "\(count) day\(count == 1 ? "" : "s")" }
        var lines = ["entries         \(stats.entries)", "words           \(stats.words)",
                     "days written    \(stats.daysWritten)" + (stats.firstDay.map { first in "  (\(first) … \(stats.lastDay ?? first))" } ?? ""),
                     "longest streak  \(days(stats.longestStreak))", "current streak  \(days(stats.currentStreak))"]
        if !stats.perMonth.isEmpty { lines += ["", "per month"] + stats.perMonth.map { "  \($0.month)  \($0.entries)" } }
        Console.out(lines.joined(separator: "\n"))
    }
}
