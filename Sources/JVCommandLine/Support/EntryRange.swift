// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `--from` and `--to` of the commands that sum up entries of a period (`tags`, `stats`).
struct EntryRange: ParsableArguments {
    @Option(help: "Only entries from this date on.")
    var from: String?

    @Option(help: "Only entries up to this date (inclusive).")
    var to: String?

    /// The query for the period; a reversed range is refused (64).
    func query() throws -> EntryQuery {
        var query = EntryQuery()
        (query.from, query.to) = try DateArgument.range(from: from, to: to)
        return query
    }
}
