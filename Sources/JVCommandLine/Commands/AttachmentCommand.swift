// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `jv attachment …`: one attachment, by its id.
struct AttachmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment",
        abstract: "Read, open or delete one attachment (full id or a unique prefix of 4+ characters; 'jv attachments' lists them).",
        subcommands: [AttachmentGet.self, AttachmentOpen.self, AttachmentDelete.self])
}
