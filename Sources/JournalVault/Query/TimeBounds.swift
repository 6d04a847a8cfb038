import GRDB

/// `from`/`to` bounds over a timestamp column: a day compares the writer's local day, a moment
/// compares exactly, and `to` includes its whole day.
struct TimeBounds {
    let from: DateExpression?
    let to: DateExpression?

    /// The SQL of a row's local day from its timestamp and its writer's offset, for tables
    /// without a stored `local_day` column.
    static func localDay(millisColumn: String, offsetColumn: String) -> String {
        "date((\(millisColumn) / 1000) + \(offsetColumn), 'unixepoch')"
    }

    /// Conditions over `millisColumn` and the SQL expression `localDay`, matching ``arguments``.
    func clauses(millisColumn: String, localDay: String) -> [String] {
        var clauses: [String] = []
        switch from {
        case .day?: clauses.append("\(localDay) >= ?")
        case .instant?: clauses.append("\(millisColumn) >= ?")
        case nil: break
        }
        switch to {
        case .day?: clauses.append("\(localDay) <= ?")
        case .instant?: clauses.append("\(millisColumn) <= ?")
        case nil: break
        }
        return clauses
    }

    var arguments: StatementArguments {
        StatementArguments([from, to].compactMap { bound -> DatabaseValueConvertible? in
            switch bound {
            case .day(let day)?: day.description
            case .instant(let instant)?: instant.millis
            case nil: nil
            }
        })
    }
}
