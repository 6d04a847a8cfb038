// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

// `UnlockedVault.stats`: words and entries per month, entries per ISO week, and the mean
// sentiment per month of each entry's newest analysis; with `ISOWeek` and `SentimentScore`.

@Suite("JournalStats")
struct JournalStatsTests {
    private static func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDay { CivilDay(year: year, month: month, day: day)! }

    /// 09:00 UTC on `day`, plus `minutes`.
    private static func moment(_ day: CivilDay, minutes: Int = 0) -> Instant {
        let start = Instant.startOf(day, utcOffsetSeconds: 0)
        return Instant(millis: start.millis + Int64(9 * 60 + minutes) * 60_000, utcOffsetSeconds: 0)
    }

    /// Four entries on known days with known word counts (2025-12-29 is in ISO week 2026-W01),
    /// and analyses by two models; each entry's newest analysis decides its sentiment.
    private static func vault() throws -> TemporaryVault {
        let vault = try TemporaryVault()
        let journal = vault.journal
        func entry(_ text: String, _ on: CivilDay, sentiments: [String?]) throws {
            let entry = try journal.addEntry(text, at: moment(on))
            // Analysed a month after the entry, each later than the one before.
            for (index, sentiment) in sentiments.enumerated() {
                try journal.addAnalysis(Analysis(entryID: entry.id, model: index % 2 == 0 ? "llama3" : "mistral",
                                                 processedAt: moment(on.adding(days: 31), minutes: index), sentiment: sentiment))
            }
        }
        try entry("x", day(2025, 12, 29), sentiments: ["positive", "neutral"])
        try entry("one two three", day(2026, 1, 5), sentiments: ["Negative", " positive "])
        try entry("four\nfive", day(2026, 1, 6), sentiments: ["0.5"])
        try entry("a b c d e", day(2026, 2, 2), sentiments: ["positive", "calm"])
        return vault
    }

    @Test("words and entries per month; entries per week from the first entry's week to the last's when a range is given")
    func perMonthAndWeekInRange() throws {
        let vault = try Self.vault()
        var query = EntryQuery()
        query.from = .day(Self.day(2025, 12, 1))
        let stats = try vault.journal.stats(query, today: Self.day(2026, 2, 4))
        #expect(stats.entries == 4 && stats.words == 11)
        #expect(stats.perMonth.map(\.month) == ["2025-12", "2026-01", "2026-02"])
        #expect(stats.perMonth.map(\.entries) == [1, 2, 1])
        #expect(stats.wordsPerMonth.map(\.month) == ["2025-12", "2026-01", "2026-02"])
        #expect(stats.wordsPerMonth.map(\.words) == [1, 5, 5])
        #expect(stats.entriesPerWeek.map(\.week) == ["2026-W01", "2026-W02", "2026-W03", "2026-W04", "2026-W05", "2026-W06"])
        #expect(stats.entriesPerWeek.map(\.entries) == [1, 2, 0, 0, 0, 1])
    }

    @Test("without a range, entries per week are the 52 weeks up to today's")
    func lastFiftyTwoWeeks() throws {
        let vault = try Self.vault()
        let stats = try vault.journal.stats(today: Self.day(2026, 2, 4))
        #expect(stats.entriesPerWeek.count == 52)
        #expect(stats.entriesPerWeek.first?.week == "2025-W07" && stats.entriesPerWeek.last?.week == "2026-W06")
        #expect(stats.entriesPerWeek.suffix(6).map(\.entries) == [1, 2, 0, 0, 0, 1])
        #expect(stats.entriesPerWeek.map(\.entries).reduce(0, +) == 4)
    }

    @Test("sentiment per month: by the entry's day, the newest analysis per entry, unscored sentiments left out")
    func sentimentPerMonth() throws {
        let vault = try Self.vault()
        let stats = try vault.journal.stats(today: Self.day(2026, 2, 4))
        // December: neutral (0) replaced positive. January: positive (+1) replaced negative, and 0.5.
        // February: "calm" replaced positive and has no score, so February has none.
        #expect(stats.sentimentPerMonth.map(\.month) == ["2025-12", "2026-01"])
        #expect(stats.sentimentPerMonth.map(\.mean) == [0, 0.75])
        #expect(stats.sentimentPerMonth.map(\.entries) == [1, 2])
        var january = EntryQuery()
        january.from = .day(Self.day(2026, 1, 6))
        #expect(try vault.journal.stats(january, today: Self.day(2026, 2, 4)).sentimentPerMonth.map(\.mean) == [0.5])
    }

    @Test("no analyses, no entries: no sentiment, no months, and still 52 empty weeks")
    func empty() throws {
        let vault = try TemporaryVault()
        try vault.journal.addEntry("plain words", at: Self.moment(Self.day(2026, 1, 5)))
        let stats = try vault.journal.stats(today: Self.day(2026, 1, 5))
        #expect(stats.sentimentPerMonth.isEmpty)
        #expect(stats.wordsPerMonth.map(\.words) == [2])
        let none = try TemporaryVault().journal.stats(today: Self.day(2026, 1, 5))
        #expect(none.perMonth.isEmpty && none.wordsPerMonth.isEmpty && none.entriesPerWeek.count == 52)
        #expect(none.entriesPerWeek.allSatisfy { $0.entries == 0 })
    }

    @Test("ISO week names: the week-numbering year is the Thursday's")
    func isoWeeks() {
        #expect(ISOWeek.name(of: Self.day(2027, 1, 1)) == "2026-W53")
        #expect(ISOWeek.name(of: Self.day(2024, 12, 30)) == "2025-W01")
        #expect(ISOWeek.name(of: Self.day(2021, 1, 3)) == "2020-W53")
        #expect(ISOWeek.name(of: Self.day(2026, 1, 4)) == "2026-W01")
        #expect(ISOWeek.name(of: Self.day(2026, 12, 31)) == "2026-W53")
        #expect(ISOWeek.monday(of: Self.day(2026, 1, 4)) == Self.day(2025, 12, 29))
    }

    @Test("sentiment scores: numbers from -1 to 1, the three labels in any case, nothing else")
    func scores() {
        #expect(SentimentScore.score("positive") == 1 && SentimentScore.score("NEUTRAL") == 0 && SentimentScore.score(" negative\n") == -1)
        #expect(SentimentScore.score("-0.25") == -0.25 && SentimentScore.score("1") == 1)
        #expect(SentimentScore.score("calm") == nil && SentimentScore.score("2") == nil && SentimentScore.score("nan") == nil)
        #expect(SentimentScore.score("") == nil)
    }
}
