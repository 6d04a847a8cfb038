// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CProcessHygiene
import Foundation
import JournalVault

/// `jv attachment open`: an attachment shown by the desktop's viewer, from a copy that lives
/// only in memory and only while it is open.
struct AttachmentOpen: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open an attachment in its viewer ($JV_OPEN, else xdg-open) from a private copy in memory.",
        discussion: """
            The content is decrypted, every chunk authenticated, into a file of its own name, mode 0600, in a \
            private folder on tmpfs ($XDG_RUNTIME_DIR, else /dev/shm) — never on a disk. jv runs the viewer \
            on it and waits for it to exit; xdg-open returns as soon as it has started a viewer, so with it, \
            on a terminal, jv waits for Enter too. Then the copy is overwritten and removed, also when a signal \
            ends jv meanwhile (after kill -9, by the next jv). A damaged attachment opens nothing (exit 65).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The attachment's id or id prefix.")
    var id: String

    func execute() throws {
        let journal = try options.unlockedVault(access: .readOnly)
        let attachment = try journal.attachment(id: try journal.resolveAttachmentID(id))
        guard let parent = PrivateOutput.tmpfsFolder() else {
            throw CLIError.failed("No memory-backed folder (tmpfs) for the decrypted copy: $XDG_RUNTIME_DIR is not on tmpfs and /dev/shm is not usable. Use 'jv attachment get' instead.")
        }
        let viewer = ProcessInfo.processInfo.environment["JV_OPEN"].flatMap { $0.isEmpty ? nil : $0 }
        let file = try EditorFile(in: parent, named: attachment.name) { handle in try journal.readAttachment(id: attachment.id, to: handle) }
        guard jv_guard_file(file.path) == 0 else {
            file.remove()
            throw CLIError.failed("The path of the decrypted copy is too long: \(parent).")
        }
        defer {
            _ = jv_guard_file(nil)
            file.remove()
        }
        let terminal = Foundation.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        jv_guard_terminal(terminal)
        defer {
            jv_guard_terminal(-1)
            if terminal >= 0 { close(terminal) }
        }
        let command = viewer ?? "xdg-open"
        let status = GuardedCommand.run(command, [file.path], terminal: terminal)
        guard status == 0 else {
            let what = status < 0 ? "could not be started" : status == 127 ? "was not found" : "exited with status \(status)"
            throw CLIError.failed("The viewer '\(TerminalText.visible(command))' \(what); the decrypted copy is removed. "
                                  + "Set $JV_OPEN to a program that shows the file it is given, or use 'jv attachment get'.")
        }
        if viewer == nil, let asking = Terminal.open() {
            defer { asking.close() }
            _ = asking.readLine(prompt: "Press Enter when you have finished with \(TerminalText.visible(attachment.name)): its decrypted copy is removed then. ")
        }
    }
}
