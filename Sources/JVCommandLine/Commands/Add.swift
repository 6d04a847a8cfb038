// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv add`: write a new entry.
struct Add: VaultCommand, TakesFreeText {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an entry from the arguments, else standard input, else $EDITOR; prints its id.",
        discussion: """
            Inline @tags and #tags in the text are tags too. Leading and trailing white space is removed. \
            Without --at, text that starts with a date and ': ' is dated by it, as in jrnl: \
            'yesterday: Went for a walk', '2026-11-05 21:00: Dinner with Anna'. As in jrnl, a star \
            before that colon ('yesterday *: text') or at the start or end of the first line ('*text', \
            'text*') stars the entry, and is not kept in the text.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "When it was written (default: now, or the text's leading date). A date alone means 09:00 that day.")
    var at: String?

    @Flag(help: "Star the entry.")
    var star = false

    @Option(name: .customLong("tag"), help: "A tag to add (repeatable).", completion: Completions.tag)
    var tags: [String] = []

    @Option(name: .customLong("field"), help: ArgumentHelp("A measure to record with the entry: a number, yes/no or a short text (repeatable).",
                                                         valueName: "name=value"))
    var fields: [String] = []

    @Option(help: ArgumentHelp("Start from the template $XDG_CONFIG_HOME/jv/templates/NAME.md: the editor opens on it, "
                               + "and text given on the command line or standard input follows it.", valueName: "name"),
            completion: Completions.template)
    var template: String?

    @Option(name: .customLong("attach"), help: ArgumentHelp("A file to attach (repeatable); the entry and its files are added together or not at all.",
                                                          valueName: "file"), completion: .file())
    var attachments: [String] = []

    @Argument(help: "The entry text (else standard input, else the editor).")
    var text: [String] = []

    func execute() throws {
        var at = try DateArgument.instant(at)
        let tags = try ContentRules.tags(tags)
        let measures = try Measures.assignments(fields)
        let templateText = try template.map(Templates.text(named:))
        let given = try EntryText.given(arguments: text).map { given in
            try templateText.map { try ContentRules.validated($0 + ($0.hasSuffix("\n") ? "\n" : "\n\n") + given) } ?? given
        }
        // Standard input may be the entry's text; the files are named ones.
        let files = try AttachmentFiles.inputs(attachments.map { $0 == "-" ? "./-" : $0 }, stdinName: nil)
        let limit = try AttachmentFiles.limit()
        let journal = try options.unlockedVault()
        // From a template, the entry is added only if the editor changed it.
        guard var content = try given ?? EntryText.fromEditor(editing: templateText ?? "") else {
            throw CLIError.cancelled("Nothing written; no entry was added.")
        }
        // As in jrnl, text from the editor or standard input may start with its date too.
        var starred = star
        if at == nil, let dated = try DateArgument.leadingDate(of: content) {
            (at, content, starred) = (dated.at, dated.text, starred || dated.starred)
        } else if at == nil, DateArgument.looksLikeAnUnreadDate(content) {
            Console.note("The text starts with what looks like a date jv does not read, so the entry is dated now; --at DATE dates it.")
        }
        // jrnl's star marks: '*text' and 'text*' star the entry too.
        let marked = JrnlStar.read(content)
        (content, starred) = (marked.text, starred || marked.starred)
        guard !files.isEmpty else {
            let entry = try journal.addEntry(content, at: at, starred: starred, tags: tags, measures: measures)
            return options.output.printRecord(entry.json.adding(measures: measures), id: entry.id)
        }
        let (entry, attached) = try journal.addEntry(content, at: at, starred: starred, tags: tags, measures: measures, attaching: files, limit: limit)
        options.output.printRecord(entry.json.adding(measures: measures).adding(attachments: attached), id: entry.id)
    }
}
