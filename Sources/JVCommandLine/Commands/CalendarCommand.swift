// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv calendar`: entry counts per day, without the passphrase; or a numeric measure's daily mean.
struct CalendarCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "A month grid (or a year heat map) of entries per day (no passphrase needed), or of a field's daily mean.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "A year or a month: 2026, 2026-11, 'nov 2026', 'last month', 'this year' (default: this month).")
    var period: String?

    @Option(help: ArgumentHelp("Shade each day by this numeric field's mean that day (jv add --field) instead of its number of entries; "
                               + "this needs the passphrase.", valueName: "field"))
    var by: String?

    func execute() throws {
        let (year, month) = try parsePeriod()
        if let by {
            let means = try options.unlockedVault(access: .readOnly).measureCalendar(by, year: year, month: month)
            if options.json { return options.output.printJSON(means.json) }
            let shades = MeanShades(means)
            return Console.out(month != nil ? monthGrid(means.counts, mark: shades.mark, summary: shades.summary)
                                            : yearHeatMap(means.counts, shade: shades.shade, legend: shades.legend + "    " + shades.summary))
        }
        let counts = try options.openVault(access: .readOnly).calendar(year: year, month: month)
        if options.json {
            options.output.printJSON(counts.json)
        } else if month != nil {
            Console.out(monthGrid(counts, mark: { counts.days[$0].map(Self.superscript) }, summary: Self.summary(counts)))
        } else {
            Console.out(yearHeatMap(counts, shade: { Self.shade(counts.days[$0] ?? 0) }, legend: "· none  ░ 1  ▒ 2  ▓ 3–4  █ 5+    " + Self.summary(counts)))
        }
    }

    /// A field's daily means as shades: ░ ▒ ▓ █ for the quarters from the lowest day's mean to
    /// the highest's, · for a day without a value.
    private struct MeanShades {
        let calendar: MeasureCalendar
        let lowest: Double, highest: Double

        init(_ calendar: MeasureCalendar) {
            self.calendar = calendar
            let means = calendar.days.values.map(\.mean)
            (lowest, highest) = (means.min() ?? 0, means.max() ?? 0)
        }

        private static let levels = ["░", "▒", "▓", "█"]

        func shade(_ day: CivilDay) -> String {
            guard let mean = calendar.days[day]?.mean else { return "·" }
            guard highest > lowest else { return Self.levels[3] }
            return Self.levels[min(3, Int((mean - lowest) / (highest - lowest) * 4))]
        }

        func mark(_ day: CivilDay) -> String? { calendar.days[day] == nil ? nil : shade(day) }

        private static func number(_ value: Double) -> String { MeasureValue.number((value * 100).rounded() / 100).shown }

        var legend: String {
            calendar.days.isEmpty ? "· none" : "· none  ░ \(Self.number(lowest)) … █ \(Self.number(highest))"
        }

        var summary: String {
            let days = calendar.days.count
            return "\(calendar.name): a value on \(days) \(days == 1 ? "day" : "days")"
        }
    }

    private func parsePeriod() throws -> (Int, Int?) {
        guard let period else {
            let today = Instant.now().localDay
            return (today.year, today.month)
        }
        // Any date naming a whole year or month (2026, 'nov 2026', 'last month'); a day or a week is not a period.
        guard case .days(let days)? = try? DateArgument.parse(period), let yearAndMonth = Self.yearOrMonth(days) else {
            throw CLIError.usage("'\(period)' is not a period: give a year or a month (2026, 2026-11, 'last month').")
        }
        return yearAndMonth
    }

    /// The year, and the month unless `days` is the whole year; nil when `days` is neither.
    private static func yearOrMonth(_ days: ClosedRange<CivilDay>) -> (Int, Int?)? {
        let (first, last) = (days.lowerBound, days.upperBound)
        guard first.day == 1, first.year == last.year, last.adding(days: 1).day == 1 else { return nil }
        if first.month == 1, last.month == 12 { return (first.year, nil) }
        return first.month == last.month ? (first.year, first.month) : nil
    }

    private static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                                     "August", "September", "October", "November", "December"]

    /// Like cal(1), Monday first; a day `mark` gives a mark to (the number of its entries as a
    /// superscript, or its shade) is bold and carries it.
    private func monthGrid(_ counts: CalendarCounts, mark: (CivilDay) -> String?, summary: String) -> String {
        let output = options.output
        let title = "\(Self.monthNames[counts.range.lowerBound.month - 1]) \(counts.year)"
        var lines = [String(repeating: " ", count: max(0, (35 - title.count) / 2)) + title,
                     ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].map { " " + $0 + "  " }.joined()]
        var line = String(repeating: "     ", count: counts.range.lowerBound.isoWeekday - 1)
        var day = counts.range.lowerBound
        while day <= counts.range.upperBound {
            let number = day.day < 10 ? " \(day.day)" : "\(day.day)"
            let mark = mark(day) ?? ""
            line += " " + (mark.isEmpty ? number : output.bold(output.green(number))) + mark
                + String(repeating: " ", count: max(0, 2 - mark.count))
            if day.isoWeekday == 7 {
                lines.append(line)
                line = ""
            }
            day = day.adding(days: 1)
        }
        if !line.isEmpty { lines.append(line) }
        lines.append("")
        lines.append(summary)
        return lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// One row per month, one cell per day, shaded by `shade` (by entries: · none, ░ 1, ▒ 2,
    /// ▓ 3–4, █ 5 or more); `legend` under it.
    private func yearHeatMap(_ counts: CalendarCounts, shade: (CivilDay) -> String, legend: String) -> String {
        let margin = 6
        var ruler = Array(repeating: Character(" "), count: margin + 31)
        for day in [1, 5, 10, 15, 20, 25, 30] {
            for (offset, digit) in String(day).enumerated() { ruler[margin + day - 1 + offset] = digit }
        }
        var lines = [String(counts.year), String(ruler)]
        for month in 1...12 {
            var row = String(Self.monthNames[month - 1].prefix(3)).padding(toLength: margin, withPad: " ", startingAt: 0)
            for dayNumber in 1...CivilDay.daysIn(month: month, year: counts.year) {
                row += CivilDay(year: counts.year, month: month, day: dayNumber).map(shade) ?? "·"
            }
            lines.append(row)
        }
        lines.append("")
        lines.append(legend)
        return lines.joined(separator: "\n")
    }

    private static func summary(_ counts: CalendarCounts) -> String {
        let total = counts.days.values.reduce(0, +)
        return "\(total) \(total == 1 ? "entry" : "entries") on \(counts.days.count) \(counts.days.count == 1 ? "day" : "days")"
    }

    private static func shade(_ count: Int) -> String {
        switch count {
        case 0: "·"
        case 1: "░"
        case 2: "▒"
        case 3...4: "▓"
        default: "█"
        }
    }

    private static func superscript(_ count: Int) -> String {
        let digits: [Character] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"]
        return String(String(count).compactMap { $0.wholeNumberValue.map { digits[$0] } })
    }
}
