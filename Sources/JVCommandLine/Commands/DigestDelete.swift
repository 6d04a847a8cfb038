// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv digest delete`: remove one stored reflection for good.
struct DigestDelete: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a stored reflection (asks first on a terminal unless --yes).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The reflection's id or id prefix (jv digest shows it).")
    var id: String

    @Flag(name: [.long, .customShort("y")], help: "Do not ask.")
    var yes = false

    func execute() throws {
        let journal = try options.unlockedVault()
        let reflection = try journal.reflection(id: journal.resolveReflectionID(id))
        try Confirmation.ask("Delete the reflection by \(TerminalText.visible(reflection.model)) on the \(reflection.period.kind.rawValue) \(reflection.period.name)?",
                             unless: yes)
        try journal.deleteReflection(id: reflection.id)
        if options.json {
            options.output.printJSON(reflection.json)
        } else {
            Console.note("Deleted \(reflection.id.storageText).")
        }
    }
}
