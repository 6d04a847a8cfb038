// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
@testable import JournalVault

/// The figures the session agent keeps for `jv stats` (``SessionFigures``): brought up to date as
/// its index is, they give the very figures of the decrypting walk, and whether entries span UTC
/// offsets as the file says, for every kind of period, through adds, edits, re-analyses, deletes
/// and measures set and cleared.
@Suite("session figures")
struct SessionFiguresTests {
    private static func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDay { CivilDay(year: year, month: month, day: day)! }

    /// The agent's side: the vault opened as the index thread opens it, its index and figures.
    private final class Agent {
        let source: SessionIndexSource
        let index = try! SearchIndex()
        let figures = SessionFigures()

        init(_ vault: TemporaryVault) throws {
            // At this process's priority: the agent's decrypting threads lower theirs for good,
            // and the test runner's threads would carry that into the processes they start.
            source = try #require(try SessionIndexSource.open(vault.path, key: vault.journal.keys.masterKey,
                                                              keyVersion: vault.journal.keys.keyVersion, yieldingTheCores: false))
        }

        func refresh() throws { _ = try source.update(index, figures) }
    }

    /// Periods of every form a command sends: none, days, a month, moments, a run of days.
    private static let periods: [(from: DateExpression?, to: DateExpression?)] = [
        (nil, nil),
        (.day(day(2026, 1, 1)), nil),
        (nil, .day(day(2026, 1, 31))),
        (.days(day(2026, 1, 1)...day(2026, 1, 31)), .days(day(2026, 1, 1)...day(2026, 1, 31))),
        (.instant(Instant(millis: 1_767_600_000_000, utcOffsetSeconds: 3600)), .instant(Instant(millis: 1_770_000_000_000, utcOffsetSeconds: -18_000))),
        (.day(day(2027, 1, 1)), nil),
        (.day(day(2026, 2, 1)), nil),
    ]

    /// Every figure of `stats`, printed: equal texts are equal figures, to the last bit of each mean.
    private static func text(_ stats: JournalStats) -> String {
        String(describing: stats)
    }

    private func expectSameFigures(_ vault: TemporaryVault, _ agent: Agent, _ moment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try agent.refresh()
        let today = Self.day(2026, 2, 3)
        for period in Self.periods {
            var query = EntryQuery()
            (query.from, query.to) = (period.from, period.to)
            let kept = agent.figures.stats(SessionWire.StatsQuery(from: period.from, to: period.to, today: today))
            let walked = try vault.journal.stats(query, today: today)
            #expect(Self.text(kept) == Self.text(walked), "\(moment), \(period)", sourceLocation: sourceLocation)
            #expect(agent.figures.spansZones(SessionWire.Period(from: period.from, to: period.to)) == (try vault.journal.entriesSpanZones(query)),
                    "\(moment), \(period): whether the entries span UTC offsets", sourceLocation: sourceLocation)
        }
    }

    @Test("the kept figures are the walk's for every period, through adds, edits, re-analyses, deletes and measures")
    func keptFiguresAreTheWalks() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let agent = try Agent(vault)
        var random = SeededGenerator(seed: 77)
        var entries: [Entry] = []
        let start = Instant.startOf(Self.day(2025, 12, 1), utcOffsetSeconds: 3600).millis
        for index in 0..<60 {
            let words = (0..<Int.random(in: 0...12, using: &random)).map { _ in ["tea", "café", "東京", "🙂", "walk", "e\u{301}"].randomElement(using: &random)! }
            // Some entries share a moment: the walk's order then goes by id.
            let millis = start + Int64(index / 2) * 86_400_000 + Int64.random(in: 0..<3_600_000, using: &random) * Int64(index % 2)
            var measures = Measures()
            if index % 3 != 0 { try measures.set("mood", to: .number(Double(Int.random(in: 1...10, using: &random)) / 3)) }
            if index % 4 == 0 { try measures.set("sleep", to: .number(7.1)) }
            if index % 5 == 0 { try measures.set("weather", to: .text("rain")) }
            let entry = try journal.addEntry(words.isEmpty ? "." : words.joined(separator: " "),
                                             at: Instant(millis: millis, utcOffsetSeconds: [0, 3600, -28_800][index % 3]), measures: measures)
            entries.append(entry)
            for run in 0..<(index % 4) {
                try journal.addAnalysis(Analysis(entryID: entry.id, model: run % 2 == 0 ? "a" : "b",
                                                 processedAt: Instant(millis: millis + Int64(run) * 1000, utcOffsetSeconds: 0),
                                                 sentiment: ["0.3", "positive", "calm", nil, "-0.7"][(index + run) % 5]))
            }
        }
        try expectSameFigures(vault, agent, "after the first build")

        try journal.updateEntry(id: entries[1].id, content: "now a much longer text of words")
        try journal.updateEntry(id: entries[2].id, created: Instant(millis: start - 86_400_000 * 40, utcOffsetSeconds: 0))
        try journal.updateEntry(id: entries[4].id, settingMeasures: Measures.assignments(["mood=9.25", "energy=2"]))
        try journal.updateEntry(id: entries[5].id, removingMeasures: ["mood"])
        try journal.deleteEntry(id: entries[7].id)
        try journal.addAnalysis(Analysis(entryID: entries[8].id, model: "c", processedAt: Instant(millis: start * 2, utcOffsetSeconds: 0), sentiment: "negative"))
        var ofThird = AnalysisQuery()
        ofThird.entryID = entries[3].id
        for analysis in try journal.analyses(ofThird) { try journal.deleteAnalysis(id: analysis.id) }
        try journal.addEntry("late entry", at: Instant(millis: start + 70 * 86_400_000, utcOffsetSeconds: 0), measures: Measures.assignments(["mood=1"]))
        try expectSameFigures(vault, agent, "after edits, deletes and analyses")
    }

    @Test("a record whose sealed field fails to open since the last look stops the figures from being current")
    func tamperedMeasuresAreNotCounted() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("one", measures: Measures.assignments(["mood=3"]))
        let agent = try Agent(vault)
        try agent.refresh()
        try vault.journal.updateEntry(id: entry.id, settingMeasures: Measures.assignments(["mood=4"]))
        // The new sealed fields, its last byte changed: a new fingerprint whose record does not open.
        try vault.execute("UPDATE measure SET fields = substr(fields, 1, length(fields) - 1) || x'00'")
        #expect(throws: VaultError.self) { try agent.refresh() }
    }
}
