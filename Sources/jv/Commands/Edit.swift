import ArgumentParser
import JournalVault

/// `jv edit`: change an entry's text, date or star.
struct Edit: VaultCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit an entry: new text from standard input, else $EDITOR on the current text.",
        discussion: """
            With only --at, --star, --unstar, --tag or --untag on a terminal, the text is left as it is. \
            From a pipe, empty input with one of those options also keeps the text.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The entry's id or id prefix.")
    var id: String

    @Option(help: "Move the entry to this date (a date alone means 09:00).")
    var at: String?

    @Flag(help: "Star it.")
    var star = false

    @Flag(help: "Unstar it.")
    var unstar = false

    @Option(name: .customLong("tag"), help: "Add this explicit tag (repeatable).")
    var tags: [String] = []

    @Option(name: .customLong("untag"), help: "Remove this explicit tag (repeatable); a tag written in the text stays.")
    var untags: [String] = []

    func validate() throws {
        if star && unstar { throw ValidationError("--star and --unstar cannot be used together.") }
    }

    func execute() throws {
        let at = try DateArgument.instant(at)
        let starred: Bool? = star ? true : unstar ? false : nil
        let changesMetadata = at != nil || starred != nil || !tags.isEmpty || !untags.isEmpty
        var piped: String?
        if !Console.stdinIsTerminal {
            let input = Console.readStandardInput()
            if !(changesMetadata && ContentRules.isBlank(utf8: input)) { piped = try ContentRules.text(fromUTF8: input) }
        }
        let journal = try options.unlockedVault()
        let id = try journal.resolveEntryID(id)
        var content = piped
        if Console.stdinIsTerminal && !changesMetadata {
            content = try EntryText.fromEditor(editing: journal.entry(id: id).content)
            if content == nil { Console.note("No changes."); return }
        }
        let entry = try journal.updateEntry(id: id, content: content, created: at, starred: starred, addingTags: tags, removingTags: untags)
        options.output.printRecord(entry.json, id: entry.id)
    }
}
