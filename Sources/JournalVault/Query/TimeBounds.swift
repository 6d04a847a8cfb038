// SPDX-License-Identifier: Apache-2.0
import GRDB

/// `from`/`to` bounds over a timestamp column: a day compares the writer's local day, a moment
/// compares exactly, and `to` includes its whole day (a run of days: from its first, to its last).
struct TimeBounds {
    let from: DateExpression?
    let to: DateExpression?

    /// The SQL of a row's local day from its timestamp and its writer's offset, for tables
    /// without a stored `local_day` column.
    static func localDay(millisColumn: String, offsetColumn: String) -> String {
        "date((\(millisColumn) / 1000) + \(offsetColumn), 'unixepoch')"
    }

    /// Conditions over `millisColumn` and the SQL expression `localDay`, matching ``arguments``.
    ///
    /// A day bound also bounds the moment, with the widest UTC offset as margin: the condition
    /// is the same, but SQLite can then walk the time index in order instead of collecting and
    /// sorting every row of the range (a month of entries is megabytes of ciphertext).
    func clauses(millisColumn: String, localDay: String) -> [String] {
        terms.map { term in
            switch term {
            case .dayFrom: "\(localDay) >= ?"
            case .dayTo: "\(localDay) <= ?"
            case .millisFrom: "\(millisColumn) >= ?"
            case .millisTo: "\(millisColumn) <= ?"
            }
        }
    }

    /// Whether `instant` is within the bounds: the conditions of ``clauses(millisColumn:localDay:)``
    /// decided in Swift, for records found without SQL (search hits).
    func includes(_ instant: Instant) -> Bool {
        terms.allSatisfy { term in
            switch term {
            case .dayFrom(let day): instant.localDay >= day
            case .dayTo(let day): instant.localDay <= day
            case .millisFrom(let millis): instant.millis >= millis
            case .millisTo(let millis): instant.millis <= millis
            }
        }
    }

    var arguments: StatementArguments {
        StatementArguments(terms.map { term -> DatabaseValueConvertible in
            switch term {
            case .dayFrom(let day), .dayTo(let day): day.description
            case .millisFrom(let millis), .millisTo(let millis): millis
            }
        })
    }

    private enum Term {
        case dayFrom(CivilDay), dayTo(CivilDay), millisFrom(Int64), millisTo(Int64)
    }

    private var terms: [Term] {
        let dayMillis: Int64 = 86_400_000
        let widestOffset = Int64(Instant.offsetRange.upperBound) * 1000
        var terms: [Term] = []
        // A run of days (a month, a week) starts on its first day and ends with its last.
        switch from {
        case .instant(let instant)?: terms.append(.millisFrom(instant.millis))
        case let bound?:
            let day = bound.coveredDays.lowerBound
            terms += [.dayFrom(day), .millisFrom(Int64(day.daysSinceEpoch) * dayMillis - widestOffset)]
        case nil: break
        }
        switch to {
        case .instant(let instant)?: terms.append(.millisTo(instant.millis))
        case let bound?:
            let day = bound.coveredDays.upperBound
            terms += [.dayTo(day), .millisTo(Int64(day.daysSinceEpoch + 1) * dayMillis + widestOffset)]
        case nil: break
        }
        return terms
    }
}
