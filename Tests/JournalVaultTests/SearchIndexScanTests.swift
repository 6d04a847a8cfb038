// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import JournalVault

/// The index holds to the scan: over seeded random corpora (many scripts, diacritics, emoji,
/// long texts), random upserts and removals, and random queries made from the corpus's own
/// tokens, ``SearchIndex/hits(_:kinds:ranked:)`` gives exactly the scan's hits — the same
/// set, the same order, the same ranks within a small epsilon — for every query.
@Suite("search index against the scan")
struct SearchIndexScanTests {
    @Test("seed 1, in the quick run")
    func quickSeed() throws {
        try Self.run(seed: 1, documents: 60, rounds: 12, longTexts: false)
    }

    @Test("more seeds, larger corpora and long texts", .tags(.slow), .notInQuickRun, arguments: Array(2...6) as [UInt64])
    func moreSeeds(seed: UInt64) throws {
        try Self.run(seed: seed, documents: 150, rounds: 20, longTexts: true)
    }

    @Test("a vault's own documents: its scan and an index built from the same documents agree, dates included")
    func vaultDocuments() throws {
        let vault = try TemporaryVault()
        var generator = SeededGenerator(seed: 77)
        let journal = vault.journal
        let day: Int64 = 86_400_000
        let start: Int64 = 1_767_225_600_000   // 2026-01-01T00:00Z
        var entry: Entry?
        for index in 0..<40 {
            let offset = [0, 3600, -18_000, 32_400][index % 4]
            let moment = Instant(millis: start + Int64(index) * day / 3, utcOffsetSeconds: offset)
            entry = try journal.addEntry(Self.text(&generator, words: Int.random(in: 1...30, using: &generator)), at: moment)
            if index % 5 == 0 {
                try journal.addMessage(ChatMessageDraft(role: .user, content: Self.text(&generator, words: 8), timestamp: moment))
            }
            if index % 7 == 0, let entry {
                try journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: moment, sentiment: Self.word(&generator),
                                                 themes: [Self.word(&generator), Self.word(&generator)],
                                                 entities: .object([("people", .array([.string(Self.word(&generator))]))])))
            }
        }
        let index = try SearchIndex()
        for kind in SearchKind.allCases {
            try journal.forEachSearchDocument(of: kind, transform: { $0 }) { try index.upsert($0) }
        }
        #expect(index.documentCount == 40 + 8 + 6)
        let corpus = try SearchKind.allCases.flatMap { kind in
            var documents: [SearchDocument] = []
            try journal.forEachSearchDocument(of: kind, transform: { $0 }) { documents += $0 }
            return documents
        }
        #expect(try journal.storedSearchFingerprints(of: .entry) == index.fingerprints(kind: .entry))
        let bounds: [(DateExpression?, DateExpression?)] = [
            (nil, nil), (.day(CivilDay(year: 2026, month: 1, day: 4)!), nil), (nil, .day(CivilDay(year: 2026, month: 1, day: 6)!)),
            (.instant(Instant(millis: start + 2 * day, utcOffsetSeconds: 0)), .instant(Instant(millis: start + 9 * day, utcOffsetSeconds: 0))),
        ]
        for _ in 0..<30 {
            let query = Self.query(&generator, corpus: corpus)
            guard let parsed = try? SearchQuery.parse(query) else { continue }
            for (from, to) in bounds {
                for ranked in [false, true] {
                    let request = SearchRequest(query: parsed, from: from, to: to, ranked: ranked)
                    let scanned = try journal.search(request)
                    let indexed = request.withinDates(try index.hits(parsed, kinds: request.kinds, ranked: ranked))
                    Self.expectSame(indexed, scanned, "\(query) from \(String(describing: from)) to \(String(describing: to)) ranked \(ranked)")
                    // What a command prints: the same records in the same order (entries streamed by the scan).
                    var printed: [String] = []
                    try journal.forEachSearchMatch(request, transform: Self.key) { printed.append($0) }
                    #expect(printed == scanned.map { "\($0.kind.rawValue)/\($0.key)" }, "\(query) ranked \(ranked)")
                }
            }
        }
    }

    @Test("an unranked match found in the folded text is the token list's, runs cut at the token limit included")
    func foldedTextMatches() throws {
        var generator = SeededGenerator(seed: 9)
        // Runs longer than a token keeps, cut inside or at the end of a scalar, and words inside words.
        let longRuns = [String(repeating: "tea", count: 400), String(repeating: "é", count: 700) + "tea",
                        String(repeating: "a", count: 1023) + "éwalk", String(repeating: "ab", count: 512), "sidewalk", "walking"]
        let documents = (0..<300).map { index in
            var document = Self.randomDocument(&generator, key: String(index), longTexts: false)
            if index % 3 == 0 { document.text += Self.separators.randomElement(using: &generator)! + longRuns.randomElement(using: &generator)! }
            return document
        }
        let longTokens = longRuns.flatMap(SearchTokenizer.tokens)
        var queries = longTokens + longTokens.map { String($0.prefix(600)) + "*" } + longTokens.map { "\"\($0) walk\"" }
        queries += (0..<150).map { _ in Self.query(&generator, corpus: documents) }
        var compared = 0
        for text in queries {
            guard let parsed = try? SearchQuery.parse(text) else { continue }
            let scan = SearchScan(parsed)
            for document in documents {
                var utf8 = document.text
                let found = utf8.withUTF8 { scan.matches(utf8: $0) }
                #expect(found == scan.evaluate(document).matches, "\(text.prefix(40)) in \(document.text.prefix(60))")
                compared += found ? 1 : 0
            }
        }
        #expect(compared > 1000)
    }

    /// A result's kind and id, as a hit names them.
    @Sendable static func key(_ result: SearchResult) -> String {
        switch result {
        case .entry(let entry): "entry/" + entry.id.storageText
        case .chatMessage(let message): "chatMessage/" + message.id.storageText
        case .analysis(let analysis): "analysis/" + analysis.id.storageText
        }
    }

    // MARK: The randomized run

    /// Upserts and removals in rounds; after each, random queries through both paths.
    static func run(seed: UInt64, documents: Int, rounds: Int, longTexts: Bool) throws {
        var generator = SeededGenerator(seed: seed)
        let index = try SearchIndex()
        var corpus: [String: SearchDocument] = [:]   // by kind and key
        let keys = (0..<documents).map { String(format: "%08x-0000-4000-8000-%012x", $0, $0 * 7919) }
        func upsert(_ count: Int) throws {
            let batch = (0..<count).map { _ in randomDocument(&generator, key: keys.randomElement(using: &generator)!, longTexts: longTexts) }
            try index.upsert(batch)
            for document in batch { corpus[document.kind.rawValue + "/" + document.key] = document }
        }
        try upsert(documents)
        for round in 0..<rounds {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                try upsert(Int.random(in: 1...20, using: &generator))
            case 1:
                let kind = SearchKind.allCases.randomElement(using: &generator)!
                let removed = (0..<Int.random(in: 1...10, using: &generator)).map { _ in keys.randomElement(using: &generator)! }
                try index.remove(kind: kind, keys: removed)
                for key in removed { corpus[kind.rawValue + "/" + key] = nil }
            default:
                // A document rewritten with the same text but a new fingerprint and time.
                if let document = corpus.values.randomElement(using: &generator) {
                    var changed = document
                    changed.fingerprint = [UInt8.random(in: 0...255, using: &generator)]
                    changed.time = randomInstant(&generator)
                    try index.upsert([changed])
                    corpus[changed.kind.rawValue + "/" + changed.key] = changed
                }
            }
            #expect(index.documentCount == corpus.count)
            let documents = Array(corpus.values)
            for _ in 0..<12 {
                let text = query(&generator, corpus: documents)
                let parsed: SearchQuery
                do {
                    parsed = try SearchQuery.parse(text)
                } catch {
                    continue
                }
                let kinds = Set(SearchKind.allCases.filter { _ in Bool.random(using: &generator) })
                let searched = kinds.isEmpty ? Set(SearchKind.allCases) : kinds
                for ranked in [false, true] {
                    var scan = SearchScan(parsed)
                    for document in documents where searched.contains(document.kind) { scan.add(scan.evaluate(document)) }
                    let indexed = try index.hits(parsed, kinds: searched, ranked: ranked)
                    expectSame(indexed, scan.hits(ranked: ranked), "seed \(seed) round \(round): \(text) kinds \(searched.sorted()) ranked \(ranked)")
                }
            }
        }
    }

    static func expectSame(_ indexed: [SearchHit], _ scanned: [SearchHit], _ comment: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let same = indexed.count == scanned.count && zip(indexed, scanned).allSatisfy { index, scan in
            guard index.kind == scan.kind, index.key == scan.key, index.time == scan.time else { return false }
            switch (index.rank, scan.rank) {
            case (nil, nil): return true
            case let (left?, right?): return abs(left - right) <= 1e-9 * max(1, abs(left))
            default: return false
            }
        }
        #expect(same, "\(comment)\nindex: \(indexed.prefix(8).map { "\($0.key.prefix(8)) \($0.rank ?? .nan)" })\nscan:  \(scanned.prefix(8).map { "\($0.key.prefix(8)) \($0.rank ?? .nan)" })",
                sourceLocation: sourceLocation)
    }

    // MARK: Corpora

    /// Words of many scripts, in several spellings of case and accents.
    static let words: [String] = [
        "tea", "Tea", "TEA", "teatime", "coffee", "morning", "rain", "rainy", "green", "walk", "the", "a", "and", "of", "day", "night",
        "café", "Cafe", "CAFÉ", "cafeteria", "crème", "naïve", "Résumé", "résumé", "Zürich", "zurich", "façade", "Straße", "STRASSE",
        "Ærø", "Łódź", "don't", "e-mail", "3.14", "2026", "x_y",
        "καλημέρα", "ΚΑΛΗΜΕΡΑ", "Αθήνα", "θάλασσα", "привет", "ПРИВЕТ", "Москва", "ёлка", "елка",
        "東京", "京都", "日本語", "東京タワー", "ひらがな", "カタカナ", "ｶﾀｶﾅ", "สวัสดี", "ภาษาไทย", "한국어", "서울", "문장",
        "☕️", "👍🏽", "🌧", "❤️", "👨‍👩‍👧", "🇫🇷", "中文", "你好世界",
    ]
    static let separators = [" ", " ", " ", ", ", ". ", "\n", " — ", "! ", "? ", "; ", "\t", "…", "、", "。", " (", ") ", "\"", "-", "/"]

    static func word(_ generator: inout SeededGenerator) -> String { words.randomElement(using: &generator)! }

    static func text(_ generator: inout SeededGenerator, words count: Int) -> String {
        var text = ""
        for index in 0..<count {
            if index > 0 { text += separators.randomElement(using: &generator)! }
            text += word(&generator)
        }
        return text
    }

    static func randomInstant(_ generator: inout SeededGenerator) -> Instant {
        // Few distinct times, so ties (broken by id) are common.
        Instant(millis: 1_700_000_000_000 + Int64.random(in: 0..<40, using: &generator) * 3_600_000,
                utcOffsetSeconds: [0, 3600, -7200].randomElement(using: &generator)!)
    }

    /// A document of a random kind, time and text; `longTexts`: one in twenty of up to 1,500 words.
    static func randomDocument(_ generator: inout SeededGenerator, key: String, longTexts: Bool) -> SearchDocument {
        let length: Int
        switch Int.random(in: 0..<20, using: &generator) {
        case 0: length = 0                                                   // no token at all
        case 1: length = Int.random(in: longTexts ? 300...1500 : 60...200, using: &generator)
        default: length = Int.random(in: 1...40, using: &generator)
        }
        return SearchDocument(kind: SearchKind.allCases.randomElement(using: &generator)!, key: key, time: randomInstant(&generator),
                              fingerprint: [UInt8.random(in: 0...255, using: &generator)],
                              text: length == 0 ? "… — !" : text(&generator, words: length))
    }

    // MARK: Queries from the corpus's tokens

    static func query(_ generator: inout SeededGenerator, corpus: [SearchDocument]) -> String {
        let atoms = (0..<Int.random(in: 1...3, using: &generator)).map { _ in atom(&generator, corpus: corpus) }
        switch Int.random(in: 0..<8, using: &generator) {
        case 0: return atoms.joined(separator: " OR ")
        case 1: return atoms.map { "-" + $0 }.joined(separator: " ")                         // exclusions only
        case 2: return atoms.joined(separator: " ") + " -" + atom(&generator, corpus: corpus)
        case 3: return atoms[0] + " OR " + atom(&generator, corpus: corpus) + " " + atoms.dropFirst().joined(separator: " ")
        default: return atoms.joined(separator: " ")
        }
    }

    /// A word, a prefix or a phrase, taken from a random document's tokens (now and then a
    /// word of the word list as written, or one no document has).
    static func atom(_ generator: inout SeededGenerator, corpus: [SearchDocument]) -> String {
        guard let document = corpus.randomElement(using: &generator) else { return "tea" }
        let tokens = SearchTokenizer.tokens(document.text)
        guard !tokens.isEmpty else { return word(&generator) }
        let start = Int.random(in: 0..<tokens.count, using: &generator)
        switch Int.random(in: 0..<7, using: &generator) {
        case 0:
            return word(&generator)
        case 1:
            return "zzyzx"
        case 2:
            let token = Array(tokens[start].unicodeScalars)
            return String(String.UnicodeScalarView(token.prefix(Int.random(in: 1...token.count, using: &generator)))) + "*"
        case 3, 4:
            let phrase = tokens[start..<min(tokens.count, start + Int.random(in: 2...4, using: &generator))]
            return "\"" + phrase.joined(separator: " ") + "\"" + (Bool.random(using: &generator) ? "*" : "")
        default:
            return tokens[start]
        }
    }
}
