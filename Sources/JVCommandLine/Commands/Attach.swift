// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv attach`: keep files with an entry.
struct Attach: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Attach files to an entry; prints each attachment's id.",
        discussion: """
            The files are encrypted into the vault, all in one change: if one cannot be read or is over \
            the limit ([attachments] max_size in the config file, default 2 GiB), none is attached. '-' \
            reads standard input, kept under --name. A file already in the vault is stored once.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The entry's id or id prefix.", completion: Completions.entryID)
    var entry: String

    @Argument(help: "The files to attach ('-': standard input).", completion: .file())
    var files: [String]

    @Option(help: "The name to keep standard input under ('-').")
    var name: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give the files to attach.") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input ('-') can be attached once.") }
        if files.contains("-") && name == nil { throw ValidationError("'-' (standard input) needs --name, the file name to keep it under.") }
        if name != nil && !files.contains("-") { throw ValidationError("--name names standard input ('-'); a file keeps its own name.") }
    }

    func execute() throws {
        let inputs = try AttachmentFiles.inputs(files, stdinName: name)
        let journal = try options.unlockedVault()
        // Standard input is described once stored (a file, by AttachmentFiles.inputs before).
        let attached = try journal.attach(inputs, to: try journal.resolveEntryID(entry), limit: try AttachmentFiles.limit(),
                                          thumbnailer: files.contains("-") ? Thumbnailer.located() : nil)
        AttachmentFiles.print(attached, options.output)
    }
}
