// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// What `jv stats` needs of each record, kept in the session agent's memory beside its search
/// index (SECURITY.md "Sessions"), so that a command in a session gets the figures of a period
/// without decrypting the vault: each entry's time of writing and words, each entry's numeric
/// measures, and each analysis's entry, order and sentiment score.
///
/// Brought up to date with the index, by the same rule: entries as their documents are
/// decrypted for it (the same fingerprints, the same vanished records), measures and analyses
/// by the fingerprints of their own sealed fields, only the new and changed ones decrypted. A
/// record is counted as it was when it was decrypted and verified.
///
/// Not `Sendable`: one owner (the session agent's index thread) uses it.
///
/// ```swift
/// let figures = SessionFigures()
/// try journal.forEachSearchDocument(of: .entry, transform: SessionFigures.EntryFigures.init) { figures.set($0) }
/// try figures.update(journal, analysisFingerprints: try journal.storedSearchFingerprints(of: .analysis))
/// let stats = figures.stats(SessionWire.StatsQuery(from: nil, to: nil, today: today))
/// ```
final class SessionFigures {
    /// An entry's figures, made from its search document where it is decrypted.
    struct EntryFigures: Sendable {
        let id: UUID
        let created: Instant
        let words: Int

        /// Nil for another kind's document, or a key that is not an id.
        init?(_ document: SearchDocument) {
            guard document.kind == .entry, let id = UUID(storageText: document.key) else { return nil }
            (self.id, created, words) = (id, document.time, JournalStats.words(in: document.text))
        }
    }

    private struct MeasureFigures: FingerprintedFigures {
        let fingerprint: [UInt8]
        let entryID: UUID
        let numbers: [(name: String, value: Double)]
    }

    private struct AnalysisFigures: FingerprintedFigures {
        let fingerprint: [UInt8]
        let entryID: UUID
        /// Newest last, as ``UnlockedVault/newestSentimentScores(_:)`` orders them: processing time, then id.
        let order: (processedAt: Int64, key: String)
        let score: Double?
    }

    private var entries: [UUID: EntryFigures] = [:]
    /// By the measure record's stored id.
    private var measures: [String: MeasureFigures] = [:]
    /// By the analysis's stored id.
    private var analyses: [String: AnalysisFigures] = [:]

    /// Records (or replaces) the figures of entries whose documents were just decrypted.
    func set(_ figures: [EntryFigures]) {
        for entry in figures { entries[entry.id] = entry }
    }

    /// Forgets the entries of these stored ids (deleted from the vault).
    func removeEntries(_ keys: [String]) {
        for id in keys.compactMap(UUID.init(storageText:)) { entries[id] = nil }
    }

    /// Brings the measures and analyses up to what the vault holds: the stored fingerprints
    /// against the kept ones, the changed records decrypted and the vanished ones forgotten.
    /// `analysisFingerprints` are the analyses' as the index's refresh just read them (the
    /// index is fed by the same sealed field), nil when the analyses did not change, as
    /// `measuresChanged` says of the measures (``SessionTableLooks``). A record that fails
    /// verification throws, and the figures are not current.
    func update(_ journal: UnlockedVault, measuresChanged: Bool, analysisFingerprints: [String: [UInt8]]?) throws {
        try journal.database.read { db in
            if measuresChanged {
                let measureFingerprints = try SearchDocument.fingerprints(table: MeasureRow.table, field: "fields", db)
                try Self.update(&measures, stored: measureFingerprints, db) { (row: MeasureRow, fingerprint) in
                    MeasureFigures(fingerprint: fingerprint, entryID: try row.entryID(), numbers: try row.decrypt(keys: journal.keys).numbers)
                }
            }
            guard let analysisFingerprints else { return }
            try Self.update(&analyses, stored: analysisFingerprints, db) { (row: AnalysisRow, fingerprint) in
                let analysis = try row.decrypt(keys: journal.keys)
                return AnalysisFigures(fingerprint: fingerprint, entryID: analysis.entryID, order: (analysis.processedAt.millis, row.id.storageText),
                                       score: analysis.sentiment.flatMap(SentimentScore.score))
            }
        }
    }

    /// One table's figures brought up to `stored`: those of vanished records dropped, those of
    /// new and changed records made by `make` from the row and its fingerprint.
    private static func update<Row: SealedRecordRow, Figures: FingerprintedFigures>(
        _ kept: inout [String: Figures], stored: [String: [UInt8]], _ db: Database, make: (Row, [UInt8]) throws -> Figures
    ) throws {
        kept = kept.filter { stored[$0.key] != nil }
        let changed = stored.compactMap { key, fingerprint in kept[key]?.fingerprint == fingerprint ? nil : key }
        try Row.forEach(ids: changed, db) { row in
            let key = row.id.storageText
            kept[key] = try make(row, stored[key] ?? [])
        }
    }

    /// The figures of the entries the period selects, as ``UnlockedVault/stats(_:today:)``
    /// gives them: each entry's score from its newest analysis, its numeric measures.
    func stats(_ query: SessionWire.StatsQuery) -> JournalStats {
        var newest: [UUID: AnalysisFigures] = [:]
        for analysis in analyses.values {
            if let kept = newest[analysis.entryID], kept.order > analysis.order { continue }
            newest[analysis.entryID] = analysis
        }
        var numbers: [UUID: [(name: String, value: Double)]] = [:]
        for measure in measures.values { numbers[measure.entryID] = measure.numbers }
        var tally = JournalStats.Tally(scores: newest.compactMapValues(\.score), numbers: numbers)
        let bounds = TimeBounds(from: query.from, to: query.to)
        // In the order the decrypting walk takes (time of writing, then id), so that the means
        // are the same sums to the last bit.
        let selected = entries.values.filter { bounds.includes($0.created) }.sorted { first, second in
            first.created.millis != second.created.millis ? first.created.millis < second.created.millis
                : first.id.bytes.lexicographicallyPrecedes(second.id.bytes)
        }
        for entry in selected { tally.add(id: entry.id, day: entry.created.localDay, words: entry.words) }
        var period = EntryQuery()
        (period.from, period.to) = (query.from, query.to)
        return tally.stats(query: period, today: query.today)
    }

    /// Whether the period's entries were written at more than one UTC offset, as
    /// ``UnlockedVault/entriesSpanZones(_:)`` decides it from the file.
    func spansZones(_ period: SessionWire.Period) -> Bool {
        let bounds = TimeBounds(from: period.from, to: period.to)
        var first: Int?
        for entry in entries.values where bounds.includes(entry.created) {
            guard let offset = first else {
                first = entry.created.utcOffsetSeconds
                continue
            }
            if offset != entry.created.utcOffsetSeconds { return true }
        }
        return false
    }
}

/// Figures kept with the fingerprint of the sealed field they were decrypted from.
private protocol FingerprintedFigures {
    var fingerprint: [UInt8] { get }
}
