import CProcessHygiene
import Foundation
import JournalVault

/// Edits text in the user's `$VISUAL`/`$EDITOR` through a private file on tmpfs
/// (`$XDG_RUNTIME_DIR`, else `/dev/shm`), mode 0600, overwritten and removed afterwards, so
/// plaintext never reaches a disk.
enum Editor {
    /// The edited text; throws, naming the editor, if it failed (nothing is saved then).
    static func edit(_ text: String) throws -> [UInt8] {
        let editorCommand = try command()
        let folder = try privateFolder()
        let path = folder + "/jv-" + UUID().uuidString.lowercased() + ".txt"
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw CLIError.failed("Cannot create a private temporary file in \(folder).") }
        close(descriptor)
        // A signal that ends jv while the editor is open (the terminal closed, Ctrl-C, a kill)
        // still ends the editor, wipes and removes the file, and puts the terminal back.
        guard jv_guard_file(path) == 0 else {
            unlink(path)
            throw CLIError.failed("The path of the editor's temporary file is too long: \(folder).")
        }
        let terminal = Foundation.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        jv_guard_terminal(terminal)
        defer {
            jv_guard_child(0)
            shred(path)
            _ = jv_guard_file(nil)
            jv_guard_terminal(-1)
            if terminal >= 0 { close(terminal) }
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) || text.isEmpty else {
            throw CLIError.failed("Cannot write the temporary file for the editor.")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // "$0" is the editor command (which may carry its own flags), "$@" the safety flags and file.
        process.arguments = ["-c", "exec $0 \"$@\"", editorCommand] + safetyFlags(for: editorCommand) + [path]
        process.environment = ChildEnvironment.withoutSecrets
        try process.run()
        jv_guard_child(process.processIdentifier)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let what = process.terminationStatus == 127 ? "was not found" : "exited with status \(process.terminationStatus)"
            throw CLIError.cancelled("The editor '\(TerminalText.visible(editorCommand))' \(what); nothing was saved. "
                                     + "Set $VISUAL or $EDITOR (or the config file's editor) to the editor you use, or pipe the text on standard input.")
        }
        return Array(FileManager.default.contents(atPath: path) ?? Data())
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

    /// Overwrites the file with zeros, syncs, and removes it.
    private static func shred(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor >= 0 {
            var size = lseek(descriptor, 0, SEEK_END)
            lseek(descriptor, 0, SEEK_SET)
            let zeros = [UInt8](repeating: 0, count: 4096)
            while size > 0 {
                let written = zeros.withUnsafeBytes { write(descriptor, $0.baseAddress, min(Int(size), 4096)) }
                if written <= 0 { break }
                size -= off_t(written)
            }
            fsync(descriptor)
            close(descriptor)
        }
        unlink(path)
    }
}
