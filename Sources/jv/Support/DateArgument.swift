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
