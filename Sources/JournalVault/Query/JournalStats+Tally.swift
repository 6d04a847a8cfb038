// SPDX-License-Identifier: Apache-2.0
import Foundation

extension JournalStats {
    /// Words as `jv stats` counts them: runs of characters between white space.
    ///
    /// ```swift
    /// JournalStats.words(in: "Lunch with @anna.\nLong talk.")   // 5
    /// ```
    public static func words(in text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).count
    }

    /// The figures gathered one entry at a time, so that a walk over the entries that does more
    /// (``UnlockedVault/report(of:today:measures:)``) gives `jv stats`'s numbers without a
    /// second decrypting pass.
    struct Tally {
        /// Each entry's score from its newest analysis (``UnlockedVault/newestSentimentScores(_:)``).
        let scores: [UUID: Double]
        private var figures = JournalStats()
        private var days = Set<CivilDay>()
        private var months: [String: (entries: Int, words: Int)] = [:]
        private var weeks: [CivilDay: Int] = [:]
        private var sentiments: [String: (sum: Double, entries: Int)] = [:]

        init(scores: [UUID: Double]) {
            self.scores = scores
        }

        /// Counts one entry in: its id, local day and ``JournalStats/words(in:)``.
        mutating func add(id: UUID, day: CivilDay, words: Int) {
            let month = String(day.description.prefix(7))
            figures.entries += 1
            figures.words += words
            days.insert(day)
            months[month, default: (0, 0)].entries += 1
            months[month, default: (0, 0)].words += words
            weeks[ISOWeek.monday(of: day), default: 0] += 1
            if let score = scores[id] {
                sentiments[month, default: (0, 0)].sum += score
                sentiments[month, default: (0, 0)].entries += 1
            }
        }

        /// The figures of the entries counted in; `query`'s bounds and `today` decide the
        /// current streak and the weeks, as ``UnlockedVault/stats(_:today:)`` says.
        func stats(query: EntryQuery, today: CivilDay) -> JournalStats {
            var stats = figures
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
            stats.sentimentPerMonth = sentiments.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sum / Double($0.value.entries), $0.value.entries) }
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
    }
}
