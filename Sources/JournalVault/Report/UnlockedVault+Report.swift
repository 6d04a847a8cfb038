// SPDX-License-Identifier: Apache-2.0
import Foundation

extension UnlockedVault {
    /// The report of `period` (``YearReport``): one decrypting walk over its entries gives the
    /// figures `jv stats` gives for it, the entries and words of every day, the tags and people
    /// of every month and the starred entries; the analyses (for sentiment), the relations
    /// learnt from the period's entries (for people) and the list of its images are read before
    /// it; after it, the thumbnails of the images shown, the on-this-day entries (a few, from
    /// earlier years). `today` (the caller's local day) decides the current streak and the day
    /// on-this-day looks back from. The measures are each numeric field's mean per month, as
    /// `jv stats` gives them (dated the month's first day).
    ///
    /// ```swift
    /// let year = CivilDay(year: 2026, month: 1, day: 1)!...CivilDay(year: 2026, month: 12, day: 31)!
    /// let report = try journal.report(of: year, today: Instant.now().localDay)
    /// print(report.stats.entries, report.starred.count, report.photos.count)
    /// ```
    public func report(of period: ClosedRange<CivilDay>, today: CivilDay) throws -> YearReport {
        var report = YearReport(period: period, today: today)
        var query = EntryQuery()
        (query.from, query.to) = (.day(period.lowerBound), .day(period.upperBound))
        var tally = try statsTally(query)
        let people = try peopleByEntry(in: period)
        let (photos, images) = try photoCandidates(in: period)
        var photoDays: [UUID: CivilDay] = [:]
        let photoEntries = Set(photos.map(\.attachment.entryID))
        // On the decrypting threads: the counts each entry gives, its text only when it is shown.
        try forEachEntry(matching: query, transform: { entry in
            (id: entry.id, day: entry.localDay, words: entry.wordCount, tags: entry.tags,
             starred: entry.starred ? entry : nil)
        }) { facts in
            tally.add(id: facts.id, day: facts.day, words: facts.words)
            report.days[facts.day, default: YearReport.Day()].entries += 1
            report.days[facts.day, default: YearReport.Day()].words += facts.words
            let month = report.monthIndex(of: facts.day)
            for tag in facts.tags { report.tags.add(tag, month: month) }
            for person in people[facts.id] ?? [] { report.people.add(person, month: month) }
            if let starred = facts.starred {
                if report.starred.count < YearReport.starredLimit { report.starred.append(starred) } else { report.starredLeftOut += 1 }
            }
            if photoEntries.contains(facts.id) { photoDays[facts.id] = facts.day }
        }
        report.stats = tally.stats(query: query, today: today)
        for (attachment, hasThumbnail) in Self.spread(photos, keeping: YearReport.photoLimit) {
            guard let day = photoDays[attachment.entryID] else { continue }
            report.photos.append(try photo(attachment, hasThumbnail: hasThumbnail, day: day))
        }
        report.photosLeftOut = images - report.photos.count
        var earlier = EntryQuery()
        earlier.onThisDay = report.onThisDayReference
        earlier.limit = YearReport.onThisDayLimit
        try forEachEntry(matching: earlier, order: .newestFirst) { report.onThisDay.append($0) }
        report.measures = report.stats.measuresPerMonth.map { measure in
            MeasureSeries(name: measure.name, points: measure.months.compactMap { month in
                CivilDay(iso: month.month + "-01").map { MeasureSeries.Point(day: $0, value: month.mean) }
            })
        }
        return report
    }

    /// The names of the people (`person` nodes) at either end of each relation learnt from an
    /// entry of `period`, per entry, each name once.
    private func peopleByEntry(in period: ClosedRange<CivilDay>) throws -> [UUID: [String]] {
        let relations = try relations(learntFromEntriesOn: period)
        guard !relations.isEmpty else { return [:] }
        let names = Dictionary(try nodes(type: "person").map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var people: [UUID: [String]] = [:]
        for relation in relations {
            guard let entry = relation.entryID else { continue }
            for name in [relation.from, relation.to].compactMap({ names[$0] }) where people[entry]?.contains(name) != true {
                people[entry, default: []].append(name)
            }
        }
        return people
    }

    /// The period's image attachments that the report can show — with a thumbnail, or tiny, in
    /// the vault and of a type a page shows —, each with whether it has a thumbnail; and how
    /// many images there are in all. The thumbnails are not kept: a year may have thousands.
    private func photoCandidates(in period: ClosedRange<CivilDay>) throws -> (shown: [(attachment: Attachment, hasThumbnail: Bool)], images: Int) {
        var candidates: [(attachment: Attachment, hasThumbnail: Bool)] = []
        var images = 0
        try forEachAttachment(AttachmentQuery(from: period.lowerBound, to: period.upperBound, kind: .image)) { attachment, thumbnail in
            images += 1
            if !thumbnail.isEmpty {
                candidates.append((attachment, true))
            } else if attachment.stored, attachment.size <= YearReport.tinyImage, Self.shownImageTypes.contains(attachment.mediaType) {
                candidates.append((attachment, false))
            }
        }
        return (candidates, images)
    }

    /// Media types a page shows in an `img` from a data URI (no SVG: an image that is a document).
    private static let shownImageTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// What the report shows of an image: its thumbnail (a JPEG), else the file itself.
    private func photo(_ attachment: Attachment, hasThumbnail: Bool, day: CivilDay) throws -> YearReport.Photo {
        if hasThumbnail {
            return YearReport.Photo(day: day, name: attachment.name, mediaType: "image/jpeg", bytes: try attachmentThumbnail(id: attachment.id))
        }
        var bytes: [UInt8] = []
        try readAttachment(id: attachment.id) { bytes += $0 }
        return YearReport.Photo(day: day, name: attachment.name, mediaType: attachment.mediaType, bytes: bytes)
    }

    /// At most `limit` of `items`, spread evenly from the first to the last, in order.
    static func spread<Item>(_ items: [Item], keeping limit: Int) -> [Item] {
        guard items.count > limit, limit > 0 else { return items }
        guard limit > 1 else { return [items[0]] }
        return (0..<limit).map { items[$0 * (items.count - 1) / (limit - 1)] }
    }
}
