// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// The period of `jv digest`: exactly one of `--week`, `--month` and `--year`, and which one — by
/// its name (`2026-W48`, `2026-11`, `2026`), by a day in it, in any form `--from` takes
/// (`2026-11-25`, `yesterday`, `"last month"`), or `--ago N` periods before the current one.
struct DigestPeriodArguments: ParsableArguments {
    @Flag(help: "A week, Monday to Sunday (ISO 8601).")
    var week = false

    @Flag(help: "A calendar month.")
    var month = false

    @Flag(help: "A calendar year.")
    var year = false

    @Argument(help: ArgumentHelp("Which one: 2026-W48, 2026-11 or 2026, or a day in it (2026-11-25, yesterday); default: the current one.",
                                 valueName: "period"))
    var which: String?

    @Option(help: ArgumentHelp("The one N weeks, months or years before the current one (1: the last).", valueName: "N"))
    var ago: Int?

    /// The period asked for, `today` being the current one's day; a mistake is refused (64).
    func period(today: CivilDay) throws -> DigestPeriod {
        let kinds = [(week, DigestPeriod.Kind.week), (month, .month), (year, .year)].filter(\.0).map(\.1)
        guard kinds.count == 1, let kind = kinds.first else {
            throw CLIError.usage("Give exactly one of --week, --month and --year.")
        }
        let current = DigestPeriod(containing: today, kind: kind)
        switch (which, ago) {
        case (nil, nil):
            return current
        case (nil, let ago?):
            guard ago >= 0, let period = current.moved(by: -ago) else {
                throw CLIError.usage("--ago \(ago) is not a count of \(kind.rawValue)s back from this one that stays after the year 1.")
            }
            return period
        case (let which?, nil):
            if let period = DigestPeriod(named: which, kind: kind) { return period }
            let days = try DateArgument.days(which) ?? today...today
            let period = DigestPeriod(containing: days.lowerBound, kind: kind)
            guard period.days.contains(days.upperBound) else {
                throw CLIError.usage("'\(TerminalText.visible(which))' is not within one \(kind.rawValue); give one like \(current.name), or a day.")
            }
            return period
        case (.some, .some):
            throw CLIError.usage("Give a period or --ago, not both.")
        }
    }
}
