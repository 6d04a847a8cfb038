// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv digest [show] --week|--month|--year [PERIOD]`: print a period's digest and its stored
/// reflections, or, with `--command`, have a local model write one and store it.
struct DigestShow: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a period's digest and the reflections stored for it; with --command, ask for a new one (the default).",
        discussion: """
            The digest is the period's counts (entries, words, days written), tags, the sentiments, themes \
            and people that analyses found in its entries, then every entry by day. With --command, CMD \
            runs through /bin/sh -c as `jv chat ask` runs it, and gets one JSON object on standard input \
            (never in a file): {"model", "messages": [{"role": "system", "content": the request}, {"role": \
            "user", "content": the digest}], "entries": []}. It prints the reflection: plain text, or a JSON \
            object with "content" and optionally "model" (examples/ollama-chat.sh does). The reflection is \
            stored, encrypted, as the period's reflection by that model, replacing the one it had, and \
            printed. If CMD fails, prints nothing usable or runs past --timeout, nothing is stored and jv \
            exits 65.
            """)

    @OptionGroup var options: GlobalOptions

    @OptionGroup var period: DigestPeriodArguments

    @Flag(help: "Give each entry by its title alone (to the model too).")
    var brief = false

    @Option(help: "A chat command to write a reflection on the digest (see the discussion above).")
    var command: String?

    @OptionGroup var model: ModelOptions

    func execute() throws {
        let period = try period.period(today: Instant.now().localDay)
        let journal = try options.unlockedVault(access: command == nil ? .readOnly : .readWrite)
        var digest = try journal.digest(of: period, sections: [MeasuresDigestSection()])
        digest.brief = brief
        let output = options.output
        if let command {
            let reflection: DigestReflection
            do {
                reflection = try ModelOptions.confiningChildren { try journal.reflect(on: digest, with: model.responder(command: command)) }
            } catch let error as ChatResponderError {
                throw CLIError.refused("The digest command \(error.reason); nothing was stored.")
            }
            if output.json { return output.printJSON(reflection.json) }
            return Console.out(output.shown(reflection.text))
        }
        let reflections = try journal.reflections(on: period).filter { model.model == nil || $0.model == model.model }
        if output.json {
            return output.printJSON(digest.json(reflections: reflections))
        }
        Console.out(output.shown(digest.text))
        for reflection in reflections {
            let earlier = digest.isInput(of: reflection) ? "" : ", on an earlier state of the period's entries"
            Console.out("")
            Console.out(output.bold("Reflection by \(output.shown(reflection.model))") + output.dim(", \(output.time(reflection.created))\(earlier) (\(Output.shortID(reflection.id)))"))
            Console.out(output.shown(reflection.text))
        }
    }
}
