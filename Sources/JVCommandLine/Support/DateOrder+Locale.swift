// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

extension DateOrder {
    /// How jv reads a date in numbers (`5/11/2026`): the config file's `date_order`, else the
    /// locale's; with where it came from, said in messages.
    static var current: (order: DateOrder, origin: String) {
        if let config = try? Config.current, let configured = config.dateOrder {
            return (configured, "date_order in \(config.file) sets the order")
        }
        let environment = ProcessInfo.processInfo.environment
        // POSIX's precedence for the time locale: LC_ALL, then LC_TIME, then LANG.
        let locale = [environment["LC_ALL"], environment["LC_TIME"], environment["LANG"]].lazy.compactMap { $0 }.first { !$0.isEmpty } ?? "C"
        return (ofLocale(locale), "the order of the locale \(TerminalText.visible(locale)); date_order in the config file sets another")
    }

    /// The order people of `locale` (`en_US.UTF-8`, `de_DE`) write dates in numbers.
    ///
    /// The C and POSIX locales read month first: it is what their own date format (`%m/%d/%y`)
    /// writes, and what jrnl does in every locale (dateutil's default), so a jrnl user without a
    /// locale finds jrnl's reading. Month first is otherwise the United States' (and its
    /// territories') and the Philippines' habit; the languages that write the year first
    /// (Chinese, Japanese, Korean, Hungarian, Lithuanian, Mongolian) read year first; the rest
    /// of the world writes the day first. Where the guess is wrong, `date_order` says the order,
    /// and a date the order cannot read is refused, never read the other way.
    static func ofLocale(_ locale: String) -> DateOrder {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        if name == "C" || name == "POSIX" { return .mdy }
        let parts = name.split(separator: "_")
        let language = parts.first.map(String.init) ?? "", territory = parts.count > 1 ? String(parts[1]) : ""
        if monthFirstTerritories.contains(territory) { return .mdy }
        if yearFirstLanguages.contains(language) { return .ymd }
        return .dmy
    }

    private static let monthFirstTerritories: Set<String> = ["US", "PH", "PR", "GU", "VI", "AS", "MP", "UM"]
    private static let yearFirstLanguages: Set<String> = ["zh", "ja", "ko", "hu", "lt", "mn"]
}
