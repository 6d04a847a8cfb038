// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv fields`: every field of the entries' measures, with what its values hold.
struct FieldsCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "fields",
        abstract: "List every field the entries have (jv add --field), with its number of entries and its values' range.",
        discussion: """
            Numbers: the lowest, the highest and the mean; texts: how many distinct and the most common; \
            yes/no: how many of each. A field holding values of several kinds shows each.
            """)

    @OptionGroup var options: GlobalOptions

    @OptionGroup var range: EntryRange

    func execute() throws {
        let fields = MeasureSummary.of(try options.unlockedVault(access: .readOnly).measures(matching: range.query()).values)
        let output = options.output
        if output.json { return output.printJSON(.array(fields.map(\.json))) }
        guard !fields.isEmpty else { return Console.note("No fields; add one with 'jv add --field name=value' or 'jv edit ID --field name=value'.") }
        let width = fields.map(\.name.count).max() ?? 0
        for field in fields {
            var parts = [Output.count(field.entries, of: "entries")]
            if let numbers = field.numbers {
                parts.append("\(MeasureValue.number(numbers.minimum).shown)–\(MeasureValue.number(numbers.maximum).shown), mean "
                             + MeasureValue.number((numbers.mean * 100).rounded() / 100).shown)
            }
            if let common = field.texts.first {
                parts.append("\(field.texts.count) distinct, most often '\(output.shown(common.text))' (\(common.count))")
            }
            if field.yes + field.no > 0 { parts.append("yes \(field.yes), no \(field.no)") }
            Console.out(output.shown(field.name).padding(toLength: width, withPad: " ", startingAt: 0) + "  " + parts.joined(separator: "; "))
        }
    }
}
