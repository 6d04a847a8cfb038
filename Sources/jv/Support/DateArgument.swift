import Foundation
import JournalVault

/// Date options (`--at`, `--from`, `--to`, `--on`), read in the user's time zone (`TZ`).
enum DateArgument {
    /// jrnl's convention: a date without a time means 09:00 that day.
    static let defaultSecondsOfDay = 9 * 3600

    static func parse(_ text: String?) throws -> DateExpression? {
        guard let text else { return nil }
        return try DateExpression.parse(text, now: .now(), zone: .current)
    }

    /// `--from` and `--to` together: a range whose start is after its end is refused (64)
    /// rather than answered with nothing.
    static func range(from: String?, to: String?) throws -> (from: DateExpression?, to: DateExpression?) {
        let start = try parse(from), end = try parse(to)
        let reversed = switch (start, end) {
        case (.day(let first)?, .day(let last)?): first > last
        case (.day(let first)?, .instant(let last)?): first > last.localDay
        case (.instant(let first)?, .day(let last)?): first.localDay > last
        case (.instant(let first)?, .instant(let last)?): first.millis > last.millis
        default: false
        }
        if reversed, let from, let to {
            throw CLIError.usage("--from \(TerminalText.visible(from)) is after --to \(TerminalText.visible(to)); give the earlier date first.")
        }
        return (start, end)
    }

    /// A moment for `--at`.
    static func instant(_ text: String?) throws -> Instant? {
        try parse(text)?.instant(atSecondsOfDay: defaultSecondsOfDay, zone: .current)
    }

    /// A whole day for `--on`.
    static func day(_ text: String?) throws -> CivilDay? {
        switch try parse(text) {
        case .day(let day)?: day
        case .instant(let instant)?: instant.localDay
        case nil: nil
        }
    }
}
