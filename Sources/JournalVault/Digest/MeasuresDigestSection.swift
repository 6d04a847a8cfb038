// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The measures of a digest's entries (`jv add --field mood=7`), field by field as `jv fields`
/// sums them up (``MeasureSummary``): a line per field, its summaries as the section's JSON; no
/// section when no entry of the period has a measure.
///
/// ```swift
/// let digest = try journal.digest(of: week, sections: [MeasuresDigestSection()])
/// // Measures:
/// //   mood: 4 entries; mean 6.50, from 4 to 8
/// ```
public struct MeasuresDigestSection: DigestSectionSource {
    public init() {}

    public func section(for period: DigestPeriod, entries: [Entry], in vault: UnlockedVault) throws -> DigestSection? {
        var query = EntryQuery()
        query.on = period.days
        let ids = Set(entries.map(\.id))
        let fields = MeasureSummary.of(try vault.measures(matching: query).filter { ids.contains($0.key) }.values)
        guard !fields.isEmpty else { return nil }
        return DigestSection(title: "Measures", lines: fields.map(Self.line), json: .array(fields.map(\.json)))
    }

    static func line(_ field: MeasureSummary) -> String {
        var parts = ["\(field.name): \(field.entries) \(field.entries == 1 ? "entry" : "entries")"]
        if let numbers = field.numbers {
            parts.append("mean " + String(format: "%.2f", numbers.mean) + ", from " + MeasureValue.number(numbers.minimum).shown
                         + " to " + MeasureValue.number(numbers.maximum).shown)
        }
        if let common = field.texts.first { parts.append("most often \(common.text) (\(common.count))") }
        if field.yes + field.no > 0 { parts.append("yes \(field.yes), no \(field.no)") }
        return parts.joined(separator: "; ")
    }
}
