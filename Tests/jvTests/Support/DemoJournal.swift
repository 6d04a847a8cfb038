// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// An invented year of journal (2026, no real person's text) as a jv-export document for
/// `jv import --format json`: entries on most days with tags, starred ones, analyses whose
/// sentiment rises into summer, and people of the knowledge graph related to entries; with
/// entries of earlier years on the same days as the report's "on this day". The browser test
/// draws it, and README's picture of `jv report` is its screenshot.
enum DemoJournal {
    private static let openings = [
        "Morning run along the river, the fog lifting off the water.", "Long day at the studio; the new layout finally works.",
        "Dinner with Maya and Tom, too much pasta and a good argument about maps.", "Rain all afternoon, read on the sofa with tea.",
        "Planted the tomatoes and the basil; the garden smells of wet earth.", "Call with Dad about the summer trip.",
        "Walked to the market early, bought figs and bread.", "Quiet evening, sketched the view from the balcony.",
        "Train to the coast with Lena, wind and salt and cold hands.", "Finished the book about lighthouses.",
    ]
    private static let endings = [
        "Slept well.", "Tired but happy.", "Need to call Sam back tomorrow.", "The cat ignored me all day.",
        "Wrote three pages before noon.", "Everything felt slower today, in a good way.", "Forgot my umbrella again.",
    ]
    private static let tags = ["run", "work", "family", "reading", "garden", "travel"]
    private static let people = ["Maya", "Tom", "Dad", "Lena", "Sam"]

    /// The document's text.
    static func document() -> String {
        var entries: [JSONValue] = [], analyses: [JSONValue] = [], relations: [JSONValue] = []
        let nodes = (people + ["the coast"]).enumerated().map { index, name in
            (id: UUID().uuidString.lowercased(), name: name, type: index < people.count ? "person" : "place")
        }
        var day = CivilDay(year: 2026, month: 1, day: 1)!
        var number = 0
        while day <= CivilDay(year: 2026, month: 11, day: 30)! {
            let seed = day.daysSinceEpoch
            // About two days in three, more in summer, sometimes twice.
            let threshold = (6...8).contains(day.month) ? 8 : 6
            let writes = (seed * 7 + 3) % 10 < threshold
            for time in 0..<(writes ? (seed % 9 == 0 ? 2 : 1) : 0) {
                number += 1
                let id = UUID().uuidString.lowercased()
                let tag = tags[(seed + time) % tags.count]
                let content = openings[(seed * 3 + time) % openings.count] + " " + endings[(seed + time * 5) % endings.count]
                    + (seed % 4 == 0 ? "\n\n" + endings[(seed / 4) % endings.count] : "") + " #\(tag)"
                entries.append(entry(id: id, at: "\(day)T\(time == 0 ? "08" : "21"):15:00", content: content, starred: number % 23 == 0))
                // Sentiment: low in winter, high in summer, a little noise.
                let mood = -0.4 + 0.9 * sin(Double(day.month - 2) / 11 * .pi) + Double(seed % 5 - 2) / 10
                analyses.append(.object([("id", .string(UUID().uuidString.lowercased())), ("entry_id", .string(id)), ("model", .string("demo")),
                                         ("processed_at", .string("\(day)T23:00:00")),
                                         ("sentiment", .string(SVGWriter.number(min(max(mood, -1), 1)))), ("themes", .array([]))]))
                let person = nodes[(seed * 3 + time) % people.count]
                if seed % 3 != 1 {
                    relations.append(.object([("id", .string(UUID().uuidString.lowercased())), ("from", .string(person.id)),
                                              ("to", .string(nodes.last!.id)), ("type", .string("mentioned_with")),
                                              ("strength", .number(0.8)), ("entry_id", .string(id))]))
                }
            }
            day = day.adding(days: 1)
        }
        for year in [2024, 2025] {
            for (month, dayNumber) in [(12, 4), (12, 31), (6, 15)] {
                entries.append(entry(id: UUID().uuidString.lowercased(), at: "\(CivilDay(year: year, month: month, day: dayNumber)!)T19:00:00",
                                     content: "\(year): " + openings[(year + month + dayNumber) % openings.count], starred: false))
            }
        }
        return JSONValue.object([
            ("format", .string(VaultSnapshot.jvExportFormat)), ("version", .integer(VaultSnapshot.jvExportVersion)),
            ("exported_at", .string("2026-12-01T00:00:00")), ("entries", .array(entries)), ("threads", .array([])),
            ("analyses", .array(analyses)),
            ("nodes", .array(nodes.map { .object([("id", .string($0.id)), ("type", .string($0.type)), ("name", .string($0.name)),
                                                  ("created_at", .string("2026-01-01T00:00:00"))]) })),
            ("relations", .array(relations)),
        ]).serialized()
    }

    private static func entry(id: String, at: String, content: String, starred: Bool) -> JSONValue {
        .object([("id", .string(id)), ("created_at", .string(at)), ("starred", .bool(starred)), ("tags", .array([])),
                 ("content", .string(content))])
    }
}
