// SPDX-License-Identifier: Apache-2.0
import Foundation

/// jrnl's command line, read as jrnl 4.6 reads it when the first word names no jv command, so
/// that `alias jrnl=jv` works for everyday use: `jv -n 5`, `jv @anna -and @bob`, `jv -from
/// 2026-01-01 -to today -starred`, `jv --tags`, `jv yesterday: Went for a walk`.
///
/// As in jrnl, any filter or display option makes it a listing, and words alone that are all
/// tags (`@anna #work`) too; other words are the text of a new entry. A first word that is
/// (nearly) a jv command is never written: `jv lsit` is still "did you mean 'list'?", and so
/// is `jv serach harbour` (see `UnknownCommand.isMistypedCommand`). A jrnl form
/// jv has no meaning for is refused (64) with the jv way to do it. `jv help jrnl` lists the mapping.
///
/// ```swift
/// try JrnlCommandLine.translated(["-n", "5", "@anna"])   // ["list", "-n", "5", "--any-tag", "anna"]
/// try JrnlCommandLine.translated(["Went", "out", "*"])   // ["add", "--", "Went", "out", "*"]
/// ```
enum JrnlCommandLine {
    static let mapping = """
        When the first word is not a jv command, jv reads jrnl's command line:
          jrnl TEXT…              jv add TEXT…  (a first word close to a jv command is not written:
                                   'jv lsit', 'jv exprot notes' suggest the command; write
                                   such text with 'jv add')
          jrnl JOURNAL TEXT…      jv -j JOURNAL add TEXT…  (a name in the config file's [journals])
          jrnl @tag …             jv list --any-tag tag …  (-and: --tag, every tag must match)
          jrnl -n N, jrnl -N      jv list -n N
          jrnl -from D -to D      jv list --from D --to D  (-until: --to)
          jrnl -on D              jv list --on D
          jrnl -year Y            jv list --on Y
          jrnl -contains T        jv list --contains T
          jrnl -starred           jv list --starred
          jrnl -not @tag          jv list --not-tag tag
          jrnl -today-in-history  jv list --on-this-day
          jrnl --short, -s        jv list --short
          jrnl --format F         jv list --format F  (pretty, text, txt: text; md: markdown; boxed: fancy;
                                   json; short; tags: jv tags); --export F likewise
          jrnl --tags             jv tags  (with -from and -to only)
          jrnl --edit (filters)   jv edit --from D --to D --on D --tag T  (the entries in the editor)
          jrnl --delete           jv delete ID, or jv edit (filters) and remove the entries
          jrnl --change-time D    jv edit ID --at D
          jrnl --import           jv import FILE (jrnl's text and JSON)
          jrnl --encrypt/--decrypt  every jv vault is encrypted; jv passwd changes the passphrase
        Star syntax as in jrnl: 'yesterday *: text', '*text' and 'text*' write a starred entry.
        Read differently on purpose: tags have no sign (@work and #work are one tag); 'last week'
        is Monday to Sunday; a day in numbers (5/11/2026) is read in one order, date_order in
        config.toml (else the locale's: month first for en_US and C, as jrnl; day first for most
        others), and refused when that order cannot read it (jrnl swaps to day first).
        """

    /// The command line jv runs: `arguments` unchanged when their first word is a jv command (or
    /// none), else jrnl's meaning of them.
    static func translated(_ arguments: [String]) throws -> [String] {
        if arguments == ["help", "jrnl"] { return ["jrnl"] }
        guard let first = arguments.first, !commands.contains(first), !jvOwn.contains(first) else { return arguments }
        var reading = Reading()
        var words = arguments[...]
        if !first.hasPrefix("-"), arguments.count > 1, let journals = try? Config.current.journals, journals[first] != nil {
            reading.passed += ["--journal", first]
            words = words.dropFirst()
        }
        try reading.read(words)
        guard reading.isListing || !reading.text.isEmpty else { return arguments }
        let isListing = reading.isListing || reading.text.allSatisfy(isTag)
        if !isListing || !reading.text.allSatisfy(isTag) {
            // A command mistyped is not an entry: it is left to the "did you mean" of UnknownCommand.
            if reading.text.first == first, (isListing || reading.text.count == 1)
                ? UnknownCommand.isNearlyACommand(first) : UnknownCommand.isMistypedCommand(first) {
                return arguments
            }
            if isListing {
                throw CLIError.usage("jrnl reads the words among its filters as tags: write them '@tag' ('jv help jrnl' lists what jv reads).")
            }
            return ["add"] + reading.passed + reading.writing + ["--"] + reading.text
        }
        return try reading.listing()
    }

    private static let commands = Set(UnknownCommand.commandNames)
    /// argument-parser's own first words: help, version, and the completion scripts' calls.
    private static let jvOwn: Set<String> = ["--help", "-h", "--version", "--experimental-dump-help", "--generate-completion-script", "---completion"]

    private static func isTag(_ word: String) -> Bool {
        word.count > 1 && (word.hasPrefix("@") || word.hasPrefix("#"))
    }

    /// The words read, sorted into what jv will be given.
    private struct Reading {
        /// jv's global options, given as they were.
        var passed: [String] = []
        /// Options of `jv add` (`--template`).
        var writing: [String] = []
        /// Filters for `jv list` (or `jv edit`), in jv's spelling.
        var filters: [String] = []
        var text: [String] = []
        var strict = false
        var isListing = false
        var edits = false
        var showsTags = false
        var listOnly: [String] = []

        mutating func read(_ words: ArraySlice<String>) throws {
            var index = words.startIndex
            func value(of option: String) throws -> String {
                guard index < words.endIndex else { throw CLIError.usage("jrnl's \(option) takes a value.") }
                defer { index += 1 }
                return words[index]
            }
            while index < words.endIndex {
                let word = words[index]
                index += 1
                let name = String(word.prefix { $0 != "=" })
                if word == "--" {
                    text += words[index...]
                    return
                }
                if GlobalOptions.flags.contains(word) {
                    passed.append(word)
                } else if GlobalOptions.valued.contains(name) {
                    passed += name == word ? [word, try value(of: word)] : [word]
                } else if word.count > 1, word.hasPrefix("-"), word.dropFirst().allSatisfy(\.isASCII), word.dropFirst().allSatisfy(\.isNumber) {
                    filter(["-n", String(word.dropFirst())])
                } else {
                    try option(word, value: value(of:))
                }
            }
        }

        private mutating func filter(_ words: [String], listOnly: Bool = true) {
            filters += words
            isListing = true
            if listOnly { self.listOnly += words.prefix(1) }
        }

        private mutating func option(_ word: String, value: (String) throws -> String) throws {
            switch word {
            case "-n": filter(["-n", try value(word)])
            case "-from": filter(["--from", try value(word)], listOnly: false)
            case "-to", "-until": filter(["--to", try value(word)], listOnly: false)
            case "-on": filter(["--on", try value(word)], listOnly: false)
            case "-year": filter(["--on", try value(word)], listOnly: false)
            case "-contains": filter(["--contains", try value(word)])
            case "-starred": filter(["--starred"])
            case "-today-in-history": filter(["--on-this-day", "today"])
            case "-and": strict = true; isListing = true
            case "-not":
                let tag = try value(word)
                if tag == "-starred" || tag == "-tagged" {
                    throw CLIError.usage("jv has no -not \(tag); jrnl's -not @tag is 'jv list --not-tag tag'.")
                }
                filter(["--not-tag", tag])
            case "--short", "-s": filter(["--short"])
            case "--format", "--export": try format(try value(word))
            case "--tags": showsTags = true; isListing = true
            case "--edit": edits = true; isListing = true
            case "--template": writing += [word, try value(word)]
            case "-month", "-day", "-tagged":
                throw CLIError.usage("jv has no \(word); 'jv list --on-this-day DATE' lists a day in every year, 'jv list --on 2026-11' a month, 'jv tags' the tags.")
            case "--delete":
                throw CLIError.usage("jv deletes one entry with 'jv delete ID'; several: 'jv edit --from D --to D' and remove them in the editor.")
            case "--change-time":
                throw CLIError.usage("jv changes an entry's date with 'jv edit ID --at DATE'.")
            case "--import":
                throw CLIError.usage("jv reads jrnl's text and JSON exports with 'jv import FILE'.")
            case "--encrypt", "--decrypt":
                throw CLIError.usage("Every jv vault is encrypted; 'jv passwd' changes its passphrase, 'jv export' writes plaintext.")
            case "-o", "--file":
                throw CLIError.usage("jv writes a listing to a file with 'jv list … > FILE', an export with 'jv export --output FILE'.")
            default:
                if word.count > 1, word.hasPrefix("-"), !word.contains(" ") {
                    throw CLIError.usage("Neither jv nor jrnl has an option '\(TerminalText.visible(word))'; 'jv help' lists jv's commands, 'jv help jrnl' what jv reads of jrnl's.")
                }
                text.append(word)
            }
        }

        private mutating func format(_ name: String) throws {
            let jv: [String: String] = ["pretty": "text", "text": "text", "txt": "text", "md": "markdown", "markdown": "markdown",
                                        "boxed": "fancy", "fancy": "fancy", "json": "json", "short": "short"]
            if name == "tags" {
                showsTags = true
                isListing = true
            } else if let format = jv[name] {
                filter(["--format", format])
            } else {
                throw CLIError.usage("jv lists entries as text, short, fancy, json or markdown; 'jv export --format' writes json, markdown, txt or jrnl-json.")
            }
        }

        /// The jv command for a listing: `tags`, `edit` or `list`.
        func listing() throws -> [String] {
            let tags = text
            if showsTags {
                guard listOnly.isEmpty, tags.isEmpty else {
                    throw CLIError.usage("jv tags counts tags of a period only: 'jv tags --from D --to D'.")
                }
                return ["tags"] + passed + filters
            }
            if edits {
                guard listOnly.isEmpty, strict || tags.count <= 1 else {
                    throw CLIError.usage("jv edits entries together by date and tags: 'jv edit --from D --to D --on D --tag T'.")
                }
                return ["edit"] + passed + filters + tags.flatMap { ["--tag", $0] }
            }
            return ["list"] + passed + filters + tags.flatMap { [strict ? "--tag" : "--any-tag", $0] }
        }
    }
}
