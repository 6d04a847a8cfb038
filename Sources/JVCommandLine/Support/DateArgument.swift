// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// Date options (`--at`, `--from`, `--to`, `--on`), read in the user's time zone (`TZ`).
enum DateArgument {
    /// jrnl's convention: a date without a time means 09:00 that day.
    static let defaultSecondsOfDay = 9 * 3600

    /// A date in numbers (`5/11/2026`) is read in `DateOrder.current`; one that order cannot
    /// read is refused with the reason and where the order came from.
    static func parse(_ text: String?) throws -> DateExpression? {
        guard let text else { return nil }
        let (order, origin) = DateOrder.current
        // A Result, not do/catch: Swift 6.3 crashes compiling a `catch … where` of a typed throw.
        switch Result(catching: { () throws(DateExpressionError) in
            try DateExpression.parse(text, now: .now(), zone: .current, order: order)
        }) {
        case .success(let date):
            return date
        case .failure(let error) where error.misread != nil:
            throw CLIError.usage(String(error.description.dropLast()) + " (\(origin)).")
        case .failure(let error):
            throw error
        }
    }

    /// `--from` and `--to` together: a range whose start is after its end is refused (64)
    /// rather than answered with nothing. A run of days (`last month`) starts on its first
    /// day and ends with its last.
    static func range(from: String?, to: String?, options: (from: String, to: String) = ("--from", "--to"))
        throws -> (from: DateExpression?, to: DateExpression?) {
        let start = try parse(from), end = try parse(to)
        let reversed = switch (start, end) {
        case (.instant(let first)?, .instant(let last)?): first.millis > last.millis
        case (let first?, let last?): first.coveredDays.lowerBound > last.coveredDays.upperBound
        default: false
        }
        if reversed, let from, let to {
            throw CLIError.usage("\(options.from) \(TerminalText.visible(from)) is after \(options.to) \(TerminalText.visible(to)); give the earlier date first.")
        }
        return (start, end)
    }

    /// A moment for `--at`.
    static func instant(_ text: String?) throws -> Instant? {
        try single(text)?.instant(atSecondsOfDay: defaultSecondsOfDay, zone: .current)
    }

    /// The days of `--on`: one day, or a run of them (`--on 2026-11`, `--on "last week"`).
    static func days(_ text: String?) throws -> ClosedRange<CivilDay>? {
        try parse(text)?.coveredDays
    }

    /// A whole day (`--on-this-day`).
    static func day(_ text: String?) throws -> CivilDay? {
        try single(text)?.coveredDays.lowerBound
    }

    /// jrnl's leading date, unless `--at` gave one: "yesterday: Went for a walk" is dated
    /// yesterday (at 09:00) and reads "Went for a walk"; "Note to self: buy milk" stays whole.
    /// A star before the colon ("yesterday *: text") stars the entry, as in jrnl.
    static func leadingDate(of text: String) throws -> (at: Instant, text: String, starred: Bool)? {
        let (unmarked, starred) = JrnlStar.unmarkingDate(text)
        guard let (date, rest) = DateExpression.leadingDate(of: unmarked, now: .now(), zone: .current, order: DateOrder.current.order)
        else { return nil }
        return (date.instant(atSecondsOfDay: defaultSecondsOfDay, zone: .current), try ContentRules.validated(String(rest)), starred)
    }

    /// Whether the words before the text's first ': ' look like a date jv did not read
    /// ("next friday: text", "5/11/2026: text"): then the entry is dated now, and that is said.
    static func looksLikeAnUnreadDate(_ text: String) -> Bool {
        guard let colon = text.prefix(60).firstRange(of: ": ") else { return false }
        let words = text[..<colon.lowerBound].lowercased().split(separator: " ")
        guard (1...4).contains(words.count), !words.contains(where: { $0.contains(where: \.isNewline) }) else { return false }
        let isNumeric = { (word: Substring) in word.first?.isNumber == true }
        guard let first = words.first, datelikeWords.contains(String(first)) || ["next", "in", "an", "a", "last", "this"].contains(first)
                || isNumeric(first) && first.contains(where: { "/.".contains($0) }) else { return false }
        return words.contains { datelikeWords.contains(String($0)) || isNumeric($0) }
    }

    private static let datelikeWords: Set<String> = [
        "yesterday", "today", "tomorrow", "tonight", "ago", "morning", "afternoon", "evening", "night", "noon", "midnight",
        "hour", "hours", "minutes", "days", "weeks", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
    ]

    /// A day or a moment: a run of days is refused where one day is meant.
    private static func single(_ text: String?) throws -> DateExpression? {
        let date = try parse(text)
        if case .days? = date, let text {
            throw CLIError.usage("'\(TerminalText.visible(text))' names several days; give one day or a moment here.")
        }
        return date
    }
}
