import ArgumentParser
import JournalVault

/// `jv add`: write a new entry.
struct Add: VaultCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add an entry from the arguments, else standard input, else $EDITOR; prints its id.",
        discussion: "Inline @tags and #tags in the text are tags too. Leading and trailing white space is removed.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "When it was written (default: now). A date alone means 09:00 that day.")
    var at: String?

    @Flag(help: "Star the entry.")
    var star = false

    @Option(name: .customLong("tag"), help: "A tag to add (repeatable).")
    var tags: [String] = []

    @Argument(help: "The entry text (else standard input, else the editor).")
    var text: [String] = []

    func execute() throws {
        let at = try DateArgument.instant(at)
        let tags = try ContentRules.tags(tags)
        let given = try EntryText.given(arguments: text)
        let journal = try options.unlockedVault()
        guard let content = try given ?? EntryText.fromEditor() else {
            throw CLIError.cancelled("Nothing written; no entry was added.")
        }
        let entry = try journal.addEntry(content, at: at, starred: star, tags: tags)
        options.output.printRecord(entry.json, id: entry.id)
    }
}
