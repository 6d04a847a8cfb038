import ArgumentParser

/// A first word that names no command (`jv lst`, `jv help nonexist`): said in jv's own style,
/// with the nearest command's name when one is close, and exit 64 — instead of
/// argument-parser's "Unexpected argument", or the main help with exit 0.
///
/// ```swift
/// UnknownCommand.message(for: ["lst"])   // "No command 'lst'; did you mean 'list'? ('jv help' lists them.)"
/// ```
enum UnknownCommand {
    static func message(for arguments: [String]) -> String? {
        let names = JV.configuration.subcommands.map { $0._commandName } + ["help"]
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if !names.contains(first) { return sentence(first, names: names) }
        if first == "help", let asked = arguments.dropFirst().first, !asked.hasPrefix("-"), !names.contains(asked) {
            return sentence(asked, names: names)
        }
        return nil
    }

    private static func sentence(_ word: String, names: [String]) -> String {
        let shown = TerminalText.visible(word)
        guard let nearest = names.min(by: { distance(word, $0) < distance(word, $1) }), distance(word, nearest) <= 2 else {
            return "No command '\(shown)'; 'jv help' lists the commands."
        }
        return "No command '\(shown)'; did you mean '\(nearest)'? ('jv help' lists the commands.)"
    }

    /// Levenshtein distance between two words (few and short: a plain table will do).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
