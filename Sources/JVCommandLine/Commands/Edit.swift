// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv edit`: change an entry's text, date or star; or several entries together in the editor.
struct Edit: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit an entry: new text from standard input, else $EDITOR on the current text; or its fields. "
            + "Without an id, edit the entries --from, --to, --on and --tag choose together in $EDITOR.",
        discussion: """
            With only --at, --star, --unstar, --tag, --untag, --field or --unfield on a terminal, the text is left as it is. \
            A change of fields alone leaves the entry's time of change as it is. \
            From a pipe, empty input with one of those options also keeps the text.

            Several entries open as jrnl text, each under a header '[YYYY-MM-DD HH:MM] {jv:1a2b3c4d} Title': \
            change a text or a date, remove an entry (header and text) to delete it, add a header without \
            a marker to add an entry. Everything is saved in one transaction, or nothing. Deleting asks \
            first on a terminal (--yes does not) and is refused without one unless --yes.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The entry's id or id prefix (none: edit the entries chosen by --from, --to, --on and --tag).", completion: Completions.entryID)
    var id: String?

    @OptionGroup var range: EntryRange

    @Option(help: "Without an id: the entries of this day.")
    var on: String?

    @Option(help: "Move the entry to this date (a date alone means 09:00).")
    var at: String?

    @Flag(help: "Star it.")
    var star = false

    @Flag(help: "Unstar it.")
    var unstar = false

    @Option(name: .customLong("tag"), help: "Add this explicit tag (repeatable); without an id: only entries with this tag.", completion: Completions.tag)
    var tags: [String] = []

    @Option(name: .customLong("untag"), help: "Remove this explicit tag (repeatable); a tag written in the text stays.", completion: Completions.tag)
    var untags: [String] = []

    @Option(name: .customLong("field"), help: ArgumentHelp("Set this measure: a number, yes/no or a short text (repeatable).", valueName: "name=value"))
    var fields: [String] = []

    @Option(name: .customLong("unfield"), help: ArgumentHelp("Remove this field (repeatable).", valueName: "name"))
    var unfields: [String] = []

    @Flag(name: [.long, .customShort("y")], help: "Without an id: delete the entries removed from the text without asking.")
    var yes = false

    func validate() throws {
        if star && unstar { throw ValidationError("--star and --unstar cannot be used together.") }
        if id != nil {
            if range.from != nil || range.to != nil || on != nil || yes {
                throw ValidationError("--from, --to, --on and --yes choose entries to edit together: give them without an id.")
            }
        } else {
            if at != nil || star || unstar || !untags.isEmpty || !fields.isEmpty || !unfields.isEmpty {
                throw ValidationError("--at, --star, --unstar, --untag, --field and --unfield change one entry: give its id.")
            }
            if range.from == nil && range.to == nil && on == nil && tags.isEmpty {
                throw ValidationError("Give an entry's id, or choose entries to edit together with --from, --to, --on or --tag.")
            }
        }
    }

    func execute() throws {
        guard let id else { return try editTogether() }
        let at = try DateArgument.instant(at)
        let starred: Bool? = star ? true : unstar ? false : nil
        let measures = try Measures.assignments(fields)
        let unfielded = try unfields.map(Measures.normalizedName)
        if let both = unfielded.first(where: { measures[$0] != nil }) {
            throw CLIError.usage("--field and --unfield both name '\(both)': give one of them.")
        }
        let changesMetadata = at != nil || starred != nil || !tags.isEmpty || !untags.isEmpty || !measures.isEmpty || !unfielded.isEmpty
        var piped: String?
        if !Console.stdinIsTerminal {
            let input = Console.readStandardInput()
            if !(changesMetadata && ContentRules.isBlank(utf8: input)) { piped = try ContentRules.text(fromUTF8: input) }
        }
        let journal = try options.unlockedVault()
        let entryID = try journal.resolveEntryID(id)
        var content = piped
        if Console.stdinIsTerminal && !changesMetadata {
            content = try EntryText.fromEditor(editing: journal.entry(id: entryID).content)
            if content == nil { Console.note("No changes."); return }
        }
        if !untags.isEmpty, content == nil {
            let current = try journal.entry(id: entryID)
            let wanted = try ContentRules.tags(untags)
            let kept = wanted.filter { !current.explicitTags.contains($0) }
            for tag in kept {
                let shown = TerminalText.visible(tag)
                Console.note(current.tags.contains(tag) ? "'\(shown)' is written in the text, so it stays a tag; edit the text to remove it."
                                                        : "The entry has no tag '\(shown)'.")
            }
            // Nothing to change: the entry, and its time of change, stay as they are.
            if kept.count == wanted.count, at == nil, starred == nil, tags.isEmpty, measures.isEmpty, unfielded.isEmpty {
                return options.output.printRecord(current.json.adding(measures: try journal.measures(of: entryID)), id: current.id)
            }
        }
        if !unfielded.isEmpty {
            let current = try journal.measures(of: entryID)
            let missing = unfielded.filter { current[$0] == nil }
            for name in missing { Console.note("The entry has no field '\(TerminalText.visible(name))'.") }
            // Nothing to change: nothing is written.
            if missing.count == unfielded.count, measures.isEmpty, content == nil, at == nil, starred == nil, tags.isEmpty, untags.isEmpty {
                return options.output.printRecord(try journal.entry(id: entryID).json.adding(measures: current), id: entryID)
            }
        }
        let entry = try journal.updateEntry(id: entryID, content: content, created: at, starred: starred, addingTags: tags, removingTags: untags,
                                            settingMeasures: measures, removingMeasures: unfielded)
        options.output.printRecord(entry.json.adding(measures: try journal.measures(of: entryID)), id: entry.id)
    }

    /// The chosen entries in the editor as jrnl text; what comes back is saved in one
    /// transaction (``EntryBatchEdit``), deletions once confirmed.
    private func editTogether() throws {
        var query = try range.query()
        query.on = try DateArgument.days(on)
        query.tags = try ContentRules.tags(tags)
        let journal = try options.unlockedVault()
        let batch = try EntryBatchEdit(journal.entries(query))
        guard !batch.entries.isEmpty else {
            Console.note("No entries match; nothing to edit.")
            return printSummary(EntryChanges())
        }
        // Text that cannot be read as entries is offered for editing again, not thrown away.
        let changes = try Editor.edit(batch.text) { saved in
            guard let edited = String(validating: saved, as: UTF8.self) else { throw VaultError.invalidUTF8 }
            return try batch.changes(in: edited, zone: .current)
        }
        guard !changes.isEmpty else {
            Console.note("No changes.")
            return printSummary(changes)
        }
        if !changes.deleted.isEmpty {
            let count = Output.count(changes.deleted.count, of: "entries")
            let ids = changes.deleted.prefix(10).map(Output.shortID).joined(separator: ", ") + (changes.deleted.count > 10 ? ", …" : "")
            try Confirmation.ask("Saving deletes \(count) removed from the text (\(ids)). Save?", unless: yes,
                                 declined: "Nothing was changed.",
                                 withoutTerminal: "Saving would delete \(count) and there is no terminal to ask on; "
                                     + "add --yes to delete \(changes.deleted.count == 1 ? "it" : "them") (nothing was changed).")
        }
        try journal.applyEntryChanges(changes)
        printSummary(changes)
    }

    /// `N changed, M added, K deleted` on standard error, or with `--json` the counts and ids on
    /// standard output.
    private func printSummary(_ changes: EntryChanges) {
        let groups: [(String, [UUID])] = [("changed", changes.updated.map(\.id)), ("added", changes.added.map(\.id)), ("deleted", changes.deleted)]
        if options.json {
            options.output.printJSON(.object(groups.map { ($0.0, .integer(Int64($0.1.count))) }
                                             + groups.map { ($0.0 + "_ids", .strings($0.1.map { $0.uuidString.lowercased() })) }))
        } else if !changes.isEmpty {
            Console.note(groups.map { "\($0.1.count) \($0.0)" }.joined(separator: ", ") + ".")
        }
    }
}
