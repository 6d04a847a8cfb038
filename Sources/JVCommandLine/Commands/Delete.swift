// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv delete`: remove an entry for good.
struct Delete: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an entry (asks first on a terminal unless --yes).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The entry's id or id prefix.", completion: Completions.entryID)
    var id: String

    @Flag(name: [.long, .customShort("y")], help: "Do not ask.")
    var yes = false

    func execute() throws {
        let journal = try options.unlockedVault()
        let id = try journal.resolveEntryID(id)
        let entry = try journal.entry(id: id)
        try Confirmation.ask("Delete the entry of \(entry.localDay) “\(TerminalText.visible(entry.title))”?", unless: yes)
        try journal.deleteEntry(id: id)
        if options.json {
            options.output.printJSON(entry.json)
        } else {
            Console.note("Deleted \(id.uuidString.lowercased()).")
        }
    }
}
