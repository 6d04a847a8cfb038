// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import JournalVault
import TestSupport
import Testing

/// The session protocol's search requests and answers (FORMAT.md §13): what one end writes the
/// other reads back exactly, and anything malformed is refused whole.
@Suite("session wire")
struct SessionWireTests {
    private let session = SessionID(bytes: Array(0..<16))!

    /// Reads `bytes` as the agent reads a connection.
    private func read(_ bytes: [UInt8]) -> SessionWire.ReadRequest? {
        var reader = ByteReader(bytes)
        return SessionWire.readRequest { reader.raw($0) }
    }

    private func readAnswer(_ bytes: [UInt8]) -> SessionWire.QueryAnswer? {
        var reader = ByteReader(bytes)
        return SessionWire.QueryAnswer.read { reader.raw($0) }
    }

    private func query(_ text: String, kinds: Set<SearchKind> = Set(SearchKind.allCases), ranked: Bool = false) throws -> SessionWire.Query {
        SessionWire.Query(query: try SearchQuery.parse(text), kinds: kinds, ranked: ranked)
    }

    @Test("a query request is read back as it was sent, whatever its query, kinds and flag")
    func queryRoundTrip() throws {
        let texts = [#"tea OR coffee "early morning" -rain"#, "東京", "café*", #""green te"*"#, "-rain -snow", "don't e-mail 🙂"]
        let kindSets: [Set<SearchKind>] = [[.entry], [.chatMessage], [.analysis], [.entry, .analysis], Set(SearchKind.allCases)]
        for (index, text) in texts.enumerated() {
            let sent = try query(text, kinds: kindSets[index % kindSets.count], ranked: index % 2 == 0)
            let bytes = try #require(SessionWire.request(sent, session: session))
            #expect(read(bytes) == SessionWire.ReadRequest(kind: .query, session: session, question: .search(sent)), "\(text)")
        }
        for kind in [SessionWire.Request.key, .status, .lock, .indexStatus, .nudge] {
            #expect(read(SessionWire.request(kind, session: session)) == SessionWire.ReadRequest(kind: kind, session: session, question: nil))
        }
    }

    @Test("a malformed query request is refused: each field out of its bounds, a short read, bytes of another tag")
    func malformedRequestsAreRefused() throws {
        let good = try #require(SessionWire.request(try query("tea OR coffee -rain"), session: session))
        let header = SessionWire.requestLength
        #expect(read(good) != nil)
        // Cut anywhere: the agent waits for bytes that never come and gets nothing.
        for length in 0..<good.count { #expect(read(Array(good.prefix(length))) == nil, "cut at \(length)") }
        func changed(_ offset: Int, _ value: UInt8) -> [UInt8] {
            var bytes = good
            bytes[offset] = value
            return bytes
        }
        #expect(read(changed(0, UInt8(ascii: "X"))) == nil, "another tag")
        #expect(read(changed(4, 0x51 ^ 0x20)) == nil, "an unknown kind")
        #expect(read(changed(header, 2)) == nil, "a ranked flag other than 0 or 1")
        #expect(read(changed(header + 1, 0)) == nil, "no kind")
        #expect(read(changed(header + 1, 8)) == nil, "an unknown kind bit")
        var tooLong = Array(good.prefix(header + 2))
        tooLong += [0x00, 0x01, 0x00, 0x01] + Array(repeating: 0, count: SessionWire.longestQuery + 1)
        #expect(read(tooLong) == nil, "a query longer than the bound")
        // Inside the query: no group nor exclusion, an empty group, an empty token, bytes that are not UTF-8, a byte left over.
        func withQuery(_ encoded: [UInt8]) -> [UInt8] {
            Array(good.prefix(header + 2)) + [UInt8(encoded.count >> 24), UInt8(encoded.count >> 16 & 0xFF), UInt8(encoded.count >> 8 & 0xFF),
                                              UInt8(encoded.count & 0xFF)] + encoded
        }
        let oneWord: [UInt8] = [0, 1, 0, 1, 0, 0, 1, 0, 3] + Array("tea".utf8) + [0, 0]
        #expect(read(withQuery(oneWord))?.question == .search(SessionWire.Query(query: SearchQuery(required: [[SearchQuery.Phrase(tokens: ["tea"])]]),
                                                                                 kinds: [.entry, .chatMessage, .analysis], ranked: false)))
        #expect(read(withQuery([0, 0, 0, 0])) == nil, "nothing to search")
        #expect(read(withQuery([0, 1, 0, 0, 0, 0])) == nil, "an empty group")
        #expect(read(withQuery([0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0])) == nil, "an empty token")
        #expect(read(withQuery([0, 1, 0, 1, 0, 0, 1, 0, 1, 0xFF, 0, 0])) == nil, "a token that is not UTF-8")
        #expect(read(withQuery([0, 1, 0, 1, 2, 0, 1, 0, 1, 0x61, 0, 0])) == nil, "a prefix flag other than 0 or 1")
        #expect(read(withQuery(oneWord + [0])) == nil, "a byte left over")
    }

    @Test("a query that does not fit a request is not sent (the command scans)")
    func oversizedQueryIsNotSent() throws {
        let long = SearchQuery(required: [[SearchQuery.Phrase(tokens: [String(repeating: "a", count: SessionWire.longestQuery)])]])
        #expect(SessionWire.request(SessionWire.Query(query: long, kinds: [.entry], ranked: false), session: session) == nil)
        let emptyToken = SearchQuery(required: [[SearchQuery.Phrase(tokens: [""])]])
        #expect(SessionWire.request(SessionWire.Query(query: emptyToken, kinds: [.entry], ranked: false), session: session) == nil)
    }

    @Test("query answers round trip: hits of every kind, with and without ranks, offsets; not ready; refused")
    func answerRoundTrip() throws {
        var random = SeededGenerator(seed: 24)
        let hits = (0..<200).map { index in
            SearchHit(kind: SearchKind.allCases[index % 3], key: UUID().uuidString.lowercased(),
                      time: Instant(millis: Int64.random(in: -1_000_000_000_000...4_000_000_000_000, using: &random),
                                    utcOffsetSeconds: Int.random(in: -14 * 3600...14 * 3600, using: &random)),
                      rank: index % 2 == 0 ? nil : Double.random(in: -50...0, using: &random))
        }
        for answer in [SessionWire.QueryAnswer.hits(hits), .hits([]), .notReady, .refused] {
            #expect(readAnswer(answer.bytes) == answer)
        }
        let bytes = SessionWire.QueryAnswer.hits(Array(hits.prefix(3))).bytes
        for length in 0..<bytes.count { #expect(readAnswer(Array(bytes.prefix(length))) == nil, "cut at \(length)") }
    }

    @Test("a malformed answer is refused: an unknown result, hits of no kind, a rank that is not finite, bytes left over")
    func malformedAnswersAreRefused() throws {
        let hit = SearchHit(kind: .entry, key: "k", time: Instant(millis: 5, utcOffsetSeconds: 0), rank: -1.5)
        let good = SessionWire.QueryAnswer.hits([hit]).bytes
        #expect(readAnswer(good) == .hits([hit]))
        func changed(_ offset: Int, _ value: UInt8) -> [UInt8] {
            var bytes = good
            bytes[offset] = value
            return bytes
        }
        #expect(readAnswer(changed(0, 3)) == nil, "an unknown result")
        #expect(readAnswer(SessionWire.QueryAnswer.notReady.bytes + [0]) == SessionWire.QueryAnswer.notReady, "what follows is not read")
        #expect(readAnswer([1, 0, 0, 0, 1, 0]) == nil, "not ready with a payload")
        #expect(readAnswer(changed(9, 8)) == nil, "a hit of no kind")
        var notFinite = good
        notFinite.replaceSubrange(good.count - 8..<good.count, with: withUnsafeBytes(of: Double.nan.bitPattern.bigEndian, Array.init))
        #expect(readAnswer(notFinite) == nil, "a rank that is not a number")
        var extra = good + [0]
        extra[4] += 1
        #expect(readAnswer(extra) == nil, "a byte left over in the payload")
        var manyHits = good
        manyHits[8] = 9
        #expect(readAnswer(manyHits) == nil, "more hits than the payload holds")
    }

    @Test("index status and the hand-over with the vault's path round trip; an earlier agent's shorter status is read")
    func statusAndHandOver() throws {
        var status = SessionIndexStatus(state: .ready, documents: 10_000, bytes: 6 << 20, lockedBytes: 8 << 20, searches: 12)
        status.statsAnswered = 5
        let bytes = SessionWire.IndexStatus(status).bytes
        #expect(bytes.count == SessionWire.IndexStatus.length)
        #expect(SessionWire.IndexStatus(bytes: bytes)?.index == status)
        var earlier = status
        earlier.statsAnswered = 0
        #expect(SessionWire.IndexStatus(bytes: Array(bytes.prefix(SessionWire.IndexStatus.lengthBeforeStats)))?.index == earlier)
        #expect(SessionWire.IndexStatus(bytes: bytes + [0]) == nil, "a byte left over")
        #expect(SessionWire.IndexStatus(bytes: Array(bytes.dropLast())) == nil, "a stats count cut short")
        #expect(SessionWire.IndexStatus(bytes: [3] + Array(repeating: 0, count: 32)) == nil, "an unknown state")
        let handOver = SessionWire.HandOver(session: session, keyVersion: 3, idleTimeout: 900, lifetime: 3600,
                                            socketPath: "/run/user/1000/jv/x.socket", vaultPath: "/home/me/Journal/journal.vault")
        let folder = try TemporaryFolder(prefix: "jv-wire")
        let file = try folder.write("hand-over", Data(handOver.bytes))
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        #expect(SessionWire.HandOver.read(from: descriptor) == handOver)
    }

    private static func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDay { CivilDay(year: year, month: month, day: day)! }

    /// Periods of every bound form, at the edges of what the fields hold.
    private static let periods: [SessionWire.StatsQuery] = [
        SessionWire.StatsQuery(from: nil, to: nil, today: day(2026, 12, 4)),
        SessionWire.StatsQuery(from: .day(day(2026, 1, 1)), to: .days(day(2026, 2, 1)...day(2026, 2, 28)), today: day(2026, 12, 4)),
        SessionWire.StatsQuery(from: .instant(Instant(millis: Instant.millisRange.lowerBound, utcOffsetSeconds: -64_800)),
                               to: .instant(Instant(millis: Instant.millisRange.upperBound, utcOffsetSeconds: 64_800)), today: day(1969, 12, 31)),
        SessionWire.StatsQuery(from: .days(day(1, 1, 1)...day(2026, 3, 2)), to: nil, today: day(9999, 12, 31)),
    ]

    private func readStatsAnswer(_ bytes: [UInt8]) -> SessionWire.StatsAnswer? {
        var reader = ByteReader(bytes)
        return SessionWire.StatsAnswer.read { reader.raw($0) }
    }

    @Test("a stats request is read back as it was sent, whatever its bounds; a malformed one is refused")
    func statsRequests() throws {
        for period in Self.periods {
            let bytes = SessionWire.request(period, session: session)
            #expect(read(bytes) == SessionWire.ReadRequest(kind: .stats, session: session, question: .stats(period)), "\(period)")
            let zones = SessionWire.request(zonesOf: period.period, session: session)
            #expect(read(zones) == SessionWire.ReadRequest(kind: .zones, session: session, question: .zones(period.period)), "\(period)")
            for length in 0..<zones.count { #expect(read(Array(zones.prefix(length))) == nil, "cut at \(length)") }
        }
        let good = SessionWire.request(Self.periods[2], session: session)
        let header = SessionWire.requestLength
        for length in 0..<good.count { #expect(read(Array(good.prefix(length))) == nil, "cut at \(length)") }
        func changed(_ offset: Int, _ value: UInt8) -> [UInt8] {
            var bytes = good
            bytes[offset] = value
            return bytes
        }
        #expect(read(changed(header, UInt8(SessionWire.longestPeriod + 1))) == nil, "longer than any period")
        #expect(read(changed(4, SessionWire.Request.zones.rawValue)) == nil, "a stats period read as a zones one")
        #expect(read(changed(header + 5, 4)) == nil, "a bound of no known form")
        #expect(read(changed(header + 5 + 9, 0x7F)) == nil, "an offset over the widest")
        #expect(read(changed(header + 5 + 1, 0x7F)) == nil, "a moment after the year 9999")
        let outside = [SessionWire.StatsQuery(from: .day(CivilDay(daysSinceEpoch: -719_163)), to: nil, today: Self.day(2026, 1, 1)),
                       SessionWire.StatsQuery(from: nil, to: nil, today: CivilDay(daysSinceEpoch: 2_932_897)),
                       SessionWire.StatsQuery(from: .instant(Instant(millis: Instant.millisRange.lowerBound - 1, utcOffsetSeconds: 0)), to: nil,
                                              today: Self.day(2026, 1, 1))]
        for period in outside { #expect(read(SessionWire.request(period, session: session)) == nil, "\(period): outside the years 1 to 9999") }
        var extra = good + [0]
        extra[header] += 1
        #expect(read(extra) == nil, "a byte left over")
        let reversed = SessionWire.request(SessionWire.StatsQuery(from: .days(Self.day(2026, 3, 2)...Self.day(2026, 3, 3)), to: nil, today: Self.day(2026, 3, 3)),
                                           session: session)
        var swapped = reversed
        swapped.replaceSubrange(header + 6..<header + 14, with: Array(reversed[header + 10..<header + 14] + reversed[header + 6..<header + 10]))
        #expect(read(swapped) == nil, "a run of days that ends before it starts")
    }

    @Test("zones answers round trip; a malformed one is refused")
    func zonesAnswers() {
        func readZones(_ bytes: [UInt8]) -> SessionWire.ZonesAnswer? {
            var reader = ByteReader(bytes)
            return SessionWire.ZonesAnswer.read { reader.raw($0) }
        }
        for answer in [SessionWire.ZonesAnswer.spans(true), .spans(false), .notReady, .refused] { #expect(readZones(answer.bytes) == answer) }
        #expect(readZones([0, 0, 0, 0, 1, 2]) == nil, "a flag other than 0 or 1")
        #expect(readZones([0, 0, 0, 0, 2, 1, 0]) == nil, "a payload of two bytes")
        #expect(readZones([0, 0, 0, 0, 0]) == nil, "no payload")
        #expect(readZones([0, 0, 0, 0, 1]) == nil, "cut short")
    }

    @Test("stats answers round trip, every figure and mean to the last bit; a malformed one is refused")
    func statsAnswers() throws {
        var stats = JournalStats()
        (stats.entries, stats.words, stats.daysWritten, stats.longestStreak, stats.currentStreak) = (100_000, 14_315_372, 1806, 1806, 0)
        (stats.firstDay, stats.lastDay) = (Self.day(2021, 11, 1), nil)
        stats.perMonth = [("2021-11", 1644), ("2021-12", 1716)]
        stats.wordsPerMonth = [("2021-11", 230_000), ("2021-12", 0)]
        stats.entriesPerWeek = [("2021-W44", 7), ("2021-W45", 0)]
        stats.sentimentPerMonth = [("2021-11", -0.1 / 3, 12)]
        stats.measuresPerMonth = [("mood", [("2021-11", 7.099999999999999, 30)]), (String(repeating: "é", count: 64), []), ("sleep", [("2021-12", -0.0, 1)])]
        let good = SessionWire.StatsAnswer.stats(stats).bytes
        guard case .stats(let read)? = readStatsAnswer(good) else {
            Issue.record("the answer was not read back")
            return
        }
        #expect(String(describing: read) == String(describing: stats))
        #expect(read.measuresPerMonth[2].months[0].mean.sign == .minus, "a mean's bits, not only its value")
        if case .notReady? = readStatsAnswer(SessionWire.StatsAnswer.notReady.bytes) {} else { Issue.record("not ready is not read back") }
        if case .refused? = readStatsAnswer(SessionWire.StatsAnswer.refused.bytes) {} else { Issue.record("refused is not read back") }
        for length in 0..<good.count { #expect(readStatsAnswer(Array(good.prefix(length))) == nil, "cut at \(length)") }
        var extra = good + [0]
        extra[4] += 1
        #expect(readStatsAnswer(extra) == nil, "a byte left over in the payload")
        #expect(readStatsAnswer([1, 0, 0, 0, 1, 0]) == nil, "not ready with a payload")
        #expect(readStatsAnswer([3, 0, 0, 0, 0]) == nil, "an unknown result")
        var notFinite = JournalStats()
        notFinite.sentimentPerMonth = [("2021-11", .nan, 1)]
        #expect(readStatsAnswer(SessionWire.StatsAnswer.stats(notFinite).bytes) == nil, "a mean that is not a number")
        var manyMonths = SessionWire.StatsAnswer.stats(JournalStats()).bytes
        // The per-month count, after the result, length, five counts and two absent days.
        manyMonths[5 + 40 + 2 + 3] = 9
        #expect(readStatsAnswer(manyMonths) == nil, "more months than the payload holds")
    }
}
