// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// A session length as typed after `jv unlock --for`: a number and a unit, `90s`, `15m`, `2h`,
/// or several (`1h30m`); from one second to ``SessionAgent/longestLifetime`` (8 hours).
///
/// ```swift
/// SessionLength(argument: "1h30m")?.seconds   // 5400
/// ```
struct SessionLength: ExpressibleByArgument {
    let seconds: Int

    static let standard = SessionLength(seconds: 15 * 60)

    init(seconds: Int) { self.seconds = seconds }

    init?(argument: String) {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
        var total = 0
        var number: Int?
        for character in argument.lowercased() {
            if let digit = character.wholeNumberValue, character.isASCII {
                number = (number ?? 0) * 10 + digit
                guard number! <= 1_000_000 else { return nil }
            } else if let unit = units[character], let value = number {
                total += value * unit
                number = nil
            } else {
                return nil
            }
        }
        guard number == nil, total >= 1, total <= Int(SessionAgent.longestLifetime) else { return nil }
        seconds = total
    }

    static var defaultCompletionKind: CompletionKind { .list(["5m", "15m", "1h", "8h"]) }

    /// "15 minutes", "1 hour 30 minutes", "45 seconds".
    var spoken: String {
        let parts = [(seconds / 3600, "hour"), (seconds % 3600 / 60, "minute"), (seconds % 60, "second")]
        return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: " ")
    }
}
