// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Figures about the entries a query selects (``UnlockedVault/stats(_:today:)``, `jv stats`).
///
/// ```swift
/// let stats = try journal.stats(today: CivilDay(year: 2026, month: 11, day: 25)!)
/// stats.wordsPerMonth.last?.words   // words written in the latest month
/// ```
public struct JournalStats: Sendable {
    public var entries = 0
    /// Words, counted as runs of letters, digits and marks between white space.
    public var words = 0
    /// Days with at least one entry (the writer's local days).
    public var daysWritten = 0
    public var firstDay: CivilDay?
    public var lastDay: CivilDay?
    /// The most days written in a row.
    public var longestStreak = 0
    /// Days written in a row up to today, or up to yesterday when today has no entry yet.
    public var currentStreak = 0
    /// Entries per month, `YYYY-MM` → count, oldest first.
    public var perMonth: [(month: String, entries: Int)] = []
    /// Words per month, `YYYY-MM` → words, oldest first (the same months as ``perMonth``).
    public var wordsPerMonth: [(month: String, words: Int)] = []
    /// Entries per ISO week (`YYYY-Www`, Monday first), oldest first, empty weeks included:
    /// the 52 weeks up to today's when the query has no `from` or `to`, else the weeks from
    /// the first entry's to the last's.
    public var entriesPerWeek: [(week: String, entries: Int)] = []
    /// Per month (the entry's local day), the mean ``SentimentScore`` of the entries whose
    /// newest analysis has a score, and how many they are; oldest first, months without one left out.
    public var sentimentPerMonth: [(month: String, mean: Double, entries: Int)] = []
    /// Per field of the entries' measures that holds a number, by name: per month (the entry's
    /// local day), the mean of its numbers and how many entries gave one; oldest first, months
    /// without one left out.
    public var measuresPerMonth: [(name: String, months: [(month: String, mean: Double, entries: Int)])] = []
}

extension UnlockedVault {
    /// Entries, words, days written, streaks, entries and words per month, entries per week,
    /// sentiment per month and each numeric measure per month of the entries `query` selects;
    /// `today` (the caller's local day) decides the current streak and the default weeks.
    ///
    /// In a session, a query of dates only is answered by the agent from the figures it keeps
    /// beside its index (``SessionFigures``), current with the file as it answers; else (no
    /// session, its index not built yet, other conditions) one decrypting walk over the
    /// entries, the analyses and measures read once before it, gives the same figures.
    ///
    /// ```swift
    /// let stats = try journal.stats(today: CivilDay(year: 2026, month: 11, day: 25)!)
    /// print(stats.entries, stats.currentStreak, stats.entriesPerWeek.count)   // … 52
    /// ```
    public func stats(_ query: EntryQuery = EntryQuery(), today: CivilDay) throws -> JournalStats {
        if query.selectsByDatesOnly, let stats = session?.stats(SessionWire.StatsQuery(from: query.from, to: query.to, today: today)) {
            return stats
        }
        var tally = try statsTally(query)
        try forEachEntry(matching: query, transform: { ($0.id, $0.localDay, $0.wordCount) }) { tally.add(id: $0.0, day: $0.1, words: $0.2) }
        return tally.stats(query: query, today: today)
    }

    /// A tally for the entries `query` selects, with their newest analyses' scores and their
    /// measures' numbers, before any entry is counted in.
    func statsTally(_ query: EntryQuery) throws -> JournalStats.Tally {
        JournalStats.Tally(scores: try newestSentimentScores(query), numbers: try measures(matching: query).mapValues(\.numbers))
    }

    /// Each entry's sentiment score from its newest analysis (by processing time, whatever the
    /// model); an entry whose newest analysis has no sentiment, or one without a score
    /// (``SentimentScore``), has none.
    func newestSentimentScores(_ query: EntryQuery) throws -> [UUID: Double] {
        var analysisQuery = AnalysisQuery()
        (analysisQuery.entryFrom, analysisQuery.entryTo) = (query.from, query.to)
        var newest: [UUID: String?] = [:]
        // Oldest first by processing time: a later analysis replaces an earlier one.
        for analysis in try analyses(analysisQuery) { newest[analysis.entryID] = .some(analysis.sentiment) }
        return newest.compactMapValues { $0.flatMap(SentimentScore.score) }
    }
}
