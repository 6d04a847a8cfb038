// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv analysis delete`: remove one analysis for good (the graph it fed stays).
struct AnalysisDelete: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an analysis (asks first on a terminal unless --yes); the nodes and relations it added stay.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The analysis's id or id prefix.")
    var id: String

    @Flag(name: [.long, .customShort("y")], help: "Do not ask.")
    var yes = false

    func execute() throws {
        let journal = try options.unlockedVault()
        let analysis = try journal.analysis(id: journal.resolveAnalysisID(id))
        let entry = try journal.entry(id: analysis.entryID)
        try Confirmation.ask("Delete the analysis by \(TerminalText.visible(analysis.model)) of the entry of \(entry.localDay) “\(TerminalText.visible(entry.title))”?",
                             unless: yes)
        try journal.deleteAnalysis(id: analysis.id)
        if options.json {
            options.output.printJSON(analysis.json)
        } else {
            Console.note("Deleted \(analysis.id.storageText).")
        }
    }
}
