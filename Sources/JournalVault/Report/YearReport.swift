// SPDX-License-Identifier: Apache-2.0
/// What `jv report` shows of a period (a year, or any run of days): ``UnlockedVault/report(of:today:measures:)``
/// gathers it in one decrypting walk over the period's entries, keeping counts and only the few
/// entries it shows in full (bounded by ``starredLimit``, ``onThisDayLimit``, ``photoLimit``),
/// so its size does not grow with the number of entries; ``ReportHTML`` draws it.
///
/// ```swift
/// let year = CivilDay(year: 2026, month: 1, day: 1)!...CivilDay(year: 2026, month: 12, day: 31)!
/// let report = try journal.report(of: year, today: Instant.now().localDay)
/// report.stats.words            // the words written in 2026, as `jv stats --from 2026 --to 2026` counts them
/// report.tags.top(5, inMonth: 0)   // January's five most used tags
/// ```
public struct YearReport: Sendable {
    /// The most starred entries shown in full (the period's first ones).
    public static let starredLimit = 100
    /// The most on-this-day entries shown (the newest).
    public static let onThisDayLimit = 10
    /// The most photos shown (spread over the period).
    public static let photoLimit = 48
    /// A photo without a thumbnail is shown from its own file only up to this size.
    public static let tinyImage: Int64 = 48 * 1024

    /// Entries and words of one day.
    public struct Day: Sendable, Hashable {
        public var entries = 0
        public var words = 0
    }

    /// An image attached to an entry of the period, as a thumbnail (or the image itself when
    /// it is smaller than ``YearReport/tinyImage``).
    public struct Photo: Sendable, Hashable {
        /// The day of the entry it is attached to.
        public var day: CivilDay
        public var name: String
        /// `image/jpeg`, `image/png`, `image/gif` or `image/webp`: what the page may show.
        public var mediaType: String
        public var bytes: [UInt8]
    }

    public let period: ClosedRange<CivilDay>
    /// The day "on this day" looks back from: today when the period holds it, else the
    /// period's last day.
    public let onThisDayReference: CivilDay
    /// `jv stats`'s figures for the period (its entries per week run from the first entry's
    /// week to the last's; ``weeks`` gives every week of the period).
    public internal(set) var stats = JournalStats()
    /// The days with entries.
    public internal(set) var days: [CivilDay: Day] = [:]
    /// Every month of the period, `YYYY-MM`, oldest first.
    public let months: [String]
    /// The entries' tags (inline and explicit) per month.
    public internal(set) var tags: NameCounts
    /// The people per month: the knowledge graph's `person` nodes at either end of a relation
    /// learnt from an entry of that month, each counted once per entry.
    public internal(set) var people: NameCounts
    /// The first ``starredLimit`` starred entries of the period, oldest first, and how many more there are.
    public internal(set) var starred: [Entry] = []
    public internal(set) var starredLeftOut = 0
    /// Entries written on ``onThisDayReference``'s month and day in earlier years, newest first.
    public internal(set) var onThisDay: [Entry] = []
    /// The images of the period's entries, at most ``photoLimit`` of them, in entry order, and
    /// how many more (or without a thumbnail to show) there are.
    public internal(set) var photos: [Photo] = []
    public internal(set) var photosLeftOut = 0
    /// Each numeric field of the entries' measures as its mean per month (each point dated the
    /// month's first day, as ``JournalStats/measuresPerMonth`` has them).
    public internal(set) var measures: [MeasureSeries] = []

    init(period: ClosedRange<CivilDay>, today: CivilDay) {
        self.period = period
        onThisDayReference = period.contains(today) ? today : period.upperBound
        var months: [String] = []
        var month = (year: period.lowerBound.year, month: period.lowerBound.month)
        while (month.year, month.month) <= (period.upperBound.year, period.upperBound.month) {
            months.append(CivilDay(year: month.year, month: month.month, day: 1)!.description.prefix(7).description)
            month = month.month == 12 ? (month.year + 1, 1) : (month.year, month.month + 1)
        }
        self.months = months
        tags = NameCounts(months: months)
        people = NameCounts(months: months)
    }

    /// The index in ``months`` of `day`'s month.
    func monthIndex(of day: CivilDay) -> Int {
        (day.year - period.lowerBound.year) * 12 + day.month - period.lowerBound.month
    }

    /// Every ISO week that has a day in the period (`YYYY-Www`, and its Monday), with its
    /// entries, oldest first.
    public var weeks: [(week: String, monday: CivilDay, entries: Int)] {
        let counted = Dictionary(stats.entriesPerWeek.map { ($0.week, $0.entries) }, uniquingKeysWith: +)
        let first = ISOWeek.monday(of: period.lowerBound), last = ISOWeek.monday(of: period.upperBound)
        return stride(from: first.daysSinceEpoch, through: last.daysSinceEpoch, by: 7).map {
            let monday = CivilDay(daysSinceEpoch: $0), name = ISOWeek.name(of: monday)
            return (name, monday, counted[name] ?? 0)
        }
    }
}
