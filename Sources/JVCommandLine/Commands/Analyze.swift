// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv analyze`: run a local analyser over entries and keep what it finds.
struct Analyze: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Run a local analyser on entries and store its answers (see README, “Analyser protocol”).",
        discussion: """
            CMD runs through /bin/sh -c once per entry, gets the entry's JSON object on standard input \
            (never in a file) and must print one JSON object with sentiment, themes and/or entities, and \
            optionally nodes and relations for the knowledge graph (a Markdown code fence or prose \
            around the object is allowed). An entry whose analyser fails, \
            prints something invalid or runs past --timeout gets nothing stored; jv names it and exits 65. \
            An entry's earlier analysis by the same model is replaced, in the same transaction, unless \
            --keep is given.

            The protocol and an example analyser are in the README, installed as \
            /usr/share/doc/jv/README.md.gz and /usr/share/doc/jv/examples/analyser.py by the package \
            (under /usr/local by make install).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Entries to analyse (ids or prefixes).")
    var entries: [String] = []

    @Option(help: "Analyse entries from this date on.")
    var from: String?

    @Option(help: "Analyse entries up to this date (inclusive).")
    var to: String?

    @Option(help: "The analyser command.")
    var command: String

    @OptionGroup var model: ModelOptions

    /// `--replace` (the default) or `--keep`: a second run of the same model is a correction, not
    /// another opinion; `--keep` is for comparing runs (a changed prompt, another temperature).
    @Flag var earlier: EarlierAnalysis = .replace

    enum EarlierAnalysis: String, EnumerableFlag {
        case replace, keep

        static func help(for value: Self) -> ArgumentHelp? {
            switch value {
            case .replace: "Replace the entry's earlier analyses by the same model."
            case .keep: "Keep them and add another."
            }
        }
    }

    func validate() throws {
        guard !entries.isEmpty || from != nil || to != nil else {
            throw ValidationError("Name entries, or give --from and/or --to.")
        }
    }

    func execute() throws {
        var range = EntryQuery()
        (range.from, range.to) = try DateArgument.range(from: from, to: to)
        let journal = try options.unlockedVault()
        var ids = try entries.map(journal.resolveEntryID)
        if from != nil || to != nil { ids += try journal.entries(range).map(\.id) }
        let analyser = model.analyser(command: command)
        var stored: [Analysis] = []
        var failures = 0
        let progress = Progress("Analysing")
        for (done, id) in ids.enumerated() {
            progress.update(done, of: ids.count, unit: "entries")
            do {
                stored.append(try ModelOptions.confiningChildren {
                    try journal.analyse(entryID: id, with: analyser, replacingEarlier: earlier == .replace)
                })
            } catch let error as AnalyserError {
                failures += 1
                progress.finish()
                Console.error("Entry \(id.uuidString.lowercased()): \(error.description); nothing stored for it.")
            }
        }
        progress.finish()
        let output = options.output
        // The ids for scripts (--json); for a person, the count ('jv analysis list' shows them).
        if output.json {
            output.printJSON(.array(stored.map(\.json)))
        } else {
            Console.note("Analysed \(stored.count) of \(Output.count(ids.count, of: "entries")).")
        }
        if failures > 0 { throw ExitCode(ExitStatus.badData.rawValue) }
    }
}
