// SPDX-License-Identifier: Apache-2.0
/// Figures about the entries a query selects (``UnlockedVault/stats(_:today:)``, `jv stats`).
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
}

extension UnlockedVault {
    /// Entries, words, days written, streaks and entries per month of the entries `query`
    /// selects; `today` (the caller's local day) decides the current streak.
    ///
    /// ```swift
    /// let stats = try journal.stats(today: CivilDay(year: 2026, month: 11, day: 25)!)
    /// print(stats.entries, stats.currentStreak)
    /// ```
    public func stats(_ query: EntryQuery = EntryQuery(), today: CivilDay) throws -> JournalStats {
        var stats = JournalStats()
        var days = Set<CivilDay>()
        var months: [String: Int] = [:]
        for entry in try entries(query) {
            stats.entries += 1
            stats.words += entry.content.split(whereSeparator: \.isWhitespace).count
            days.insert(entry.localDay)
            months[String(entry.localDay.description.prefix(7)), default: 0] += 1
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
        stats.perMonth = months.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return stats
    }
}
