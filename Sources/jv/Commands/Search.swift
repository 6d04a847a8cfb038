import ArgumentParser
import JournalVault

/// `jv search`: find text in decrypted records.
struct Search: VaultCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search the decrypted text (case- and accent-insensitive).")

    /// What to search. Chats and analyses join with their records.
    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case entry
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The text to find.")
    var query: String

    @Option(help: "Only records from this date on.")
    var from: String?

    @Option(help: "Only records up to this date (inclusive).")
    var to: String?

    @Option(help: "What to search.")
    var kind: Kind = .entry

    func execute() throws {
        var range = EntryQuery()
        range.from = try DateArgument.parse(from)
        range.to = try DateArgument.parse(to)
        let entries = try options.unlockedVault().searchEntries(query, in: range)
        try options.output.printEntries(entries, format: .text)
    }
}
