// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv attachments`: the files kept with entries.
struct AttachmentsCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachments",
        abstract: "List attachments: of one entry, or of all entries (by --from/--to on the entry's day, --type).",
        discussion: "Dates are read as by 'jv list', and select by the day the entry was written.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var imageOptions: ImageOptions

    @Argument(help: "Only the attachments of this entry (id or id prefix).", completion: Completions.entryID)
    var entry: String?

    @Option(help: "Attachments of entries from this date on.")
    var from: String?

    @Option(help: "Attachments of entries up to this date (inclusive).")
    var to: String?

    @Option(name: .customLong("type"), help: "Only image, video, audio or other files.")
    var kind: MediaKind?

    func execute() throws {
        var query = AttachmentQuery(kind: kind)
        let (from, to) = try DateArgument.range(from: from, to: to)
        (query.from, query.to) = (from?.coveredDays.lowerBound, to?.coveredDays.upperBound)
        let journal = try options.unlockedVault(access: .readOnly)
        query.entryID = try entry.map(journal.resolveEntryID)
        let listed = try journal.attachmentsWithThumbnails(query)
        let attachments = listed.map(\.attachment)
        let output = options.output
        if output.json {
            output.printJSON(.array(attachments.map(\.json)))
        } else if attachments.isEmpty {
            Console.note("No attachments match.")
        } else {
            let previews = AttachmentPreviews.make(for: listed, options: imageOptions, output: output)
            guard let previews else {
                return Console.out(attachments.map { $0.line(output, withEntry: query.entryID == nil) }.joined(separator: "\n"))
            }
            for attachment in attachments {
                Console.out(attachment.line(output, withEntry: query.entryID == nil))
                try previews.draw(attachment, indent: 2)
            }
        }
    }
}

extension MediaKind: ExpressibleByArgument {}
