// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv tags`: every tag with the number of entries that carry it.
struct TagsCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "List every tag with the number of entries that carry it, most used first (jrnl's --tags).")

    @OptionGroup var options: GlobalOptions

    @OptionGroup var range: EntryRange

    func execute() throws {
        let counts = try options.unlockedVault(access: .readOnly).tagCounts(range.query())
        let output = options.output
        if output.json {
            return output.printJSON(.array(counts.map { .object([("tag", .string($0.tag)), ("count", .integer(Int64($0.count)))]) }))
        }
        guard !counts.isEmpty else { return Console.note("No tags.") }
        let width = counts.map(\.tag.count).max() ?? 0
        for each in counts {
            Console.out(output.shown(each.tag).padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(each.count))
        }
    }
}
