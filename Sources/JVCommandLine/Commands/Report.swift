// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv report`: a year (or any period) of the journal as one self-contained HTML page.
struct Report: VaultCommand, ReplacingWithForce {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "A year (or --from/--to) in pictures: one self-contained HTML file of charts, starred entries and photos.",
        discussion: """
            The page holds a calendar heat map, words and entries per month, entries per week, sentiment per month \
            (as 'jv stats' gives it), the most used tags and the people of the knowledge graph per month, the \
            entries of the same day in earlier years (today's when the period holds today, else the period's last \
            day), the starred entries in full and the photos' thumbnails. It is one file that fetches nothing and \
            runs no script. It holds decrypted journal text: --output files are created 0600 and never replace an \
            existing file without --force; '--output -' writes to standard output. --json prints the numbers instead.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("The calendar year to report on (default: this year).", valueName: "YYYY"))
    var year: String?

    @OptionGroup var range: EntryRange

    @Option(name: [.short, .long], help: ArgumentHelp("Write the page to this file ('-': standard output).", valueName: "path"),
            completion: .file())
    var output: String?

    @Flag(help: "Replace --output if it exists.")
    var force = false

    func execute() throws {
        let today = Instant.now().localDay
        let period = try self.period(today: today)
        let file = output == "-" ? nil : output
        if options.json {
            guard output == nil else { throw CLIError.usage("--json prints the report's numbers to standard output: leave out --output.") }
        } else {
            guard output != nil else { throw CLIError.usage("Give --output FILE for the page (or '--output -' for standard output).") }
            if let file { try OutputFile.check(file, replace: force) }
        }
        let journal = try options.unlockedVault(access: .readOnly)
        let report = try journal.report(of: period, today: today)
        if options.json { return options.output.printJSON(Self.json(report)) }
        let page = ReportHTML.page(report)
        if let file {
            try PrivateOutput.write(to: file, replace: force) { put in try Array(page.utf8).withUnsafeBytes(put) }
        } else {
            if Console.stdoutIsTerminal { Console.warnOfDecryptedTextOnTerminal() }
            try StandardOutput.with { try $0.write(Console.stdoutIsTerminal ? TerminalText.visible(page) : page) }
        }
    }

    /// The days reported on: --year's, else --from (to today without --to) … --to, else this year.
    func period(today: CivilDay) throws -> ClosedRange<CivilDay> {
        if let year {
            guard range.from == nil, range.to == nil else { throw CLIError.usage("Give --year or --from/--to, not both.") }
            guard (1...4).contains(year.count), year.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(year),
                  let first = CivilDay(year: number, month: 1, day: 1), let last = CivilDay(year: number, month: 12, day: 31) else {
                throw CLIError.usage("--year \(TerminalText.visible(year)) is not a year: give one from 1 to 9999, such as 2026.")
            }
            return first...last
        }
        let (from, to) = try DateArgument.range(from: range.from, to: range.to)
        guard let from else {
            guard to == nil else { throw CLIError.usage("--to needs --from: give the period's first day too.") }
            return CivilDay(year: today.year, month: 1, day: 1)!...CivilDay(year: today.year, month: 12, day: 31)!
        }
        let first = from.coveredDays.lowerBound, last = to?.coveredDays.upperBound ?? today
        guard first <= last else {
            throw CLIError.usage("--from \(TerminalText.visible(range.from ?? "")) is after today; give --to too, or an earlier --from.")
        }
        // A heat map of every day: centuries of them would be a page of megabytes nobody reads.
        guard last.year - first.year < Self.longestPeriod else {
            throw CLIError.usage("A report covers at most \(Self.longestPeriod) years: give a later --from or an earlier --to.")
        }
        return first...last
    }

    /// The most calendar years a report covers.
    static let longestPeriod = 100

    /// `{from, to, stats: <jv stats --json>, days: {YYYY-MM-DD: {entries, words}}, tags_per_month and
    /// people_per_month: {YYYY-MM: [{name, count}]}, starred, on_this_day: {day, entries}, photos}`.
    static func json(_ report: YearReport) -> JSONValue {
        func top(_ counts: NameCounts) -> JSONValue {
            .object(counts.months.indices.compactMap { index in
                let top = counts.top(ReportHTML.topPerMonth, inMonth: index)
                return top.isEmpty ? nil : (counts.months[index], .array(top.map {
                    .object([("name", .string($0.name)), ("count", .integer(Int64($0.count)))])
                }))
            })
        }
        return .object([
            ("from", .string(report.period.lowerBound.description)), ("to", .string(report.period.upperBound.description)),
            ("stats", Stats.json(report.stats)),
            ("days", .object(report.days.sorted { $0.key < $1.key }.map {
                ($0.key.description, .object([("entries", .integer(Int64($0.value.entries))), ("words", .integer(Int64($0.value.words)))]))
            })),
            ("tags_per_month", top(report.tags)), ("people_per_month", top(report.people)),
            ("starred", .integer(Int64(report.starred.count + report.starredLeftOut))),
            ("on_this_day", .object([("day", .string(report.onThisDayReference.description)),
                                     ("entries", .integer(Int64(report.onThisDay.count)))])),
            ("photos", .integer(Int64(report.photos.count))),
        ])
    }
}
