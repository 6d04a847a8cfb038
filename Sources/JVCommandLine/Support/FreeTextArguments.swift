// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation

/// A command whose arguments are text a person writes (`jv add`, `jv chat add`, `jv search`).
protocol TakesFreeText: ParsableCommand {}

/// Text that starts with `-` given to a command that takes free text: stored, not read as
/// options. argument-parser reads every word that starts with `-` as options, so
/// `jv add "-5 degrees this morning"` was a bundle of short options, and its `h` asked for help:
/// the help was printed, exit 0, and nothing stored.
///
/// The command's own options (with `=value` or the next word as their value) stay options;
/// a word shaped like an option it does not have (`--stra`, `-x`) is refused, as a typo more
/// likely than text; every other word (`-`, `-5`, `- bought milk`, `-5 degrees`) is text, and
/// is passed after `--`, where argument-parser reads only values. `--` still ends the options.
///
/// ```swift
/// try FreeTextArguments.separated(["add", "--star", "-5 degrees"])   // ["add", "--star", "--", "-5 degrees"]
/// try FreeTextArguments.separated(["add", "--stra", "text"])         // throws CLIError.usage
/// ```
enum FreeTextArguments {
    static func separated(_ arguments: [String]) throws -> [String] {
        let (command, depth) = Self.command(in: arguments)
        guard command is TakesFreeText.Type, arguments[depth...].contains(where: { $0.hasPrefix("-") }) else { return arguments }
        let options = optionNames(of: command)
        let invocation = (["jv"] + arguments[..<depth]).joined(separator: " ")
        var kept = Array(arguments[..<depth]), text: [String] = []
        var index = depth
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" {
                text += arguments[index...]
                break
            }
            let written = name(of: word)
            if let option = options[written] {
                guard option.takesValue, written == word, index < arguments.count, options[name(of: arguments[index])] == nil else {
                    kept.append(word)
                    continue
                }
                // The next word is the value, whatever it starts with; joined, it cannot be read as options.
                let value = arguments[index]
                index += 1
                kept += value.hasPrefix("-") ? [option.long + "=" + value] : [word, value]
            } else if looksLikeAnOption(written) {
                throw CLIError.usage("\(invocation) has no option '\(TerminalText.visible(written))'; for text that starts with '-', "
                                     + "put '--' before it: \(invocation) -- '\(TerminalText.visible(word))'")
            } else {
                text.append(word)
            }
        }
        return kept + (text.isEmpty ? [] : ["--"] + text)
    }

    /// The (sub)command the first words of `arguments` name (`jv`'s own for none), and how many
    /// words name it.
    static func command(in arguments: [String]) -> (type: ParsableCommand.Type, depth: Int) {
        var command: ParsableCommand.Type = JV.self
        var depth = 0
        while depth < arguments.count, let sub = command.configuration.subcommands.first(where: { $0._commandName == arguments[depth] }) {
            command = sub
            depth += 1
        }
        return (command, depth)
    }

    /// The option a word names: `--tag` of `--tag=work`.
    private static func name(of word: String) -> String {
        String(word.prefix { $0 != "=" })
    }

    /// `-x`, `--word`, `--two-words`: a dash or two, then a letter, then letters, digits, `-` and `_`.
    private static func looksLikeAnOption(_ word: String) -> Bool {
        let name = word.hasPrefix("--") ? word.dropFirst(2) : word.hasPrefix("-") ? word.dropFirst() : ""
        guard let first = name.first, first.isASCII, first.isLetter else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// An option of the command: whether it takes a value, and its long name (`--journal` for
    /// `-j`), with which a value is joined by `=`.
    struct Option {
        let takesValue: Bool
        let long: String
    }

    /// The command's options by each name they are written with (`--tag`, `-j`, `--help`):
    /// read from argument-parser's own description of the command, so the two agree.
    static func optionNames(of command: ParsableCommand.Type) -> [String: Option] {
        var options: [String: Option] = [:]
        if !JV.configuration.version.isEmpty { options["--version"] = Option(takesValue: false, long: "--version") }
        guard let info = try? JSONDecoder().decode(ToolInfo.self, from: Data(command._dumpHelp().utf8)) else { return options }
        for argument in info.command.arguments ?? [] where argument.kind != "positional" {
            let names = (argument.names ?? []).map { ($0.kind == "long" ? "--" : "-") + $0.name }
            guard let long = names.first(where: { $0.hasPrefix("--") }) ?? names.first else { continue }
            for name in names { options[name] = Option(takesValue: argument.kind == "option", long: long) }
        }
        return options
    }

    /// The part of argument-parser's `--experimental-dump-help` JSON read here.
    private struct ToolInfo: Decodable {
        struct Command: Decodable {
            let arguments: [Argument]?
        }

        struct Argument: Decodable {
            /// "positional", "option" (takes a value) or "flag".
            let kind: String
            let names: [Name]?
        }

        struct Name: Decodable {
            /// "long", "short" or "longWithSingleDash".
            let kind: String
            let name: String
        }

        let command: Command
    }
}
