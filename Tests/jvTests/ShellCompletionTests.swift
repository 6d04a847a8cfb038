// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// TAB in bash, zsh and fish with the scripts `jv --generate-completion-script` writes:
/// commands, options, file names where a file is asked for (not the commands), entry ids, tags
/// through an open session, journal names from the config file and template names.
@Suite("shell completion in bash, zsh and fish", .tags(.e2e, .externalTools, .slow), .notInQuickRun)
struct ShellCompletionTests {
    /// A folder with two files and a folder in it, for file-name completion.
    private func workFolder(_ sandbox: Sandbox) throws -> String {
        try sandbox.folder.write("work/notes.jvbak", "")
        try sandbox.folder.write("work/key.txt", "")
        try sandbox.folder.write("work/old/x", "")
        return sandbox.folder.file("work")
    }

    @Test("commands and options complete", arguments: CompletingShell.Kind.allCases)
    func commandsAndOptions(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        let shell = try CompletingShell(kind, sandbox: sandbox)
        try expectOffers(shell, in: try workFolder(sandbox), [
            "jv li": ["list"],
            "jv list --ta": ["--tag"],
            "jv --vau": ["--vault"],
            "jv sync cl": ["clone"],
            "jv graph me": ["merge"],
            // After global options before the command, the command's own.
            "jv --vault x.vault show --js": ["--json"],
        ])
    }

    @Test("a file asked for completes the folder's file names, not the commands", arguments: CompletingShell.Kind.allCases)
    func fileNames(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        let shell = try CompletingShell(kind, sandbox: sandbox)
        let files = ["key.txt", "notes.jvbak", "old"]
        let lines = ["jv --vault ", "jv --passphrase-file ", "jv list --vault ", "jv info --recovery-key-file ", "jv backup ",
                     "jv restore ", "jv restore x.jvbak --to ", "jv verify-backup ", "jv import ", "jv import x.json --age-identity ",
                     "jv export --output ", "jv passwd --new-passphrase-file ", "jv rekey --keep-recovery-key ", "jv sync clone x --to "]
        try expectOffers(shell, in: try workFolder(sandbox), lines.map { ($0, files) } + [
            ("jv backup no", ["notes.jvbak"]),
            // Folders only.
            ("jv sync init ", ["old"]),
            ("jv sync clone ", ["old"]),
        ])
    }

    @Test("entry ids complete without a passphrase", arguments: CompletingShell.Kind.allCases)
    func entryIDs(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let first = try sandbox.add("First.")
        let second = try sandbox.add("Second.")
        sandbox.environment["JV_PASSPHRASE_FILE"] = nil
        let shell = try CompletingShell(kind, sandbox: sandbox)
        try expectOffers(shell, in: try workFolder(sandbox), [
            "jv show ": [String(first.prefix(8)), String(second.prefix(8))].sorted(),
            "jv delete \(first.prefix(4))": [String(first.prefix(8))],
        ])
    }

    @Test("tags complete through an open session, and nothing without one", arguments: CompletingShell.Kind.allCases)
    func tags(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("Garden and #gardening. #walk")
        try sandbox.add("More #games.")
        sandbox.environment["JV_PASSPHRASE_FILE"] = nil
        let shell = try CompletingShell(kind, sandbox: sandbox)
        let folder = try workFolder(sandbox)
        try expectOffers(shell, in: folder, ["jv list --tag ga": []])

        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile]))
        defer { _ = try? sandbox.run(["lock"]) }
        try expectOffers(shell, in: folder, [
            "jv list --tag ga": ["games", "gardening"],
            "jv add --tag w": ["walk"],
        ])
    }

    @Test("-j and --journal complete the config file's journal names", arguments: CompletingShell.Kind.allCases)
    func journalNames(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        try sandbox.folder.write("home/.config/jv/config.toml", "[journals]\nwork = '~/work.vault'\nwriting = '~/w.vault'\ndefault = '~/j.vault'\n")
        let shell = try CompletingShell(kind, sandbox: sandbox)
        try expectOffers(shell, in: try workFolder(sandbox), [
            "jv -j ": ["default", "work", "writing"],
            "jv --journal wo": ["work"],
            "jv list -j wr": ["writing"],
        ])
    }

    @Test("--template completes the templates folder's names", arguments: CompletingShell.Kind.allCases)
    func templateNames(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        for file in ["gratitude.md", "goals.md", "morning.md", ".draft.md", "notes.txt"] {
            try sandbox.folder.write("home/.config/jv/templates/" + file, "Today:\n")
        }
        let shell = try CompletingShell(kind, sandbox: sandbox)
        try expectOffers(shell, in: try workFolder(sandbox), [
            "jv add --template ": ["goals", "gratitude", "morning"],
            "jv add --template gr": ["gratitude"],
        ])
    }

    /// Expects TAB after each line (typed one after the other into one shell) to offer what it is paired with.
    private func expectOffers(_ shell: CompletingShell, in folder: String, _ expected: KeyValuePairs<String, [String]>,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectOffers(shell, in: folder, expected.map { ($0.key, $0.value) }, sourceLocation: sourceLocation)
    }

    private func expectOffers(_ shell: CompletingShell, in folder: String, _ expected: [(String, [String])],
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let offered = try shell.offers(expected.map(\.0), in: folder)
        for ((line, wanted), got) in zip(expected, offered) {
            #expect(got == wanted, "\(shell): '\(line)<TAB>'", sourceLocation: sourceLocation)
        }
    }
}
