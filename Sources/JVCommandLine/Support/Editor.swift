// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation
import JournalVault

/// Edits text in the user's `$VISUAL`/`$EDITOR` through a private file on tmpfs
/// (`$XDG_RUNTIME_DIR`, else `/dev/shm`), mode 0600 in a folder of its own, overwritten and
/// removed afterwards, so plaintext never reaches a disk (``EditorFile``).
enum Editor {
    /// Opens the editor on `text` and returns what `accept` makes of the text saved there;
    /// throws, naming the editor, if it failed (nothing is saved then). Text that `accept`
    /// refuses (by throwing) is not lost: on a terminal the problem is shown and, unless the
    /// person declines, the editor opens again on what they saved, under a note of the problem
    /// that is removed again when read (as `crontab -e` and `visudo` do); without a terminal,
    /// the file is kept, in memory, and named in the error.
    static func edit<Accepted>(_ text: String, accepting accept: ([UInt8]) throws -> Accepted) throws -> Accepted {
        let editorCommand = try command()
        let folder = try privateFolder()
        let terminal = Foundation.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        jv_guard_terminal(terminal)
        defer {
            jv_guard_terminal(-1)
            if terminal >= 0 { close(terminal) }
        }
        var shown = Array(text.utf8)
        var noted = false
        while true {
            let file: EditorFile
            do {
                file = try EditorFile(in: folder, holding: shown)
            } catch {
                throw CLIError.failed("Cannot create a private temporary file in \(folder).")
            }
            // A signal that ends jv while the editor is open (the terminal closed, a kill)
            // still ends the editor, wipes and removes the file, and puts the terminal back;
            // after a SIGKILL, the next jv removes it (``abandonedFilesRemoved``).
            guard jv_guard_file(file.path) == 0 else {
                file.remove()
                throw CLIError.failed("The path of the editor's temporary file is too long: \(folder).")
            }
            var kept = false
            defer {
                _ = jv_guard_file(nil)
                if !kept { file.remove() }
            }
            try run(editorCommand, on: file.path, terminal: terminal)
            // Only a note jv put there goes: an entry may well start with "# jv: ".
            let (saved, linesAbove) = noted ? withoutNote(file.read()) : (file.read(), 0)
            do {
                return try accept(saved)
            } catch {
                guard Console.stdinIsTerminal, let asking = Terminal.open() else {
                    kept = true
                    throw keeping(file, in: folder, refusedWith: error)
                }
                defer { asking.close() }
                asking.write(problem(error, linesAbove: linesAbove) + "\n")
                guard asking.confirmUnlessRefused("Edit again? Otherwise nothing is saved.") else { throw error }
                shown = Array(note(of: error).utf8) + saved
                noted = true
            }
        }
    }

    /// How many editor files a jv killed outright (SIGKILL, which no handler sees) had left in
    /// the tmpfs folders, removed when this jv started (`jv info` and `jv check` say so).
    static let abandonedFilesRemoved = EditorFile.removeAbandoned(in: PrivateOutput.tmpfsFolders())

    /// Says on standard error that this jv removed editor files a killed jv left, if it did.
    static func noteAbandonedFiles() {
        guard abandonedFilesRemoved > 0 else { return }
        Console.note("jv: removed \(Output.count(abandonedFilesRemoved, of: "editor files")) that a killed jv had left in memory "
                     + "(\(PrivateOutput.tmpfsFolders().joined(separator: ", "))).")
    }

    /// What marks the lines of a note about a problem, at the top of the text shown again.
    private static let notePrefix = "# jv: "

    /// The note above the text shown again: the problem, numbered as shown, and what to do.
    private static func note(of error: Error) -> String {
        [problem(error, linesAbove: 2), "Correct it and save (these lines are removed), or quit and answer no to save nothing."]
            .map { notePrefix + $0 + "\n" }.joined()
    }

    /// `saved` without the note's lines at its top, and how many lines went.
    private static func withoutNote(_ saved: [UInt8]) -> ([UInt8], Int) {
        var rest = saved[...]
        var removed = 0
        while rest.starts(with: notePrefix.utf8) {
            rest = rest.firstIndex(of: UInt8(ascii: "\n")).map { rest[($0 + 1)...] } ?? []
            removed += 1
        }
        return (Array(rest), removed)
    }

    /// The refusal in one sentence, its line numbered as in the text shown with `linesAbove`
    /// lines above what was read.
    private static func problem(_ error: Error, linesAbove: Int) -> String {
        if let error = error as? EntryEditError, case .unreadable = error { return error.problem(linesAbove: linesAbove) }
        return Failure.sentence(for: error)
    }

    /// The refused text kept under a name that says so, in `folder` (in memory, 0600), and the
    /// error that says where; `error` itself if it cannot be kept.
    private static func keeping(_ file: EditorFile, in folder: String, refusedWith error: Error) -> Error {
        let kept = folder + "/jv-refused-" + UUID().uuidString.lowercased() + ".txt"
        guard file.keep(as: kept) else { return error }
        return CLIError.refused(problem(error, linesAbove: 0) + " Nothing was saved; the text as saved in the editor is kept in \(kept) "
                                + "(in memory, readable only by you, gone at shutdown): remove it once you have what you need.")
    }

    /// Runs the editor on the file at `path`, on the terminal if jv has one; throws if it failed.
    private static func run(_ editorCommand: String, on path: String, terminal: Int32) throws {
        let status = GuardedCommand.run(editorCommand, safetyFlags(for: editorCommand) + [path], terminal: terminal)
        guard status == 0 else {
            let what = status < 0 ? "could not be started" : status == 127 ? "was not found" : "exited with status \(status)"
            throw CLIError.cancelled("The editor '\(TerminalText.visible(editorCommand))' \(what); nothing was saved. "
                                     + "Set $VISUAL or $EDITOR (or the config file's editor) to the editor you use, or pipe the text on standard input.")
        }
    }

    /// `$VISUAL`, else `$EDITOR`, else the config file's `editor`, else vi.
    private static func command() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        return try [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? Config.current.editor ?? "vi"
    }

    /// vi-family editors: no swap file (-n) and no viminfo (-i NONE, which would keep yanked text).
    private static func safetyFlags(for editorCommand: String) -> [String] {
        let name = editorCommand.split(separator: " ").first.map { ($0 as NSString).lastPathComponent } ?? ""
        return ["vi", "vim", "nvim", "view"].contains(name) ? ["-n", "-i", "NONE"] : []
    }

    private static func privateFolder() throws -> String {
        guard let folder = PrivateOutput.tmpfsFolder() else {
            // Never a disk: the file holds the entry's plaintext.
            throw CLIError.failed("No memory-backed folder (tmpfs) for the editor's file: $XDG_RUNTIME_DIR is not on tmpfs and /dev/shm is not usable. Pipe the text on standard input instead.")
        }
        return folder
    }
}
