// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv attachment get`: an attachment's content, decrypted.
struct AttachmentGet: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Write an attachment's content to --output FILE, or to standard output.",
        discussion: """
            Every chunk is authenticated before a byte of it is written. --output FILE is created 0600, never \
            replaces an existing file without --force, and takes its name only once the whole content \
            has authenticated: a damaged attachment leaves no file. To standard output, the chunks before \
            the damage have been written when jv stops (exit 65), as cat of a damaged file would; standard \
            output must not be a terminal.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The attachment's id or id prefix.")
    var id: String

    @Option(name: [.short, .long], help: ArgumentHelp("Write to this file ('-': standard output, the default).", valueName: "path"),
            completion: .file())
    var output: String?

    @Flag(help: "Replace --output if it exists.")
    var force = false

    func execute() throws {
        let file = output == "-" ? nil : output
        if let file { try OutputFile.check(file, replace: force) }
        // A file's bytes on a terminal could be escape sequences that drive it.
        if file == nil, Console.stdoutIsTerminal {
            throw CLIError.usage("Standard output is a terminal: give --output FILE, or redirect standard output to a file or a pipe.")
        }
        let journal = try options.unlockedVault(access: .readOnly)
        let id = try journal.resolveAttachmentID(id)
        if let file {
            try PrivateOutput.write(to: file, replace: force) { put in try journal.readAttachment(id: id, put) }
        } else {
            try journal.readAttachment(id: id, to: FileHandle.standardOutput)
        }
    }
}
