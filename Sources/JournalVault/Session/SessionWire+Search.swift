// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The search part of the session protocol (FORMAT.md §13): the query request, the index status
/// and the query answer. Every length is bounded and every field checked, so a request from any
/// process of the user (which can send anything) is refused whole or read exactly.
extension SessionWire {
    /// What a command asks of the agent's index and figures.
    enum Question: Equatable, Sendable {
        /// `Q`: the index's hits.
        case search(Query)
        /// `T`: `jv stats` of a period.
        case stats(StatsQuery)
        /// `Z`: whether a period's entries were written at more than one UTC offset.
        case zones(Period)
    }

    /// A request as the agent reads it: its kind, the session it is for, and for `Q`, `T` and
    /// `Z` what it asks.
    struct ReadRequest: Equatable {
        var kind: Request
        var session: SessionID
        var question: Question?
    }

    /// What a `Q` request asks: the query as the command parsed it (the agent evaluates that
    /// very query, never a text of its own reading), the kinds of record searched and whether
    /// hits are ranked.
    struct Query: Equatable {
        var query: SearchQuery
        var kinds: Set<SearchKind>
        var ranked: Bool
    }

    /// The longest encoded query a request carries, in bytes.
    static let longestQuery = 64 * 1024
    /// The most hits an answer carries: more than any vault jv writes holds records.
    static let mostHits = 5_000_000
    /// The longest record key in a hit (a UUID is 36 bytes).
    static let longestKey = 64

    private static let kindBits: [(SearchKind, UInt8)] = [(.entry, 1), (.chatMessage, 2), (.analysis, 4)]

    /// The `Q` request; nil when the query is too long to send (the command scans instead).
    static func request(_ query: Query, session: SessionID) -> [UInt8]? {
        var encoded = ByteWriter()
        encoded.u16(UInt16(clamping: query.query.required.count))
        for group in query.query.required {
            encoded.u16(UInt16(clamping: group.count))
            for phrase in group { encode(phrase, &encoded) }
        }
        encoded.u16(UInt16(clamping: query.query.excluded.count))
        for phrase in query.query.excluded { encode(phrase, &encoded) }
        guard encoded.bytes.count <= longestQuery, parseQuery(encoded.bytes) == query.query else { return nil }
        var writer = ByteWriter(capacity: requestLength + 6 + encoded.bytes.count)
        writer.raw(request(.query, session: session))
        writer.u8(query.ranked ? 1 : 0)
        writer.u8(kindBits.reduce(0) { query.kinds.contains($1.0) ? $0 | $1.1 : $0 })
        writer.u32(UInt32(encoded.bytes.count))
        writer.raw(encoded.bytes)
        return writer.bytes
    }

    /// A phrase: prefix u8 (0 or 1), token count u16, each token (u16 length, UTF-8, not empty).
    private static func encode(_ phrase: SearchQuery.Phrase, _ writer: inout ByteWriter) {
        writer.u8(phrase.prefix ? 1 : 0)
        writer.u16(UInt16(clamping: phrase.tokens.count))
        for token in phrase.tokens {
            writer.u16(UInt16(clamping: token.utf8.count))
            writer.raw(token.utf8)
        }
    }

    /// The query encoded by ``request(_:session:)``: groups (count u16, each its phrases: count
    /// u16 and each phrase), then the excluded phrases (count u16 and each); nil unless every
    /// group and phrase has one at least, there is a group or an exclusion, and no byte is left.
    static func parseQuery(_ bytes: [UInt8]) -> SearchQuery? {
        var reader = ByteReader(bytes)
        func phrase() -> SearchQuery.Phrase? {
            guard let prefix = reader.u8(), prefix <= 1, let count = reader.u16(), count > 0 else { return nil }
            var tokens: [String] = []
            for _ in 0..<count {
                guard let length = reader.u16(), length > 0,
                      let token = reader.raw(Int(length)).flatMap({ String(validating: $0, as: UTF8.self) }) else { return nil }
                tokens.append(token)
            }
            return SearchQuery.Phrase(tokens: tokens, prefix: prefix == 1)
        }
        guard let groupCount = reader.u16() else { return nil }
        var required: [[SearchQuery.Phrase]] = []
        for _ in 0..<groupCount {
            guard let count = reader.u16(), count > 0 else { return nil }
            var group: [SearchQuery.Phrase] = []
            for _ in 0..<count {
                guard let next = phrase() else { return nil }
                group.append(next)
            }
            required.append(group)
        }
        guard let excludedCount = reader.u16(), groupCount > 0 || excludedCount > 0 else { return nil }
        var excluded: [SearchQuery.Phrase] = []
        for _ in 0..<excludedCount {
            guard let next = phrase() else { return nil }
            excluded.append(next)
        }
        return reader.remaining == 0 ? SearchQuery(required: required, excluded: excluded) : nil
    }

    /// Reads one request, `read(n)` giving the next n bytes (nil at the end or on a timeout).
    /// Nil when it is malformed: an unknown tag or kind, a ranked flag other than 0 or 1, no
    /// kind or an unknown one, a query too long or not as ``parseQuery(_:)`` reads one, a period
    /// not as ``parsePeriod(_:withToday:)`` reads one.
    static func readRequest(_ read: (Int) -> [UInt8]?) -> ReadRequest? {
        guard let fixed = read(requestLength), let (kind, session) = parseRequest(fixed) else { return nil }
        if kind == .stats || kind == .zones {
            guard let length = read(1)?.first, Int(length) <= longestPeriod,
                  let question = read(Int(length)).flatMap({ parsePeriod($0, withToday: kind == .stats) }) else { return nil }
            return ReadRequest(kind: kind, session: session, question: question)
        }
        guard kind == .query else { return ReadRequest(kind: kind, session: session, question: nil) }
        guard let header = read(6) else { return nil }
        var reader = ByteReader(header)
        guard let ranked = reader.u8(), ranked <= 1, let bits = reader.u8(), let length = reader.u32(),
              (1...longestQuery).contains(Int(length)), let kinds = kinds(bits),
              let query = read(Int(length)).flatMap(parseQuery) else { return nil }
        return ReadRequest(kind: kind, session: session, question: .search(Query(query: query, kinds: kinds, ranked: ranked == 1)))
    }

    private static func kinds(_ bits: UInt8) -> Set<SearchKind>? {
        let known = kindBits.reduce(UInt8(0)) { $0 | $1.1 }
        guard bits != 0, bits & ~known == 0 else { return nil }
        return Set(kindBits.filter { bits & $0.1 != 0 }.map(\.0))
    }

    /// The index's state, after a served `I` request's fixed answer: state u8 (0 building,
    /// 1 ready, 2 unavailable), documents u64, index bytes u64, locked bytes u64, searches
    /// answered u64, stats answered u64 (an agent of an earlier jv ends before it).
    struct IndexStatus: Equatable {
        var index: SessionIndexStatus

        static let length = 1 + 8 + 8 + 8 + 8 + 8
        /// The length an agent of an earlier jv answers.
        static let lengthBeforeStats = length - 8
        private static let states: [SessionIndexStatus.State] = [.building, .ready, .unavailable]

        var bytes: [UInt8] {
            var writer = ByteWriter(capacity: Self.length)
            writer.u8(UInt8(Self.states.firstIndex(of: index.state) ?? 2))
            writer.u64(UInt64(max(0, index.documents)))
            writer.u64(UInt64(max(0, index.bytes)))
            writer.u64(UInt64(max(0, index.lockedBytes)))
            writer.u64(UInt64(max(0, index.searches)))
            writer.u64(UInt64(max(0, index.statsAnswered)))
            return writer.bytes
        }

        init(_ index: SessionIndexStatus) {
            self.index = index
        }

        /// Reads either length.
        init?(bytes: [UInt8]) {
            var reader = ByteReader(bytes)
            guard let state = reader.u8(), Int(state) < Self.states.count, let documents = reader.u64(), let size = reader.u64(),
                  let locked = reader.u64(), let searches = reader.u64(),
                  let documents = Int(exactly: documents), let size = Int(exactly: size), let locked = Int(exactly: locked),
                  let searches = Int(exactly: searches) else { return nil }
            index = SessionIndexStatus(state: Self.states[Int(state)], documents: documents, bytes: size, lockedBytes: locked, searches: searches)
            guard reader.remaining > 0 else { return }
            guard let answered = reader.u64().flatMap({ Int(exactly: $0) }), reader.remaining == 0 else { return nil }
            index.statsAnswered = answered
        }
    }

    /// The rest of the answer to a served `Q` request: result u8 (0: the hits follow; 1: the index
    /// is not built yet; 2: the query was refused), payload length u32, then for 0 the hits:
    /// count u32, and each kind u8 (its bit), key (u8 length, UTF-8), time i64 (ms since 1970),
    /// UTC offset i32 (seconds east, at most a day), rank (u8 0 none, or 1 and the f64's bits
    /// u64, finite).
    enum QueryAnswer: Equatable {
        case hits([SearchHit])
        case notReady
        case refused

        var bytes: [UInt8] {
            guard case .hits(let hits) = self else { return SessionWire.resultAnswer(self == .notReady ? 1 : 2) }
            var payload = ByteWriter()
            payload.u32(UInt32(hits.count))
            for hit in hits {
                payload.u8(SessionWire.kindBits.first { $0.0 == hit.kind }?.1 ?? 0)
                payload.u8(UInt8(truncatingIfNeeded: hit.key.utf8.count))
                payload.raw(hit.key.utf8)
                payload.i64(hit.time.millis)
                payload.u32(UInt32(bitPattern: Int32(clamping: hit.time.utcOffsetSeconds)))
                if let rank = hit.rank {
                    payload.u8(1)
                    payload.u64(rank.bitPattern)
                } else {
                    payload.u8(0)
                }
            }
            return SessionWire.resultAnswer(0, payload: payload.bytes)
        }

        /// Reads the answer, `read(n)` giving the next n bytes; nil when malformed (a hit of no
        /// known kind, a key too long or not UTF-8, an offset over a day, a rank that is not a finite number, bytes
        /// left over, a payload longer than its hits can be).
        static func read(_ read: (Int) -> [UInt8]?) -> QueryAnswer? {
            let longestHit = 1 + 1 + SessionWire.longestKey + 8 + 4 + 1 + 8
            guard let (result, payload) = SessionWire.readResultAnswer(read, shortest: 4, longest: 4 + SessionWire.mostHits * longestHit) else { return nil }
            guard result == 0 else { return result == 1 ? .notReady : .refused }
            var hitsReader = ByteReader(payload)
            guard let count = hitsReader.u32(), Int(count) <= SessionWire.mostHits, Int(count) <= (payload.count - 4) / 15 else { return nil }
            var hits: [SearchHit] = []
            hits.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let bit = hitsReader.u8(), let kind = SessionWire.kindBits.first(where: { $0.1 == bit })?.0,
                      let keyLength = hitsReader.u8(), Int(keyLength) <= SessionWire.longestKey,
                      let key = hitsReader.raw(Int(keyLength)).flatMap({ String(validating: $0, as: UTF8.self) }),
                      let millis = hitsReader.i64(), let offset = hitsReader.u32().map({ Int(Int32(bitPattern: $0)) }),
                      abs(offset) <= 86_400, let ranked = hitsReader.u8(), ranked <= 1 else { return nil }
                var rank: Double?
                if ranked == 1 {
                    guard let bits = hitsReader.u64(), Double(bitPattern: bits).isFinite else { return nil }
                    rank = Double(bitPattern: bits)
                }
                hits.append(SearchHit(kind: kind, key: key, time: Instant(millis: millis, utcOffsetSeconds: offset), rank: rank))
            }
            return hitsReader.remaining == 0 ? .hits(hits) : nil
        }
    }
}
