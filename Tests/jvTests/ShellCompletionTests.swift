import Foundation
import Testing

/// TAB in bash, zsh and fish with the scripts `jv --generate-completion-script` writes (issue 21):
/// commands, options, file names where a file is asked for (not the commands), entry ids, tags
/// through an open session, journal names from the config file and template names.
@Suite("shell completion in bash, zsh and fish")
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
        let folder = try workFolder(sandbox)
        #expect(try shell.offers("jv li", in: folder) == ["list"], "\(shell)")
        #expect(try shell.offers("jv list --ta", in: folder) == ["--tag"], "\(shell)")
        #expect(try shell.offers("jv --vau", in: folder) == ["--vault"], "\(shell)")
        #expect(try shell.offers("jv sync cl", in: folder) == ["clone"], "\(shell)")
        // After global options before the command, the command's own.
        #expect(try shell.offers("jv --vault x.vault show --js", in: folder) == ["--json"], "\(shell)")
    }

    @Test("a file asked for completes the folder's file names, not the commands", arguments: CompletingShell.Kind.allCases)
    func fileNames(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        let shell = try CompletingShell(kind, sandbox: sandbox)
        let folder = try workFolder(sandbox)
        let files = ["key.txt", "notes.jvbak", "old"]
        for line in ["jv --vault ", "jv --passphrase-file ", "jv list --vault ", "jv info --recovery-key-file ", "jv backup ",
                     "jv restore ", "jv restore x.jvbak --to ", "jv verify-backup ", "jv import ", "jv import x.json --age-identity ",
                     "jv export --output ", "jv passwd --new-passphrase-file ", "jv rekey --keep-recovery-key ", "jv sync clone x --to "] {
            #expect(try shell.offers(line, in: folder) == files, "\(shell): '\(line)'")
        }
        #expect(try shell.offers("jv backup no", in: folder) == ["notes.jvbak"], "\(shell)")
        for line in ["jv sync init ", "jv sync clone "] {
            #expect(try shell.offers(line, in: folder) == ["old"], "folders only: \(shell): '\(line)'")
        }
    }

    @Test("entry ids complete without a passphrase", arguments: CompletingShell.Kind.allCases)
    func entryIDs(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let first = try sandbox.add("First.")
        let second = try sandbox.add("Second.")
        sandbox.environment["JV_PASSPHRASE_FILE"] = nil
        let shell = try CompletingShell(kind, sandbox: sandbox)
        let folder = try workFolder(sandbox)
        #expect(try shell.offers("jv show ", in: folder) == [String(first.prefix(8)), String(second.prefix(8))].sorted(), "\(shell)")
        #expect(try shell.offers("jv delete \(first.prefix(4))", in: folder) == [String(first.prefix(8))], "\(shell)")
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
        #expect(try shell.offers("jv list --tag ga", in: folder).isEmpty, "no session, no tags: \(shell)")

        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile]))
        defer { _ = try? sandbox.run(["lock"]) }
        #expect(try shell.offers("jv list --tag ga", in: folder) == ["games", "gardening"], "\(shell)")
        #expect(try shell.offers("jv add --tag w", in: folder) == ["walk"], "\(shell)")
    }

    @Test("-j and --journal complete the config file's journal names", arguments: CompletingShell.Kind.allCases)
    func journalNames(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        try sandbox.folder.write("home/.config/jv/config.toml", "[journals]\nwork = '~/work.vault'\nwriting = '~/w.vault'\ndefault = '~/j.vault'\n")
        let shell = try CompletingShell(kind, sandbox: sandbox)
        let folder = try workFolder(sandbox)
        #expect(try shell.offers("jv -j ", in: folder) == ["default", "work", "writing"], "\(shell)")
        #expect(try shell.offers("jv --journal wo", in: folder) == ["work"], "\(shell)")
        #expect(try shell.offers("jv list -j wr", in: folder) == ["writing"], "\(shell)")
    }

    @Test("--template completes the templates folder's names", arguments: CompletingShell.Kind.allCases)
    func templateNames(_ kind: CompletingShell.Kind) throws {
        let sandbox = try Sandbox()
        for file in ["gratitude.md", "goals.md", "morning.md", ".draft.md", "notes.txt"] {
            try sandbox.folder.write("home/.config/jv/templates/" + file, "Today:\n")
        }
        let shell = try CompletingShell(kind, sandbox: sandbox)
        let folder = try workFolder(sandbox)
        #expect(try shell.offers("jv add --template ", in: folder) == ["goals", "gratitude", "morning"], "\(shell)")
        #expect(try shell.offers("jv add --template gr", in: folder) == ["gratitude"], "\(shell)")
    }
}
