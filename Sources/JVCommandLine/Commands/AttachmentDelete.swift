// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv attachment delete`: remove an attachment for good.
struct AttachmentDelete: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an attachment (asks first on a terminal unless --yes); its content goes when no other attachment has it.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The attachment's id or id prefix.")
    var id: String

    @Flag(name: [.long, .customShort("y")], help: "Do not ask.")
    var yes = false

    func execute() throws {
        let journal = try options.unlockedVault()
        let attachment = try journal.attachment(id: journal.resolveAttachmentID(id))
        try Confirmation.ask("Delete the attachment “\(TerminalText.visible(attachment.name))” (\(Attachment.sizeText(attachment.size)))?", unless: yes)
        try journal.deleteAttachment(id: attachment.id)
        if options.json {
            options.output.printJSON(attachment.json)
        } else {
            Console.note("Deleted \(attachment.id.storageText).")
        }
    }
}
