// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

@Suite("search index")
struct SearchIndexTests {
    private static func document(_ key: String, _ text: String, kind: SearchKind = .entry, millis: Int64, fingerprint: UInt8 = 1) -> SearchDocument {
        SearchDocument(kind: kind, key: key, time: Instant(millis: millis, utcOffsetSeconds: 3600), fingerprint: [fingerprint], text: text)
    }

    private static let corpus = [
        document("a", "Green tea in the morning", millis: 1_000),
        document("b", "Coffee, then green apples", millis: 2_000),
        document("c", "Tea and TEA and tea: teatime", millis: 500),
        document("d", "東京タワーに行った", millis: 4_000),
        document("m", "green tea chat", kind: .chatMessage, millis: 500),
        document("x", "calm; sea\ngreen", kind: .analysis, millis: 100),
    ]

    private func keys(_ index: SearchIndex, _ query: String, kinds: Set<SearchKind> = Set(SearchKind.allCases), ranked: Bool = false) throws -> [String] {
        try index.hits(try SearchQuery.parse(query), kinds: kinds, ranked: ranked).map(\.key)
    }

    @Test("words, phrases, prefixes, OR and exclusions; newest first within each kind, kinds in order")
    func queries() throws {
        let index = try SearchIndex()
        try index.upsert(Self.corpus)
        #expect(index.documentCount == 6)
        #expect(try keys(index, "green") == ["b", "a", "m", "x"])
        #expect(try keys(index, "green", kinds: [.analysis, .entry]) == ["b", "a", "x"])
        #expect(try keys(index, "\"green tea\"") == ["a", "m"])
        #expect(try keys(index, "tea*", kinds: [.entry]) == ["a", "c"])
        #expect(try keys(index, "tea", kinds: [.entry]) == ["a", "c"], "teatime is not tea")
        #expect(try keys(index, "coffee OR morning") == ["b", "a"])
        #expect(try keys(index, "green -apples", kinds: [.entry]) == ["a"])
        #expect(try keys(index, "-green", kinds: [.entry]) == ["d", "c"])
        #expect(try keys(index, "東京") == ["d"])
        #expect(try keys(index, "京東").isEmpty)
    }

    @Test("ranked: bm25, best first; the same ranks as the scan")
    func ranked() throws {
        let index = try SearchIndex()
        try index.upsert(Self.corpus)
        let query = try SearchQuery.parse("tea")
        let hits = try index.hits(query, kinds: [.entry], ranked: true)
        #expect(hits.map(\.key) == ["c", "a"], "three times tea ranks before newer once")
        var scan = SearchScan(query)
        for document in Self.corpus where document.kind == .entry { scan.add(scan.evaluate(document)) }
        #expect(scan.hits(ranked: true) == hits)
        #expect(try index.hits(try SearchQuery.parse("-tea"), kinds: [.entry], ranked: true).map(\.rank) == [0, 0])
    }

    @Test("upsert replaces by kind and key; remove; fingerprints")
    func upsertAndRemove() throws {
        let index = try SearchIndex()
        try index.upsert(Self.corpus)
        try index.upsert([Self.document("a", "now about rain", millis: 1_000, fingerprint: 9)])
        #expect(try keys(index, "morning").isEmpty)
        #expect(try keys(index, "rain") == ["a"])
        #expect(index.documentCount == 6)
        #expect(try index.fingerprints(kind: .entry) == ["a": [9], "b": [1], "c": [1], "d": [1]])
        try index.remove(kind: .entry, keys: ["a", "b", "absent"])
        #expect(try keys(index, "rain OR coffee").isEmpty)
        #expect(try index.fingerprints(kind: .entry).keys.sorted() == ["c", "d"])
        #expect(try index.fingerprints(kind: .chatMessage) == ["m": [1]])
        #expect(index.documentCount == 4)
        #expect(index.memoryBytes > 0)
    }
}
