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
    /// `today` (the caller's local day) decides the current streak and the default weeks. One
    /// decrypting walk over the entries, the analyses and measures read once before it.
    ///
    /// ```swift
    /// let stats = try journal.stats(today: CivilDay(year: 2026, month: 11, day: 25)!)
    /// print(stats.entries, stats.currentStreak, stats.entriesPerWeek.count)   // … 52
    /// ```
    public func stats(_ query: EntryQuery = EntryQuery(), today: CivilDay) throws -> JournalStats {
        var stats = JournalStats()
        var days = Set<CivilDay>()
        var months: [String: (entries: Int, words: Int)] = [:]
        var weeks: [CivilDay: Int] = [:]
        var sentiments: [String: (sum: Double, entries: Int)] = [:]
        let scores = try newestSentimentScores(query)
        let measured = try measures(matching: query)
        var numbers: [String: [String: (sum: Double, entries: Int)]] = [:]
        try forEachEntry(matching: query) { entry in
            let words = entry.wordCount
            let month = String(entry.localDay.description.prefix(7))
            stats.entries += 1
            stats.words += words
            days.insert(entry.localDay)
            months[month, default: (0, 0)].entries += 1
            months[month, default: (0, 0)].words += words
            weeks[ISOWeek.monday(of: entry.localDay), default: 0] += 1
            if let score = scores[entry.id] {
                sentiments[month, default: (0, 0)].sum += score
                sentiments[month, default: (0, 0)].entries += 1
            }
            for (name, value) in measured[entry.id]?.values ?? [:] {
                guard let number = value.number else { continue }
                numbers[name, default: [:]][month, default: (0, 0)].sum += number
                numbers[name, default: [:]][month, default: (0, 0)].entries += 1
            }
        }
        let sorted = days.sorted()
        stats.daysWritten = sorted.count
        stats.firstDay = sorted.first
        stats.lastDay = sorted.last
        var run = 0
        var previous: CivilDay?
        // The current streak ends today or yesterday: an entry dated in the future is no part of it.
        var latestUpToToday: (day: CivilDay, run: Int)?
        for day in sorted {
            run = previous.map { day.daysSinceEpoch - $0.daysSinceEpoch == 1 } == true ? run + 1 : 1
            stats.longestStreak = max(stats.longestStreak, run)
            if day.daysSinceEpoch <= today.daysSinceEpoch { latestUpToToday = (day, run) }
            previous = day
        }
        if let latest = latestUpToToday, today.daysSinceEpoch - latest.day.daysSinceEpoch <= 1 { stats.currentStreak = latest.run }
        let byMonth = months.sorted { $0.key < $1.key }
        stats.perMonth = byMonth.map { ($0.key, $0.value.entries) }
        stats.wordsPerMonth = byMonth.map { ($0.key, $0.value.words) }
        stats.sentimentPerMonth = Self.monthlyMeans(sentiments)
        stats.measuresPerMonth = numbers.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map { ($0.key, Self.monthlyMeans($0.value)) }
        let weekRange: (first: CivilDay, last: CivilDay)?
        if query.from == nil, query.to == nil {
            let last = ISOWeek.monday(of: today)
            weekRange = (last.adding(days: -7 * 51), last)
        } else {
            weekRange = sorted.first.flatMap { first in sorted.last.map { (ISOWeek.monday(of: first), ISOWeek.monday(of: $0)) } }
        }
        if let weekRange {
            stats.entriesPerWeek = stride(from: weekRange.first.daysSinceEpoch, through: weekRange.last.daysSinceEpoch, by: 7).map {
                let monday = CivilDay(daysSinceEpoch: $0)
                return (ISOWeek.name(of: monday), weeks[monday] ?? 0)
            }
        }
        return stats
    }

    /// Sums and counts per month as means, oldest first.
    private static func monthlyMeans(_ months: [String: (sum: Double, entries: Int)]) -> [(month: String, mean: Double, entries: Int)] {
        months.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sum / Double($0.value.entries), $0.value.entries) }
    }

    /// Each entry's sentiment score from its newest analysis (by processing time, whatever the
    /// model); an entry whose newest analysis has no sentiment, or one without a score
    /// (``SentimentScore``), has none.
    private func newestSentimentScores(_ query: EntryQuery) throws -> [UUID: Double] {
        var analysisQuery = AnalysisQuery()
        (analysisQuery.entryFrom, analysisQuery.entryTo) = (query.from, query.to)
        var newest: [UUID: String?] = [:]
        // Oldest first by processing time: a later analysis replaces an earlier one.
        for analysis in try analyses(analysisQuery) { newest[analysis.entryID] = .some(analysis.sentiment) }
        return newest.compactMapValues { $0.flatMap(SentimentScore.score) }
    }
}
