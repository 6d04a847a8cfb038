// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation

/// Runs the command, and says argument-parser's refusals (an unknown option, a missing value)
/// in jv's own style: one line, `jv: …`, naming where the usage is shown, exit 64 — instead of
/// argument-parser's "Error: …" followed by the whole usage, beside jv's own "jv: …" errors.
///
/// ```
/// jv export --on today   →  jv: Unknown option '--on'; 'jv export --help' lists the options.
/// jv export --out x      →  jv: Unknown option '--out'; did you mean '--output'? ('jv export --help' lists the options.)
/// ```
enum UsageMessage {
    static func run(_ arguments: [String]) -> Never {
        do {
            var command = try JV.parseAsRoot(arguments)
            try command.run()
            JV.exit()
        } catch {
            // Help, --version and the exit codes of commands that already said why: as they are.
            guard !(error is ExitCode), JV.exitCode(for: error) == .validationFailure else { JV.exit(withError: error) }
            Console.error(sentence(for: JV.message(for: error), arguments: arguments))
            exit(ExitStatus.usage.rawValue)
        }
    }

    static func sentence(for message: String, arguments: [String]) -> String {
        let (command, depth) = FreeTextArguments.command(in: arguments)
        let invocation = (["jv"] + arguments[..<depth]).joined(separator: " ")
        let help = "'\(invocation) --help'"
        if let option = quoted(after: "Unknown option '", in: message) {
            let shown = TerminalText.visible(option)
            guard let nearest = nearestOption(to: option, of: command) else { return "Unknown option '\(shown)'; \(help) lists the options." }
            return "Unknown option '\(shown)'; did you mean '\(nearest)'? (\(help) lists the options.)"
        }
        if let option = quoted(after: "Missing value for '", in: message)?.split(separator: " ").first.map(String.init),
           let written = arguments.firstIndex(of: option), written + 1 < arguments.count,
           let number = Int(arguments[written + 1]), number < 0 {
            return "\(option) takes a positive number, not \(number)."
        }
        // A mistyped command of a group (`jv graph shw`).
        let subcommands = command.configuration.subcommands.map { $0._commandName }
        if let word = quoted(after: "Unexpected argument '", in: message), depth < arguments.count, arguments[depth] == word,
           let nearest = subcommands.min(by: { UnknownCommand.distance(word, $0) < UnknownCommand.distance(word, $1) }),
           UnknownCommand.distance(word, nearest) <= 2 {
            return "No command '\(TerminalText.visible(word))' in '\(invocation)'; did you mean '\(nearest)'? (\(help) lists them.)"
        }
        // Sentences of argument-parser's message joined into one.
        var sentences = message.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
            .components(separatedBy: ". ")
        for index in sentences.indices.dropFirst() { sentences[index] = sentences[index].prefix(1).lowercased() + sentences[index].dropFirst() }
        let core = sentences.joined(separator: "; ")
        return (core.hasSuffix(".") ? String(core.dropLast()) : core) + "; see \(help)."
    }

    /// The text between `prefix` and the next `'` in `message`.
    private static func quoted(after prefix: String, in message: String) -> String? {
        guard let start = message.range(of: prefix) else { return nil }
        let rest = message[start.upperBound...]
        guard let end = rest.firstIndex(of: "'") else { return nil }
        return String(rest[..<end])
    }

    /// The command's one option that `typed` begins (`--out` for `--output`), else the one a
    /// single typo away (`--josn`); nil rather than an unrelated one (`--on` is not `--json`).
    private static func nearestOption(to typed: String, of command: ParsableCommand.Type) -> String? {
        let names = FreeTextArguments.optionNames(of: command).keys.filter { $0.hasPrefix("--") }
        let extending = names.filter { $0.hasPrefix(typed) }
        if extending.count == 1 { return extending.first }
        guard typed.count > 4 else { return nil }
        let close = names.filter { UnknownCommand.distance(typed, $0) == 1 }
        return close.count == 1 ? close.first : nil
    }
}
