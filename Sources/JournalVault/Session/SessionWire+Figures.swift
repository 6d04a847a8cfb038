// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The figures part of the session protocol (FORMAT.md §13): `jv stats` of a period, and whether
/// a period's entries were written at more than one UTC offset, asked of the agent, which
/// answers from the figures it keeps beside its index (``SessionFigures``) instead of the
/// command decrypting or reading every entry. Bounded and checked as the search part is.
extension SessionWire {
    /// The entries between `from` and `to`, as ``EntryQuery`` bounds them.
    struct Period: Equatable {
        var from: DateExpression?
        var to: DateExpression?
    }

    /// What a `T` request asks: the figures of the period's entries, `today` deciding the
    /// current streak and the default weeks.
    struct StatsQuery: Equatable {
        var from: DateExpression?
        var to: DateExpression?
        var today: CivilDay

        var period: Period { Period(from: from, to: to) }
    }

    /// The longest encoded period of a `T` or `Z` request: today, and two bounds of the longest form.
    static let longestPeriod = 4 + 2 * (1 + 8 + 4)

    /// The `T` request: after a length u8 of the rest, today i32 (days since 1970-01-01) and
    /// the period (``encode(_:_:)``).
    static func request(_ query: StatsQuery, session: SessionID) -> [UInt8] {
        var encoded = ByteWriter(capacity: longestPeriod)
        encoded.u32(UInt32(bitPattern: Int32(clamping: query.today.daysSinceEpoch)))
        encode(query.period, &encoded)
        return request(.stats, session: session, carrying: encoded.bytes)
    }

    /// The `Z` request: after a length u8 of the rest, the period.
    static func request(zonesOf period: Period, session: SessionID) -> [UInt8] {
        var encoded = ByteWriter(capacity: longestPeriod)
        encode(period, &encoded)
        return request(.zones, session: session, carrying: encoded.bytes)
    }

    private static func request(_ kind: Request, session: SessionID, carrying period: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: requestLength + 1 + period.count)
        writer.raw(request(kind, session: session))
        writer.u8(UInt8(period.count))
        writer.raw(period)
        return writer.bytes
    }

    /// `from` and `to`, each a tag u8 (0 none; 1 a day: i32; 2 a moment: ms i64 and UTC offset
    /// i32; 3 a run of days: two i32).
    private static func encode(_ period: Period, _ encoded: inout ByteWriter) {
        for bound in [period.from, period.to] {
            switch bound {
            case nil: encoded.u8(0)
            case .day(let day)?:
                encoded.u8(1)
                encoded.u32(UInt32(bitPattern: Int32(clamping: day.daysSinceEpoch)))
            case .instant(let instant)?:
                encoded.u8(2)
                encoded.i64(instant.millis)
                encoded.u32(UInt32(bitPattern: Int32(clamping: instant.utcOffsetSeconds)))
            case .days(let days)?:
                encoded.u8(3)
                encoded.u32(UInt32(bitPattern: Int32(clamping: days.lowerBound.daysSinceEpoch)))
                encoded.u32(UInt32(bitPattern: Int32(clamping: days.upperBound.daysSinceEpoch)))
            }
        }
    }

    /// The question of a `T` (`withToday`) or `Z` request's period bytes; nil when a tag is
    /// unknown, a day or moment is outside the years 1 to 9999, an offset is over 18 hours, a
    /// run of days is reversed or a byte is left over.
    static func parsePeriod(_ bytes: [UInt8], withToday: Bool) -> Question? {
        var reader = ByteReader(bytes)
        func day() -> CivilDay? {
            reader.u32().map { CivilDay(daysSinceEpoch: Int(Int32(bitPattern: $0))) }.flatMap { (1...9999).contains($0.year) ? $0 : nil }
        }
        func bound() -> DateExpression?? {
            switch reader.u8() {
            case 0: return .some(nil)
            case 1: return day().map { .day($0) }
            case 2:
                guard let millis = reader.i64(), Instant.millisRange.contains(millis),
                      let offset = reader.u32().map({ Int(Int32(bitPattern: $0)) }), Instant.offsetRange.contains(offset) else { return nil }
                return .instant(Instant(millis: millis, utcOffsetSeconds: offset))
            case 3:
                guard let first = day(), let last = day(), first <= last else { return nil }
                return .days(first...last)
            default: return nil
            }
        }
        let today = withToday ? day() : nil
        guard !withToday || today != nil, let from = bound(), let to = bound(), reader.remaining == 0 else { return nil }
        if let today { return .stats(StatsQuery(from: from, to: to, today: today)) }
        return .zones(Period(from: from, to: to))
    }

    /// The rest of the answer to a served `Z` request: a result answer whose payload is one
    /// byte, 1 when the period's entries were written at more than one UTC offset, else 0.
    enum ZonesAnswer: Equatable {
        case spans(Bool)
        case notReady
        case refused

        var bytes: [UInt8] {
            switch self {
            case .spans(let spans): SessionWire.resultAnswer(0, payload: [spans ? 1 : 0])
            case .notReady: SessionWire.notReadyAnswer
            case .refused: SessionWire.resultAnswer(2)
            }
        }

        /// Reads the answer; nil when malformed (a payload of another length or byte).
        static func read(_ read: (Int) -> [UInt8]?) -> ZonesAnswer? {
            guard let (result, payload) = SessionWire.readResultAnswer(read, shortest: 1, longest: 1) else { return nil }
            guard result == 0 else { return result == 1 ? .notReady : .refused }
            return payload[0] <= 1 ? .spans(payload[0] == 1) : nil
        }
    }

    /// The rest of the answer to a served `T` request: result u8 (0: the figures follow; 1: the
    /// index is not built yet; 2: the figures could not be made), payload length u32, then for 0
    /// the ``JournalStats``: entries, words, days written, longest and current streak (u64
    /// each); first and last day (u8 0 none, or 1 and i32); per month entries and words (count
    /// u32, each month as a text — u16 length, UTF-8 — and u64); per week entries (count u32,
    /// week and u64);
    /// sentiment per month (count u32, each month, mean f64 bits u64, entries u64); measures per
    /// month (count u32, each its name as a text and its months as sentiment's are).
    enum StatsAnswer {
        case stats(JournalStats)
        case notReady
        case refused

        /// The longest payload an answer carries: more than any vault's figures take.
        static let longestPayload = 64 << 20

        var bytes: [UInt8] {
            switch self {
            case .stats(let stats):
                var payload = ByteWriter()
                Self.encode(stats, &payload)
                return SessionWire.resultAnswer(0, payload: payload.bytes)
            case .notReady: return SessionWire.notReadyAnswer
            case .refused: return SessionWire.resultAnswer(2)
            }
        }

        private static func encode(_ stats: JournalStats, _ writer: inout ByteWriter) {
            for count in [stats.entries, stats.words, stats.daysWritten, stats.longestStreak, stats.currentStreak] {
                writer.u64(UInt64(max(0, count)))
            }
            for day in [stats.firstDay, stats.lastDay] {
                if let day {
                    writer.u8(1)
                    writer.u32(UInt32(bitPattern: Int32(clamping: day.daysSinceEpoch)))
                } else {
                    writer.u8(0)
                }
            }
            func text(_ text: String) {
                writer.u16(UInt16(clamping: text.utf8.count))
                writer.raw(text.utf8.prefix(Int(UInt16.max)))
            }
            func counts(_ counts: [(String, Int)]) {
                writer.u32(UInt32(counts.count))
                for (name, count) in counts {
                    text(name)
                    writer.u64(UInt64(max(0, count)))
                }
            }
            func means(_ months: [(month: String, mean: Double, entries: Int)]) {
                writer.u32(UInt32(months.count))
                for month in months {
                    text(month.month)
                    writer.u64(month.mean.bitPattern)
                    writer.u64(UInt64(max(0, month.entries)))
                }
            }
            counts(stats.perMonth.map { ($0.month, $0.entries) })
            counts(stats.wordsPerMonth.map { ($0.month, $0.words) })
            counts(stats.entriesPerWeek.map { ($0.week, $0.entries) })
            means(stats.sentimentPerMonth)
            writer.u32(UInt32(stats.measuresPerMonth.count))
            for measure in stats.measuresPerMonth {
                text(measure.name)
                means(measure.months)
            }
        }

        /// Reads the answer, `read(n)` giving the next n bytes; nil when malformed (a count
        /// past what the payload can hold, a name not UTF-8, a mean that is not a finite
        /// number, bytes left over).
        static func read(_ read: (Int) -> [UInt8]?) -> StatsAnswer? {
            guard let (result, payload) = SessionWire.readResultAnswer(read, shortest: 0, longest: longestPayload) else { return nil }
            guard result == 0 else { return result == 1 ? .notReady : .refused }
            return decode(payload).map { .stats($0) }
        }

        private static func decode(_ payload: [UInt8]) -> JournalStats? {
            var reader = ByteReader(payload)
            func count() -> Int? { reader.u64().flatMap { Int(exactly: $0) } }
            func string() -> String? {
                reader.u16().flatMap { reader.raw(Int($0)) }.flatMap { String(validating: $0, as: UTF8.self) }
            }
            /// A list's length, when the bytes left can hold that many items of at least `smallest` bytes.
            func length(smallest: Int) -> Int? {
                reader.u32().map(Int.init).flatMap { $0 <= reader.remaining / smallest ? $0 : nil }
            }
            func counts() -> [(String, Int)]? {
                guard let length = length(smallest: 10) else { return nil }
                var counts: [(String, Int)] = []
                for _ in 0..<length {
                    guard let name = string(), let count = count() else { return nil }
                    counts.append((name, count))
                }
                return counts
            }
            func means() -> [(month: String, mean: Double, entries: Int)]? {
                guard let length = length(smallest: 18) else { return nil }
                var months: [(month: String, mean: Double, entries: Int)] = []
                for _ in 0..<length {
                    guard let month = string(), let bits = reader.u64(), Double(bitPattern: bits).isFinite, let entries = count() else { return nil }
                    months.append((month, Double(bitPattern: bits), entries))
                }
                return months
            }
            func day() -> CivilDay?? {
                switch reader.u8() {
                case 0: return .some(nil)
                case 1: return reader.u32().map { CivilDay(daysSinceEpoch: Int(Int32(bitPattern: $0))) }
                default: return nil
                }
            }
            var stats = JournalStats()
            guard let entries = count(), let words = count(), let daysWritten = count(), let longest = count(), let current = count(),
                  let first = day(), let last = day(), let perMonth = counts(), let wordsPerMonth = counts(),
                  let perWeek = counts(), let sentiment = means(), let measureCount = length(smallest: 6) else { return nil }
            (stats.entries, stats.words, stats.daysWritten, stats.longestStreak, stats.currentStreak) = (entries, words, daysWritten, longest, current)
            (stats.firstDay, stats.lastDay) = (first, last)
            stats.perMonth = perMonth.map { ($0.0, $0.1) }
            stats.wordsPerMonth = wordsPerMonth.map { ($0.0, $0.1) }
            stats.entriesPerWeek = perWeek.map { ($0.0, $0.1) }
            stats.sentimentPerMonth = sentiment
            for _ in 0..<measureCount {
                guard let name = string(), let months = means() else { return nil }
                stats.measuresPerMonth.append((name, months))
            }
            return reader.remaining == 0 ? stats : nil
        }
    }
}
