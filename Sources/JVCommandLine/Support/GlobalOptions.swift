// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// Options every command takes: where the vault is, how to print, how to unlock.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The vault file (default: $JV_VAULT, else the config file's vault or its [journals] default, else ${XDG_DATA_HOME:-~/.local/share}/jv/journal.vault).", valueName: "path"),
            completion: .file())
    var vault: String?

    @Option(name: [.customShort("j"), .long], help: ArgumentHelp("The vault the config file's [journals] table names NAME.", valueName: "name"),
            completion: Completions.journal)
    var journal: String?

    @Flag(name: .long, help: "Machine-readable JSON output.")
    var json = false

    @Flag(name: .customLong("no-color"), help: "No colours (also: $NO_COLOR).")
    var noColor = false

    @Option(name: .long, help: ArgumentHelp("Read the passphrase from the first line of this file (also: $JV_PASSPHRASE_FILE).", valueName: "path"),
            completion: .file())
    var passphraseFile: String?

    @Option(name: .long, help: ArgumentHelp("Run this shell command and use the first line it prints as the passphrase (also: $JV_PASSPHRASE_COMMAND).", valueName: "command"))
    var passphraseCommand: String?

    @Option(name: .long, help: ArgumentHelp("Unlock with the recovery key in this file instead of the passphrase (also: $JV_RECOVERY_KEY_FILE).", valueName: "path"),
            completion: .file())
    var recoveryKeyFile: String?

    @Flag(name: .customLong("no-agent"), help: "Ignore an open session (jv unlock): unlock with the passphrase as if there were none.")
    var noAgent = false

    /// The vault path: `--vault`, else the `--journal` of that name, else `$JV_VAULT`, else
    /// the config file's `vault`, else its `[journals]` `default`, else the XDG data folder's.
    var vaultPath: String {
        get throws {
            let environment = ProcessInfo.processInfo.environment
            if let journal {
                guard vault == nil else { throw CLIError.usage("--vault and --journal both choose the vault; give only one of them.") }
                return try Config.current.journalPath(named: journal)
            }
            if let vault, !vault.isEmpty { return vault }
            if let path = environment["JV_VAULT"], !path.isEmpty { return path }
            // A `default` of [journals] is the default vault, as it is jrnl's default journal.
            if let path = try Config.current.vault ?? Config.current.journals["default"] { return path }
            return XDGDirectories().data + "/jv/journal.vault"
        }
    }

    /// The vault, opened; when there is none, the hint names the `jv init` that makes this one
    /// (a bare `jv init` would make the default vault, not the journal asked for).
    func openVault(access: Vault.Access = .readWrite) throws -> Vault {
        let path = try vaultPath
        do {
            return try Vault.open(at: path, access: access)
        } catch VaultError.vaultNotFound {
            if let journal { throw CLIError.inputNotFound("No vault at \(path) (journal '\(journal)'); create it with 'jv -j \(journal) init'.") }
            if vault?.isEmpty == false { throw CLIError.inputNotFound("No vault at \(path); create it with 'jv init --vault \(path)'.") }
            throw VaultError.vaultNotFound(path: path)
        }
    }

    var output: Output { Output(json: json, noColor: noColor) }

    private static let choosingTheVault: Set<String> = ["--vault", "--journal", "-j"]
    static let valued = choosingTheVault.union(["--passphrase-file", "--passphrase-command", "--recovery-key-file"])
    static let flags: Set<String> = ["--json", "--no-color", "--no-agent"]
    private static let commandGroups: Set<String> = ["chat", "analysis", "graph", "sync"]

    /// `--on-this-day` given without a date means today's: "today" is put in as its value, as
    /// argument-parser has no options whose value may be left out.
    static func fillingOptionalValues(_ arguments: [String]) -> [String] {
        var filled: [String] = []
        for (index, argument) in arguments.enumerated() {
            filled.append(argument)
            if argument == "--on-this-day", index + 1 == arguments.count || arguments[index + 1].hasPrefix("-") { filled.append("today") }
        }
        return filled
    }

    /// The options among `words` (anywhere, with their values) that choose the vault, so that
    /// `GlobalOptions.parse` of them finds the vault as the whole command line would.
    static func vaultChoice(in words: [String]) -> [String] {
        var chosen: [String] = []
        for (index, word) in words.enumerated() {
            let name = String(word.split(separator: "=", maxSplits: 1).first ?? "")
            guard choosingTheVault.contains(name) else { continue }
            if word.contains("=") {
                chosen.append(word)
            } else if index + 1 < words.count {
                chosen += [word, words[index + 1]]
            }
        }
        return chosen
    }

    /// Lets global options stand before the command (`jv --vault X list`) as well as after it:
    /// they are moved to just after the command's name, where the parser expects them.
    static func hoistingGlobalOptions(_ arguments: [String]) -> [String] {
        var globals: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if flags.contains(argument) {
                globals.append(argument)
                index += 1
            } else if valued.contains(name) {
                let takesNext = !argument.contains("=") && index + 1 < arguments.count
                globals.append(contentsOf: arguments[index..<index + (takesNext ? 2 : 1)])
                index += takesNext ? 2 : 1
            } else {
                break
            }
        }
        guard !globals.isEmpty, index < arguments.count else { return arguments }
        var commandEnd = index + 1
        if commandGroups.contains(arguments[index]), commandEnd < arguments.count, !arguments[commandEnd].hasPrefix("-") {
            commandEnd += 1
        }
        return Array(arguments[index..<commandEnd]) + globals + Array(arguments[commandEnd...])
    }
}
