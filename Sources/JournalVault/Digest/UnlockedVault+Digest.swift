// SPDX-License-Identifier: Apache-2.0
import Foundation

extension UnlockedVault {
    /// The digest of `period`: its entries (by their local day), their tags, the sentiments and
    /// themes of each entry's newest analysis, the people the relations learnt from them join,
    /// and what each of `sections` adds. One decrypting pass over the entries; the analyses and
    /// the graph are read once.
    ///
    /// ```swift
    /// let week = DigestPeriod(containing: Instant.now().localDay, kind: .week)
    /// let digest = try journal.digest(of: week)
    /// print(digest.items.count, digest.words)
    /// ```
    public func digest(of period: DigestPeriod, sections: [any DigestSectionSource] = []) throws -> Digest {
        var query = EntryQuery()
        query.on = period.days
        let entries = try entries(query)
        let ids = Set(entries.map(\.id))

        var analysisQuery = AnalysisQuery()
        (analysisQuery.entryFrom, analysisQuery.entryTo) = (.day(period.first), .day(period.last))
        var newest: [UUID: Analysis] = [:]
        // Oldest first by processing time: a later analysis of an entry replaces an earlier one.
        for analysis in try analyses(analysisQuery) where ids.contains(analysis.entryID) { newest[analysis.entryID] = analysis }
        var sentiments: [String: Int] = [:]
        var themes: [String: Int] = [:]
        var scores: [Double] = []
        for analysis in newest.values {
            if let sentiment = analysis.sentiment {
                sentiments[sentiment, default: 0] += 1
                if let score = SentimentScore.score(sentiment) { scores.append(score) }
            }
            for theme in Set(analysis.themes) { themes[theme, default: 0] += 1 }
        }

        // Only the relations learnt from the period's entries are decrypted, not the whole graph's.
        let joined = Set(try relations(learntFromEntriesOn: period.days).flatMap { [$0.from, $0.to] })
        let people = try nodes(type: "person").filter { joined.contains($0.id) }.map(\.name)

        return Digest(
            period: period,
            items: entries.map { Digest.Item(id: $0.id, day: $0.localDay, title: $0.title, body: $0.body, tags: $0.tags) },
            words: entries.reduce(0) { $0 + $1.wordCount }, daysWritten: Set(entries.map(\.localDay)).count,
            tags: TagCount.counting(entries), sentiments: Digest.ranked(sentiments),
            meanSentiment: scores.isEmpty ? nil : (scores.reduce(0, +) / Double(scores.count), scores.count),
            themes: Digest.ranked(themes), people: Array(Set(people)).sorted(),
            sections: try sections.compactMap { try $0.section(for: period, entries: entries, in: self) })
    }
}
