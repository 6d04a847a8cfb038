// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

// AI analysis records at library level (FORMAT.md §1): storing and reading them back,
// listing by entry, model and processing time, search, and the cascade from their entry.

/// 2026-01-DD at `hour`:00 UTC, seen from UTC`offsetHours`.
fileprivate func analysisMoment(day: Int, hour: Int, offsetHours: Int = 0) -> Instant {
    Instant(millis: 1_767_225_600_000 + Int64(day - 1) * 86_400_000 + Int64(hour) * 3_600_000, utcOffsetSeconds: offsetHours * 3600)
}

fileprivate func analysisDay(_ day: Int) -> DateExpression {
    .day(CivilDay(year: 2026, month: 1, day: day)!)
}

fileprivate func analysisMembers(_ value: JSONValue) -> [String] {
    guard case .object(let members) = value else { return [] }
    return members.map(\.0)
}

fileprivate func expectAnalysisError<R>(sourceLocation: SourceLocation = #_sourceLocation, where predicate: (VaultError) -> Bool,
                                        _ body: () throws -> R) {
    let error = #expect(throws: VaultError.self, sourceLocation: sourceLocation) { _ = try body() }
    if let error, !predicate(error) { Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation) }
}

fileprivate func isAnalysisNotFound(_ error: VaultError) -> Bool {
    if case .notFound = error { true } else { false }
}

@Suite struct AnalysisTests {
    @Test func anAnalysisIsStoredAndReadBackWhole() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Lunch with Anna by the sea.")
        let entities: JSONValue = .object([("people", .array([.string("Anna")])), ("places", .array([.string("the sea")])),
                                           ("score", .number(0.75)), ("count", .integer(2)), ("ok", .bool(true)), ("none", .null)])
        let extra: JSONValue = .object([("summary", .string("A calm lunch."))])
        let added = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "llama3", processedAt: analysisMoment(day: 5, hour: 12, offsetHours: 9),
                                                           sentiment: "calm", themes: ["sea", "friendship"], entities: entities, extra: extra))
        let reopened = try vault.unlock()
        let read = try reopened.analysis(id: added.id)
        #expect(read == added)
        #expect(read.entryID == entry.id)
        #expect(read.model == "llama3")
        #expect(read.processedAt == analysisMoment(day: 5, hour: 12, offsetHours: 9))
        #expect(read.sentiment == "calm")
        #expect(read.themes == ["sea", "friendship"])
        #expect(read.entities == entities)
        #expect(read.extra == extra)
        #expect(read.version == Analysis.currentVersion)
        #expect(Analysis.currentVersion == 2)
        #expect(try reopened.analyses() == [added])
    }

    @Test func anAnalysisWithoutSentimentOrEntitiesReadsBackAsNull() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Quiet day.")
        let added = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now(), themes: ["rest"]))
        let read = try vault.journal.analysis(id: added.id)
        #expect(read.sentiment == nil)
        #expect(read.entities == .null)
        #expect(read.json["sentiment"] == .null)
        #expect(read.json["entities"] == .null)
        #expect(read.json["themes"] == .array([.string("rest")]))
    }

    @Test func theJSONHasTheDocumentedShape() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Shape.")
        let analysis = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "toy", processedAt: analysisMoment(day: 5, hour: 23, offsetHours: 9),
                                                              sentiment: "ok", themes: ["a"], entities: .object([("k", .string("v"))]),
                                                              extra: .object([("hidden", .string("x"))])))
        let json = analysis.json
        #expect(analysisMembers(json) == ["id", "entry_id", "model", "processed_at", "sentiment", "themes", "entities"])
        #expect(json["id"]?.stringValue == analysis.id.uuidString.lowercased())
        #expect(json["entry_id"]?.stringValue == entry.id.uuidString.lowercased())
        #expect(json["model"] == .string("toy"))
        #expect(json["processed_at"] == .string("2026-01-06T08:00:00.000+09:00"))
        #expect(json["sentiment"] == .string("ok"))
        #expect(json["entities"] == .object([("k", .string("v"))]))
    }

    @Test func anAnalysisOfAnUnknownEntryIsRefusedAndNothingStored() throws {
        let vault = try TemporaryVault()
        expectAnalysisError(where: isAnalysisNotFound) {
            try vault.journal.addAnalysis(Analysis(entryID: UUID(), model: "m", processedAt: .now(), sentiment: "lost"),
                                          nodes: [NodeReference(type: "person", name: "Nobody")])
        }
        #expect(try vault.count("analysis") == 0)
        #expect(try vault.count("knowledge_node") == 0)
        expectAnalysisError(where: isAnalysisNotFound) { try vault.journal.analysis(id: UUID()) }
    }

    @Test func analysesAreListedByEntryModelAndProcessingTime() throws {
        let vault = try TemporaryVault()
        let first = try vault.journal.addEntry("First entry.")
        let second = try vault.journal.addEntry("Second entry.")
        // Processed on Jan 3, 5 (late evening UTC, i.e. Jan 6 in Tokyo), 5 and 7.
        let a = try vault.journal.addAnalysis(Analysis(entryID: first.id, model: "llama3", processedAt: analysisMoment(day: 3, hour: 10), sentiment: "a"))
        let b = try vault.journal.addAnalysis(Analysis(entryID: second.id, model: "mistral", processedAt: analysisMoment(day: 5, hour: 20, offsetHours: 9), sentiment: "b"))
        let c = try vault.journal.addAnalysis(Analysis(entryID: first.id, model: "mistral", processedAt: analysisMoment(day: 5, hour: 23), sentiment: "c"))
        let d = try vault.journal.addAnalysis(Analysis(entryID: second.id, model: "llama3", processedAt: analysisMoment(day: 7, hour: 1), sentiment: "d"))

        func ids(_ build: (inout AnalysisQuery) -> Void) throws -> [UUID] {
            var query = AnalysisQuery()
            build(&query)
            return try vault.journal.analyses(query).map(\.id)
        }
        #expect(try ids { _ in } == [a.id, b.id, c.id, d.id], "oldest processed first")
        #expect(try ids { $0.entryID = first.id } == [a.id, c.id])
        #expect(try ids { $0.entryID = second.id } == [b.id, d.id])
        #expect(try ids { $0.model = "mistral" } == [b.id, c.id])
        #expect(try ids { $0.model = "Mistral" } == [], "model names compare exactly")
        #expect(try ids { $0.model = "llama3"; $0.entryID = second.id } == [d.id])
        // Day bounds compare the local day of processing; `to` includes its whole day.
        #expect(try ids { $0.from = analysisDay(5); $0.to = analysisDay(5) } == [c.id])
        #expect(try ids { $0.from = analysisDay(6) } == [b.id, d.id])
        #expect(try ids { $0.to = analysisDay(5) } == [a.id, c.id])
        #expect(try ids { $0.from = analysisDay(4); $0.to = analysisDay(6) } == [b.id, c.id])
        // Moment bounds compare exactly.
        #expect(try ids { $0.from = .instant(analysisMoment(day: 5, hour: 21)) } == [c.id, d.id])
        #expect(try ids { $0.to = .instant(analysisMoment(day: 5, hour: 20)) } == [a.id, b.id])
        #expect(try ids { $0.entryID = UUID() } == [])
    }

    @Test func entryBoundsCompareTheAnalysedEntrysLocalDay() throws {
        let vault = try TemporaryVault()
        // Jan 5 at 23:00 UTC is Jan 6 in Tokyo: the entry's own offset decides its day.
        let jan5Tokyo = try vault.journal.addEntry("Tokyo evening.", at: analysisMoment(day: 5, hour: 23, offsetHours: 9))
        let jan5 = try vault.journal.addEntry("Plain day.", at: analysisMoment(day: 5, hour: 12))
        let ofTokyo = try vault.journal.addAnalysis(Analysis(entryID: jan5Tokyo.id, model: "m", processedAt: analysisMoment(day: 1, hour: 1)))
        let ofPlain = try vault.journal.addAnalysis(Analysis(entryID: jan5.id, model: "m", processedAt: analysisMoment(day: 20, hour: 1)))
        func ids(_ build: (inout AnalysisQuery) -> Void) throws -> [UUID] {
            var query = AnalysisQuery()
            build(&query)
            return try vault.journal.analyses(query).map(\.id)
        }
        #expect(try ids { $0.entryFrom = analysisDay(5); $0.entryTo = analysisDay(5) } == [ofPlain.id])
        #expect(try ids { $0.entryFrom = analysisDay(6) } == [ofTokyo.id])
        #expect(try ids { $0.entryTo = analysisDay(6) } == [ofTokyo.id, ofPlain.id])
        #expect(try ids { $0.entryFrom = analysisDay(5); $0.from = analysisDay(10) } == [ofPlain.id], "both kinds of bound at once")
        #expect(try ids { $0.entryFrom = analysisDay(7) } == [])
    }

    @Test func deletingAnEntryDeletesItsAnalysesAndTheRelationsLearntFromIt() throws {
        let vault = try TemporaryVault()
        let doomed = try vault.journal.addEntry("Walked with Anna to the harbour.")
        let kept = try vault.journal.addEntry("Called Ben.")
        let me = NodeReference(type: "person", name: "me")
        let doomedAnalysis = try vault.journal.addAnalysis(
            Analysis(entryID: doomed.id, model: "m", processedAt: .now(), sentiment: "calm"),
            nodes: [NodeReference(type: "place", name: "harbour")],
            relations: [RelationDraft(from: me, to: NodeReference(type: "person", name: "Anna"), type: "walked with", strength: 0.8)])
        let keptAnalysis = try vault.journal.addAnalysis(
            Analysis(entryID: kept.id, model: "m", processedAt: .now(), sentiment: "busy"),
            relations: [RelationDraft(from: me, to: NodeReference(type: "person", name: "Ben"), type: "called", strength: 0.3)])
        let message = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "About the harbour walk", entryID: doomed.id))
        #expect(try vault.count("knowledge_relation") == 2)
        #expect(try vault.count("knowledge_node") == 4)

        try vault.journal.deleteEntry(id: doomed.id)

        expectAnalysisError(where: isAnalysisNotFound) { try vault.journal.analysis(id: doomedAnalysis.id) }
        #expect(try vault.journal.analyses() == [keptAnalysis])
        #expect(try vault.count("analysis", where: "entry_id = ?", [doomed.id.storageText]) == 0)
        let relations = try vault.journal.allRelations()
        #expect(relations.count == 1)
        #expect(relations.first?.entryID == kept.id)
        #expect(relations.first?.type == "called")
        // Nodes stay: they are shared knowledge, not the entry's.
        #expect(try vault.count("knowledge_node") == 4)
        // The chat message survives without its link.
        let survivor = try #require(try vault.journal.messages(inThread: message.threadID).first)
        #expect(survivor.id == message.id)
        #expect(survivor.entryID == nil)
        let report = try vault.journal.check()
        #expect(report.isClean, "\(report.problems)")
    }

    @Test func deletingAnAnalysisKeepsTheGraph() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Met Carla.")
        let analysis = try vault.journal.addAnalysis(
            Analysis(entryID: entry.id, model: "m", processedAt: .now(), sentiment: "glad"),
            relations: [RelationDraft(from: NodeReference(type: "person", name: "me"), to: NodeReference(type: "person", name: "Carla"),
                                      type: "met", strength: 0.5)])
        try vault.journal.deleteAnalysis(id: analysis.id)
        #expect(try vault.journal.analyses().isEmpty)
        #expect(try vault.journal.nodes().count == 2)
        #expect(try vault.journal.allRelations().count == 1)
        expectAnalysisError(where: isAnalysisNotFound) { try vault.journal.deleteAnalysis(id: analysis.id) }
    }

    @Test func replacingEarlierDeletesTheEntrysAnalysesByTheModelInTheSameWrite() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Seen twice.")
        let other = try vault.journal.addEntry("Seen once.")
        let relation = RelationDraft(from: NodeReference(type: "person", name: "me"), to: NodeReference(type: "person", name: "Dana"),
                                     type: "met", strength: 0.4)
        let old = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now(), sentiment: "old"), relations: [relation])
        let byOtherModel = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "n", processedAt: .now(), sentiment: "n"))
        let ofOtherEntry = try vault.journal.addAnalysis(Analysis(entryID: other.id, model: "m", processedAt: .now(), sentiment: "o"))
        var stronger = relation
        stronger.strength = 0.9
        let new = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now(), sentiment: "new"),
                                                relations: [stronger], replacingEarlier: true)
        #expect(Set(try vault.journal.analyses().map(\.id)) == [new.id, byOtherModel.id, ofOtherEntry.id])
        expectAnalysisError(where: isAnalysisNotFound) { try vault.journal.analysis(id: old.id) }
        #expect(try vault.journal.allRelations().map(\.strength) == [0.9], "the relation is updated, not doubled")
        #expect(try vault.journal.nodes().count == 2)
        // A replacement that fails (an unknown entry) deletes nothing.
        #expect(throws: VaultError.self) {
            try vault.journal.addAnalysis(Analysis(entryID: UUID(), model: "m", processedAt: .now()), replacingEarlier: true)
        }
        // Without it, a second analysis is added as before.
        try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now(), sentiment: "another"))
        var ofEntry = AnalysisQuery()
        ofEntry.entryID = entry.id
        #expect(try vault.journal.analyses(ofEntry).count == 3)
        #expect(try vault.journal.check().isClean)
    }

    @Test func analysisIDsResolveFromUniquePrefixes() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Prefix.")
        let analysis = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now(), sentiment: "x"))
        #expect(try vault.journal.resolveAnalysisID(analysis.id.uuidString) == analysis.id)
        #expect(try vault.journal.resolveAnalysisID(String(analysis.id.storageText.prefix(6))) == analysis.id)
        expectAnalysisError(where: { if case .invalidID = $0 { true } else { false } }) { try vault.journal.resolveAnalysisID("ab") }
        // An entry's id is not an analysis id.
        expectAnalysisError(where: isAnalysisNotFound) { try vault.journal.resolveAnalysisID(entry.id.storageText) }
    }

    @Test func searchFindsSentimentThemesAndEntityValuesButNotJSONSyntax() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Search me.")
        let bySentiment = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: analysisMoment(day: 2, hour: 9),
                                                                 sentiment: "Sérène"))
        let byTheme = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: analysisMoment(day: 4, hour: 9),
                                                             themes: ["gardening", "serene mornings"]))
        let byEntity = try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: analysisMoment(day: 6, hour: 9),
                                                              entities: .object([("people", .array([.object([("name", .string("Zoë Quill"))])]))])))
        let search = { (query: String, from: DateExpression?, to: DateExpression?) in
            try vault.journal.searchIDs(query, kinds: [.analysis], from: from, to: to)
        }
        // Newest first; words match whole tokens (GARDEN no longer finds "gardening": garden* does).
        #expect(try search("serene", nil, nil) == [byTheme.id, bySentiment.id])
        #expect(try search("GARDEN", nil, nil).isEmpty)
        #expect(try search("GARDEN*", nil, nil) == [byTheme.id])
        #expect(try search("zoe quill", nil, nil) == [byEntity.id])
        #expect(throws: SearchQueryError.noWords, "JSON punctuation is no word") { try search("{ : [ ] }", nil, nil) }
        #expect(try search("people name", nil, nil) == [byEntity.id], "member names are searched")
        #expect(try search("serene", analysisDay(3), nil) == [byTheme.id])
        #expect(try search("serene", nil, analysisDay(3)) == [bySentiment.id])
        #expect(try search("absent", nil, nil).isEmpty)
    }
}
