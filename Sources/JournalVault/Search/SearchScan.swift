// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A ``SearchQuery`` evaluated over documents one at a time, as the index's FTS5 table
/// evaluates it: the same matches and, for a ranked search, the same bm25 from the same
/// statistics (documents of the kind, their tokens, the documents each phrase occurs in).
///
/// ``evaluate(_:)`` is pure and runs on every core (the documents' decryption feeds it);
/// ``add(_:)`` gathers the results on one thread, ``hits(ranked:)`` ranks and orders them.
///
/// ```swift
/// var scan = SearchScan(query)
/// for document in documents { scan.add(scan.evaluate(document)) }
/// let hits = scan.hits(ranked: true)
/// ```
struct SearchScan: Sendable {
    /// What ``evaluate(_:)`` found in one document: enough to rank it, nothing of its text.
    struct Evaluated: Sendable {
        var kind: SearchKind
        var key: String
        var time: Instant
        var tokenCount: Int
        var matches: Bool
        /// Occurrences of each of the query's ``SearchQuery/rankedPhrases`` in the document.
        var counts: [Int]
    }

    /// Statistics of the documents of one kind, as FTS5 keeps them for its table.
    private struct KindStatistics {
        var documents = 0
        var tokens = 0
        /// Documents each ranked phrase occurs in.
        var documentsWith: [Int]
        var matched: [Evaluated] = []

        mutating func add(_ evaluated: Evaluated) {
            documents += 1
            tokens += evaluated.tokenCount
            for (index, count) in evaluated.counts.enumerated() where count > 0 { documentsWith[index] += 1 }
            if evaluated.matches { matched.append(evaluated) }
        }
    }

    let query: SearchQuery
    /// The phrases in folded bytes: ``SearchQuery/rankedPhrases``, then the exclusions.
    private let ranked: [Pattern]
    private let excluded: [Pattern]
    /// For each group of ``SearchQuery/required``, the positions of its phrases in `ranked`.
    private let groups: [[Int]]
    private var statistics: [SearchKind: KindStatistics] = [:]
    /// Whether every token of every phrase is one the tokenizer could make (the query parser's
    /// always are): folded text is then searched as its token list would be.
    private let phrasesAreTokens: Bool

    init(_ query: SearchQuery) {
        self.query = query
        ranked = query.rankedPhrases.map(Pattern.init)
        excluded = query.excluded.map(Pattern.init)
        phrasesAreTokens = (ranked + excluded).allSatisfy { $0.wordTokens != nil }
        var groups: [[Int]] = []
        var next = 0
        for group in query.required {
            groups.append(Array(next..<next + group.count))
            next += group.count
        }
        self.groups = groups
    }

    /// Tokenizes `document` and counts each phrase in it.
    func evaluate(_ document: SearchDocument) -> Evaluated {
        var text = document.text
        return text.withUTF8 { evaluate(document, utf8: $0) }
    }

    /// The same for `document` whose text is `text`, valid UTF-8 (its own `text` is not read).
    func evaluate(_ document: SearchDocument, utf8 text: UnsafeBufferPointer<UInt8>) -> Evaluated {
        SearchTokenizer.withTokens(utf8: text) { tokens in
            let counts = ranked.map { $0.occurrences(in: tokens) }
            let matches = groups.allSatisfy { group in group.contains { counts[$0] > 0 } }
                && !excluded.contains { $0.occurs(in: tokens) }
            return Evaluated(kind: document.kind, key: document.key, time: document.time, tokenCount: tokens.count,
                             matches: matches, counts: counts)
        }
    }

    /// What an unranked scan needs of `document`, whose text is `text`: whether it matches
    /// (``matches(utf8:)``), without the counts only bm25 reads.
    func evaluateUnranked(_ document: SearchDocument, utf8 text: UnsafeBufferPointer<UInt8>) -> Evaluated {
        Evaluated(kind: document.kind, key: document.key, time: document.time, tokenCount: 0, matches: matches(utf8: text), counts: [])
    }

    /// Whether `text`, valid UTF-8, matches: what an unranked scan asks of each record. No
    /// statistics are needed, so the token list is not built: the phrases are looked for in
    /// the folded text, each only until its first occurrence.
    func matches(utf8 text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard phrasesAreTokens else {
            return SearchTokenizer.withTokens(utf8: text) { tokens in
                groups.allSatisfy { group in group.contains { ranked[$0].occurs(in: tokens) } }
                    && !excluded.contains { $0.occurs(in: tokens) }
            }
        }
        return SearchTokenizer.withFoldedText(utf8: text) { folded in
            groups.allSatisfy { group in group.contains { ranked[$0].occurs(in: folded) } }
                && !excluded.contains { $0.occurs(in: folded) }
        }
    }

    /// The UTF-8 byte ranges of `text` that the tokens inside an occurrence of a required
    /// phrase were folded from, in order and not overlapping: what a terminal shows in bold.
    func matchedRanges(in text: String) -> [Range<Int>] {
        let ranges = SearchTokenizer.withTokens(of: text) { tokens -> [Range<Int>] in
            var matched = Set<Int>()
            for pattern in ranked {
                pattern.forEachStart(in: tokens) {
                    matched.formUnion($0..<$0 + pattern.tokens.count)
                    return true
                }
            }
            return matched.map(tokens.sourceRange)
        }.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// Counts a document of the kind searched (every one, matching or not: they make the statistics).
    mutating func add(_ evaluated: Evaluated) {
        // Changed in place: a copy taken out of the dictionary would share `matched` with the
        // stored one, and every append would then copy the whole array (quadratic in the hits).
        statistics[evaluated.kind, default: KindStatistics(documentsWith: Array(repeating: 0, count: ranked.count))].add(evaluated)
    }

    /// The matching documents, kind by kind (``SearchKind/allCases`` order), each kind newest
    /// first or, `ranked`, by bm25.
    func hits(ranked rankedSearch: Bool) -> [SearchHit] {
        SearchKind.allCases.flatMap { kind -> [SearchHit] in
            guard let statistics = statistics[kind] else { return [] }
            let ranking = rankedSearch ? BM25(documents: statistics.documents, tokens: statistics.tokens,
                                              documentsWith: statistics.documentsWith) : nil
            return SearchHit.sorted(statistics.matched.map { evaluated in
                SearchHit(kind: kind, key: evaluated.key, time: evaluated.time,
                          rank: ranking.map { $0.score(counts: evaluated.counts, tokenCount: evaluated.tokenCount) })
            })
        }
    }

    /// FTS5's bm25 (`fts5Bm25Function` in SQLite's fts5_aux.c), step for step, so that both
    /// paths compute the same double: k1 = 1.2, b = 0.75, IDF = ln((N − n + 0.5) / (n + 0.5))
    /// clamped to 1e-6, summed over the phrases in FTS5's order.
    struct BM25 {
        private static let k1 = 1.2, b = 0.75
        let averageLength: Double
        let idf: [Double]

        init(documents: Int, tokens: Int, documentsWith: [Int]) {
            averageLength = Double(tokens) / Double(documents)
            idf = documentsWith.map { hits in
                let idf = log((Double(documents - hits) + 0.5) / (Double(hits) + 0.5))
                return idf <= 0 ? 1e-6 : idf
            }
        }

        /// The score (FTS5's value negated: higher is better); 0 without phrases.
        func score(counts: [Int], tokenCount: Int) -> Double {
            let length = Double(tokenCount)
            var score = 0.0
            for (index, count) in counts.enumerated() {
                let frequency = Double(count)
                score += idf[index] * ((frequency * (Self.k1 + 1.0)) / (frequency + Self.k1 * (1 - Self.b + Self.b * length / averageLength)))
            }
            return score
        }
    }

    /// One phrase as folded UTF-8 tokens.
    private struct Pattern: Sendable {
        let tokens: [[UInt8]]
        let prefix: Bool
        /// For each token, whether it is a run of word scalars rather than a scalar of its own
        /// (CJK, emoji); nil when a token is neither, so not one the tokenizer makes.
        let wordTokens: [Bool]?

        init(_ phrase: SearchQuery.Phrase) {
            tokens = phrase.tokens.map { Array($0.utf8) }
            prefix = phrase.prefix
            let shapes = phrase.tokens.compactMap(Self.isWordToken)
            wordTokens = shapes.count == phrase.tokens.count ? shapes : nil
        }

        /// True for a run of word scalars (as long as a token keeps), false for one scalar of
        /// its own, nil for anything else.
        private static func isWordToken(_ token: String) -> Bool? {
            var text = token
            let table = text.withUTF8 { ClassTable.forText(needed: FoldTable.isNeeded(for: $0)) }
            let classes = token.unicodeScalars.map { $0.isASCII ? (ClassTable.isASCIIWord(UInt8($0.value)) ? .word : .separator) : table.classify($0.value) }
            if classes == [.single] { return false }
            guard !classes.isEmpty, classes.allSatisfy({ $0 == .word }), token.utf8.count <= SearchTokenizer.maximumTokenBytes else { return nil }
            return true
        }

        /// Whether the phrase occurs in `text`, as it would in its token list: the first token's
        /// first byte found by memchr, each place confirmed where the tokenizer cuts — a word token neither
        /// begins nor ends inside a run of word scalars (unless the run is cut at
        /// ``SearchTokenizer/maximumTokenBytes`` right there), and each next token follows
        /// after separators only. Needs ``wordTokens``.
        func occurs(in text: SearchTokenizer.FoldedText) -> Bool {
            guard let first = tokens.first, !first.isEmpty, let base = text.bytes.baseAddress, let wordTokens else { return tokens.isEmpty }
            var from = 0
            while from + first.count <= text.bytes.count {
                guard let found = memchr(base + from, Int32(first[first.startIndex]), text.bytes.count - from - first.count + 1) else { return false }
                let start = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                if !(wordTokens[0] && text.followsWordScalar(start)) && holds(in: text, at: start, wordTokens: wordTokens) { return true }
                from = start + 1
            }
            return false
        }

        /// Whether the whole phrase is at `start` of `text`, where its first token begins a token.
        private func holds(in text: SearchTokenizer.FoldedText, at start: Int, wordTokens: [Bool]) -> Bool {
            let bytes = text.bytes
            var position = start
            for (index, token) in tokens.enumerated() {
                guard position + token.count <= bytes.count,
                      token.withUnsafeBytes({ memcmp(bytes.baseAddress! + position, $0.baseAddress!, token.count) }) == 0 else { return false }
                let last = index == tokens.count - 1
                position += token.count
                if last && prefix { return true }
                if wordTokens[index], position < bytes.count, case let (.word, length) = text.scalar(at: position) {
                    // The run goes on: it is this token only when cut here, and the rest of it is left out.
                    guard token.count + length > SearchTokenizer.maximumTokenBytes else { return false }
                    while position < bytes.count, text.scalar(at: position).class == .word { position += text.scalar(at: position).length }
                }
                if last { return true }
                while position < bytes.count, case let (.separator, length) = text.scalar(at: position) { position += length }
            }
            return true
        }

        /// Occurrences, overlapping ones included (FTS5 counts each position a phrase starts at).
        func occurrences(in list: SearchTokenizer.TokenList) -> Int {
            var count = 0
            forEachStart(in: list) { _ in count += 1; return true }
            return count
        }

        func occurs(in list: SearchTokenizer.TokenList) -> Bool {
            var found = false
            forEachStart(in: list) { _ in found = true; return false }
            return found
        }

        /// Calls `body` with each position the phrase starts at, while it answers true.
        func forEachStart(in list: SearchTokenizer.TokenList, _ body: (Int) -> Bool) {
            guard list.count >= tokens.count else { return }
            let last = tokens.count - 1
            for start in 0...(list.count - tokens.count) {
                var matched = true
                for (offset, token) in tokens.enumerated() where !Self.matches(list[start + offset], token, prefix: prefix && offset == last) {
                    matched = false
                    break
                }
                if matched && !body(start) { return }
            }
        }

        @inline(__always)
        private static func matches(_ candidate: UnsafeBufferPointer<UInt8>, _ token: [UInt8], prefix: Bool) -> Bool {
            guard prefix ? candidate.count >= token.count : candidate.count == token.count else { return false }
            return token.withUnsafeBufferPointer { memcmp(candidate.baseAddress!, $0.baseAddress!, token.count) == 0 }
        }
    }
}
