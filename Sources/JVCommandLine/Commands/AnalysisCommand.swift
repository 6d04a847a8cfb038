// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv analysis …`: AI analysis records.
struct AnalysisCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analysis",
        abstract: "AI analyses of entries (sentiment, themes, entities).",
        subcommands: [AnalysisAdd.self, AnalysisList.self, AnalysisShow.self, AnalysisDelete.self])
}

struct AnalysisAdd: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Record an analysis of an entry; prints its id.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The entry (id or prefix).", completion: Completions.entryID)
    var entry: String

    @Option(help: "The model that made it.")
    var model: String

    @Option(help: "The sentiment found.")
    var sentiment: String?

    @Option(name: .customLong("theme"), help: "A theme found (repeatable).")
    var themes: [String] = []

    @Option(help: "Extracted entities as JSON, or @FILE to read them from a file.")
    var entities: String?

    @Option(help: "When it was processed (default: now).")
    var processedAt: String?

    func execute() throws {
        let processedAt = try DateArgument.instant(processedAt) ?? .now()
        let entities = try entities.map(Self.parseEntities) ?? .null
        let journal = try options.unlockedVault()
        let analysis = try journal.addAnalysis(Analysis(entryID: try journal.resolveEntryID(entry), model: model,
                                                        processedAt: processedAt, sentiment: sentiment, themes: themes,
                                                        entities: entities))
        options.output.printRecord(analysis.json, id: analysis.id)
    }

    private static func parseEntities(_ text: String) throws -> JSONValue {
        var bytes = Array(text.utf8)
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard let data = FileManager.default.contents(atPath: path) else { throw CLIError.inputNotFound("Cannot read \(path).") }
            bytes = Array(data)
        }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw CLIError.usage("--entities is not JSON: \(error.description).")
        }
    }
}

struct AnalysisList: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List analyses in the order they ran; --from/--to choose by the entry's day, --ran-from/--ran-to by the run's.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "Only analyses of this entry (id or prefix).")
    var entry: String?

    @Option(help: "Only analyses by this model.")
    var model: String?

    @Option(help: "Only analyses of entries from this date on (the entry's day, as jv list).")
    var from: String?

    @Option(help: "Only analyses of entries up to this date (inclusive).")
    var to: String?

    @Option(help: "Only analyses that ran from this date on.")
    var ranFrom: String?

    @Option(help: "Only analyses that ran up to this date (inclusive).")
    var ranTo: String?

    func execute() throws {
        var query = AnalysisQuery()
        query.model = model
        (query.entryFrom, query.entryTo) = try DateArgument.range(from: from, to: to)
        (query.from, query.to) = try DateArgument.range(from: ranFrom, to: ranTo, options: ("--ran-from", "--ran-to"))
        let journal = try options.unlockedVault(access: .readOnly)
        query.entryID = try entry.map(journal.resolveEntryID)
        let analyses = try journal.analyses(query)
        let output = options.output
        if output.json { return output.printJSON(.array(analyses.map(\.json))) }
        for analysis in analyses { Console.out(output.summary(analysis)) }
    }
}

struct AnalysisShow: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one analysis.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The analysis's id or prefix.")
    var id: String

    func execute() throws {
        let journal = try options.unlockedVault(access: .readOnly)
        let analysis = try journal.analysis(id: journal.resolveAnalysisID(id))
        let output = options.output
        if output.json { return output.printJSON(analysis.json) }
        Console.out(output.summary(analysis))
        if analysis.entities != .null { Console.out("entities: " + analysis.entities.serialized(pretty: true)) }
        Console.out(output.dim("id: \(analysis.id.uuidString.lowercased())  entry: \(analysis.entryID.uuidString.lowercased())"))
    }
}

extension Output {
    func summary(_ analysis: Analysis) -> String {
        let when = time(analysis.processedAt)
        var parts = ["\(bold(when))  \(dim(Output.shortID(analysis.id)))  \(shown(analysis.model))",
                     "entry \(Output.shortID(analysis.entryID))"]
        if let sentiment = analysis.sentiment { parts.append("sentiment: " + shown(sentiment)) }
        if !analysis.themes.isEmpty { parts.append("themes: " + shown(analysis.themes.joined(separator: ", "))) }
        return parts.joined(separator: "  ")
    }
}
