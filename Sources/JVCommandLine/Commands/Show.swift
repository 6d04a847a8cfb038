// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv show`: one entry in full.
struct Show: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one entry (full id or a unique prefix of 4+ characters).")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var imageOptions: ImageOptions

    @Argument(help: "The entry's id or id prefix.", completion: Completions.entryID)
    var id: String

    func execute() throws {
        let journal = try options.unlockedVault(access: .readOnly)
        let entry = try journal.entry(id: journal.resolveEntryID(id))
        let measures = try journal.measures(of: entry.id)
        let listed = try journal.attachmentsWithThumbnails(AttachmentQuery(entryID: entry.id))
        let attachments = listed.map(\.attachment)
        if options.json {
            let json = entry.json.adding(measures: measures)
            options.output.printJSON(attachments.isEmpty ? json : json.adding(attachments: attachments))
        } else {
            let output = options.output
            var lines = [output.render(entry, full: false), ""]
            lines.append(output.shown(entry.content))
            let tags = entry.tags
            if !tags.isEmpty { lines += ["", output.dim("tags: " + output.shown(tags.joined(separator: ", ")))] }
            if !measures.isEmpty {
                if tags.isEmpty { lines.append("") }
                lines.append(output.dim("fields: " + output.shown(measures.line)))
            }
            if !attachments.isEmpty {
                lines += ["", output.dim(Output.count(attachments.count, of: "attachments") + ":")]
                if let previews = AttachmentPreviews.make(for: listed, options: imageOptions, output: output) {
                    Console.out(lines.joined(separator: "\n"))
                    lines = []
                    for attachment in attachments {
                        Console.out("  " + attachment.line(output, withEntry: false))
                        try previews.draw(attachment, indent: 4)
                    }
                } else {
                    lines += attachments.map { "  " + $0.line(output, withEntry: false) }
                }
            }
            lines.append(output.dim("id: \(entry.id.uuidString.lowercased())  written \(entry.created.iso8601)  modified \(entry.modified.iso8601)"))
            Console.out(lines.joined(separator: "\n"))
        }
    }
}
