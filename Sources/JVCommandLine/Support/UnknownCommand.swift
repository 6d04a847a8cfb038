// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// A first word that names no command (`jv lst`, `jv help nonexist`): said in jv's own style,
/// with the nearest command's name when one is close, and exit 64 — instead of
/// argument-parser's "Unexpected argument", or the main help with exit 0.
///
/// ```swift
/// UnknownCommand.message(for: ["lst"])   // "No command 'lst'; did you mean 'list'? ('jv help' lists them.)"
/// ```
enum UnknownCommand {
    /// Every first word jv reads as a command.
    static let commandNames = JV.configuration.subcommands.map { $0._commandName } + ["help"]

    static func message(for arguments: [String]) -> String? {
        let names = commandNames
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if !names.contains(first) {
            // Words after it that are no options may have been meant as an entry's text.
            let words = arguments.dropFirst()
            return sentence(first, names: names, maybeText: !words.isEmpty && !words.contains { $0.hasPrefix("-") })
        }
        if first == "help", let asked = arguments.dropFirst().first, !asked.hasPrefix("-"), !names.contains(asked) {
            return sentence(asked, names: names)
        }
        return nil
    }

    private static func sentence(_ word: String, names: [String], maybeText: Bool = false) -> String {
        let shown = TerminalText.visible(word)
        // `jv version`, `jv help` are the options' names without their dashes.
        if topLevelFlags.contains("--" + word) { return "No command '\(shown)'; did you mean 'jv --\(shown)'?" }
        guard let nearest = names.min(by: { distance(word, $0) < distance(word, $1) }), distance(word, nearest) <= 2 else {
            return "No command '\(shown)'; 'jv help' lists the commands."
        }
        let aside = maybeText ? "'jv add TEXT' writes an entry that starts with that word" : "'jv help' lists the commands"
        return "No command '\(shown)'; did you mean '\(nearest)'? (\(aside).)"
    }

    private static let topLevelFlags: Set<String> = ["--version"]

    /// Whether `word`, given as the first word, reads as a command mistyped (or an option's name
    /// without its dashes, `version`): a "did you mean" is then more use than anything made of it.
    static func isNearlyACommand(_ word: String) -> Bool {
        topLevelFlags.contains("--" + word)
            || commandNames.contains { distance(word, $0) <= 2 }
    }

    /// Whether `word`, the first of several that would be written as an entry (`jv serach
    /// harbour`), reads as a command mistyped: typed in lower case, as commands are, and one
    /// edit from a command of five letters or more (`serach`, `exprot`, `delte`) or a shorter one
    /// with two neighbouring letters swapped (`lsit`, `shwo`, `tgas`). `isNearlyACommand`'s two
    /// edits would refuse everyday sentences: "was", "last", "into" and "snow" are that close to
    /// "tags", "list", "info" and "show".
    static func isMistypedCommand(_ word: String) -> Bool {
        guard word == word.lowercased(), word.contains(where: \.isLetter) else { return false }
        return commandNames.contains { name in
            distance(word, name) == 1 && (name.count >= 5 || name.count == word.count && name.sorted() == word.sorted())
        }
    }

    /// Optimal-string-alignment distance between two words: Levenshtein's, with two neighbouring
    /// letters swapped counting as one typo (`lsit` is one from `list`, two from `init`). Few
    /// and short words: a plain table will do.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                table[i][j] = Swift.min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = Swift.min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
