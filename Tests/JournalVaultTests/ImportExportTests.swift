// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// Exports and imports at the library level (README "JSON", FORMAT.md §9): the lossless jv-export
/// round trip, the readers of each format, idempotence, and malformed files.
@Suite struct ImportExportTests {
    fileprivate static let utc = TimeZone(identifier: "UTC")!
    fileprivate static let epoch = Instant(millis: 0, utcOffsetSeconds: 0)

    /// The jv-export document of `journal` with a fixed `exported_at`.
    fileprivate static func export(_ journal: UnlockedVault) throws -> String {
        try journal.snapshot().jvExport(exportedAt: epoch).serialized(pretty: true)
    }

    /// A vault with entries at several offsets, stars and explicit tags, a chat, analyses and a graph.
    fileprivate static func populatedVault() throws -> TemporaryVault {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let walk = try journal.addEntry("Walked to the harbour with @Anna. Calm sea.", at: moment(hoursAfterJan5UTC: 9, offsetHours: 1),
                                        starred: true, tags: ["outdoors"])
        let tokyo = try journal.addEntry("Late in Tokyo\nramen #food", at: moment(hoursAfterJan5UTC: 14.5, offsetHours: 9))
        _ = try journal.addEntry("Next week. Quiet.", at: moment(hoursAfterJan5UTC: 24 * 7 + 3, offsetHours: -5))
        let thread = try journal.createThread(title: "About the walk", entryID: walk.id)
        _ = try journal.addMessage(ChatMessageDraft(threadID: thread.id, role: .user, content: "How was it?", model: "local",
                                                    language: "en", usage: .object([("tokens", .integer(12))]),
                                                    timestamp: moment(hoursAfterJan5UTC: 10, offsetHours: 1)))
        _ = try journal.addMessage(ChatMessageDraft(threadID: thread.id, role: .assistant, content: "Calm.", entryID: walk.id,
                                                    timestamp: moment(hoursAfterJan5UTC: 10.1, offsetHours: 1)))
        _ = try journal.addAnalysis(
            Analysis(entryID: walk.id, model: "m1", processedAt: moment(hoursAfterJan5UTC: 11, offsetHours: 1), sentiment: "calm",
                     themes: ["sea", "friendship"], entities: .object([("people", .strings(["Anna"]))]),
                     extra: .object([("confidence", .number(0.5))])),
            nodes: [NodeReference(type: "person", name: "Anna"), NodeReference(type: "place", name: "Harbour")],
            relations: [RelationDraft(from: NodeReference(type: "person", name: "Anna"), to: NodeReference(type: "place", name: "Harbour"),
                                      type: "walked to", strength: 0.75)])
        _ = try journal.addAnalysis(
            Analysis(entryID: tokyo.id, model: "m2", processedAt: moment(hoursAfterJan5UTC: 15, offsetHours: 9), themes: ["food"]),
            nodes: [NodeReference(type: "topic", name: "Ramen")], relations: [])
        return vault
    }

    // MARK: jv-export

    @Test func jvExportHasTheDocumentedShape() throws {
        let vault = try Self.populatedVault()
        let document = try JSONParser.parse(Array(try Self.export(vault.journal).utf8))
        guard case .object(let members) = document else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["format", "version", "exported_at", "entries", "threads", "analyses", "nodes", "relations",
                                     "reflections"])
        #expect(document["format"] == .string("jv-export"))
        #expect(document["version"] == .integer(1))
        guard case .object(let entry)? = document["entries"]?.arrayValue?.first else { Issue.record("no entry"); return }
        #expect(entry.map(\.0) == ["id", "created_at", "modified_at", "local_day", "starred", "tags", "title", "content"])
        #expect(document["entries"]?.arrayValue?.first?["created_at"] == .string("2026-01-05T10:00:00.000+01:00"))
        #expect(document["entries"]?.arrayValue?.first?["tags"] == .strings(["anna", "outdoors"]))
        guard case .object(let thread)? = document["threads"]?.arrayValue?.first else { Issue.record("no thread"); return }
        #expect(thread.map(\.0) == ["id", "title", "is_active", "created_at", "updated_at", "last_message_at", "message_count", "metadata", "messages"])
        guard case .object(let message)? = document["threads"]?.arrayValue?.first?["messages"]?.arrayValue?.first else { Issue.record("no message"); return }
        #expect(message.map(\.0) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id", "usage"])
        guard case .object(let analysis)? = document["analyses"]?.arrayValue?.first else { Issue.record("no analysis"); return }
        #expect(analysis.map(\.0) == ["id", "entry_id", "model", "processed_at", "sentiment", "themes", "entities", "extra"])
        guard case .object(let node)? = document["nodes"]?.arrayValue?.first else { Issue.record("no node"); return }
        #expect(node.map(\.0) == ["id", "type", "name", "created_at", "metadata"])
        guard case .object(let relation)? = document["relations"]?.arrayValue?.first else { Issue.record("no relation"); return }
        #expect(relation.map(\.0) == ["id", "from", "to", "type", "strength", "entry_id"])
    }

    @Test func jvExportImportsIntoANewVaultLosslessly() throws {
        let source = try Self.populatedVault()
        let document = try Self.export(source.journal)
        let snapshot = try ImportFormat.json.read(Array(document.utf8))
        let target = try TemporaryVault(passphrase: "another passphrase")
        let summary = try target.journal.importSnapshot(snapshot)
        #expect(summary.added == ["entries": 3, "threads": 1, "messages": 2, "analyses": 2, "nodes": 3, "relations": 1])
        // Lossless, but for the knowledge graph's ids, which each vault derives under its own key
        // (FORMAT.md §1.6): the same document once the source's are read as the target's.
        let sourceNodes = try source.journal.nodes()
        let targetNodes = try target.journal.nodes()
        var expected = document
        var nodeIDs: [UUID: UUID] = [:]
        for node in sourceNodes {
            let twin = try #require(targetNodes.first { $0.type == node.type && $0.name == node.name })
            nodeIDs[node.id] = twin.id
            expected = expected.replacingOccurrences(of: node.id.storageText, with: twin.id.storageText)
        }
        for relation in try source.journal.allRelations() {
            let twin = try #require(try target.journal.allRelations().first {
                $0.from == nodeIDs[relation.from] && $0.to == nodeIDs[relation.to] && $0.type == relation.type && $0.entryID == relation.entryID
            })
            expected = expected.replacingOccurrences(of: relation.id.storageText, with: twin.id.storageText)
        }
        #expect(try Self.export(target.journal) == expected)
        #expect(try target.journal.check().isClean)
        // Explicit tags stay explicit (findable by tag) and inline ones stay inline.
        var query = EntryQuery()
        query.tags = ["outdoors"]
        #expect(try target.journal.entries(query).count == 1)
    }

    @Test func importingTheSameDocumentTwiceChangesNothing() throws {
        let source = try Self.populatedVault()
        let document = try Self.export(source.journal)
        let target = try TemporaryVault()
        try target.journal.importSnapshot(try ImportFormat.json.read(Array(document.utf8)))
        let first = try Self.export(target.journal)
        let again = try target.journal.importSnapshot(try ImportFormat.json.read(Array(document.utf8)))
        #expect(again.changedNothing)
        #expect(again.unchanged == ["entries": 3, "threads": 1, "messages": 2, "analyses": 2, "nodes": 3, "relations": 1])
        #expect(try Self.export(target.journal) == first)
        // And into the vault it came from: nothing changes either.
        #expect(try source.journal.importSnapshot(try ImportFormat.json.read(Array(document.utf8))).changedNothing)
        #expect(try Self.export(source.journal) == document)
    }

    @Test func aChangedRecordIsUpdatedInPlace() throws {
        let source = try Self.populatedVault()
        let target = try TemporaryVault()
        try target.journal.importSnapshot(try ImportFormat.json.read(Array(try Self.export(source.journal).utf8)))
        let id = try #require(try source.journal.entries().first?.id)
        try source.journal.updateEntry(id: id, content: "Walked to the harbour with @Anna. Rough sea.")
        let summary = try target.journal.importSnapshot(try ImportFormat.json.read(Array(try Self.export(source.journal).utf8)))
        #expect(summary.updated == ["entries": 1])
        #expect(try target.journal.entry(id: id).content == "Walked to the harbour with @Anna. Rough sea.")
        #expect(try target.journal.entries().count == 3)
    }

    /// New entries go in through the bulk path, known ones one by one; an id the snapshot
    /// repeats is added once and then updated, the last version winning, as in file order.
    @Test func newKnownAndRepeatedEntriesInOneSnapshot() throws {
        let target = try TemporaryVault()
        let known = try target.journal.addEntry("Known entry, old text.", at: moment(hoursAfterJan5UTC: 1, offsetHours: 0))
        let repeated = UUID()
        func entry(_ id: UUID, _ text: String, hours: Double) -> Entry {
            Entry(id: id, content: text, created: moment(hoursAfterJan5UTC: hours, offsetHours: 2), modifiedAt: 1_767_600_000_000 + Int64(hours))
        }
        var snapshot = VaultSnapshot()
        let fresh = (0..<700).map { entry(UUID(), "Fresh entry \($0) #bulk", hours: 2 + Double($0) / 100) }
        snapshot.entries = [entry(repeated, "First version", hours: 20)] + fresh
            + [Entry(id: known.id, content: "Known entry, new text.", created: known.created, modifiedAt: known.modifiedAt + 1),
               entry(repeated, "Second version #kept", hours: 21)]
        var reported = 0
        let summary = try target.journal.importSnapshot(snapshot) { done, total in
            #expect(done == reported + 1 && total == 703)
            reported = done
        }
        #expect(summary.added == ["entries": 701])
        #expect(summary.updated == ["entries": 2])
        #expect(reported == 703)
        #expect(try target.journal.entry(id: repeated).content == "Second version #kept")
        #expect(try target.journal.entry(id: known.id).content == "Known entry, new text.")
        var bulk = EntryQuery()
        bulk.tags = ["bulk"]
        #expect(try target.journal.entries(bulk).count == 700)
        #expect(try target.journal.check().isClean)
        // Again: the repeated id's first version is now older than the stored one, and skipped.
        let again = try target.journal.importSnapshot(snapshot)
        #expect(again.changedNothing && again.unchanged == ["entries": 702] && again.skipped == ["entries": 1])
        #expect(try target.journal.entry(id: repeated).content == "Second version #kept")
    }

    /// An entry's version is replaced only by a newer one; an older one is skipped, and another
    /// text of the same moment kept as a conflict copy, under an id every device derives alike.
    @Test func anEntryIsReplacedOnlyByANewerVersion() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let stored = try journal.addEntry("Stored text.", at: moment(hoursAfterJan5UTC: 1, offsetHours: 0))
        func version(_ text: String, modifiedAt: Int64, starred: Bool = false) -> VaultSnapshot {
            var snapshot = VaultSnapshot()
            snapshot.entries = [Entry(id: stored.id, content: text, created: stored.created, modifiedAt: modifiedAt, starred: starred)]
            return snapshot
        }
        let older = try journal.importSnapshot(version("Older text.", modifiedAt: stored.modifiedAt - 1))
        #expect(older.skipped == ["entries": 1] && older.changedNothing)
        let sameText = try journal.importSnapshot(version("Stored text.", modifiedAt: stored.modifiedAt, starred: true))
        #expect(sameText.skipped == ["entries": 1] && sameText.changedNothing)
        #expect(try journal.entries().map(\.content) == ["Stored text."])

        let concurrent = version("Concurrent text.", modifiedAt: stored.modifiedAt)
        #expect(try journal.importSnapshot(concurrent).conflictCopies == ["entries": 1])
        #expect(try journal.importSnapshot(concurrent).unchanged == ["entries": 1], "the copy is made once")
        let copyID = UnlockedVault.importConflictCopyID(of: stored.id, in: .entry, text: "Concurrent text.", syncKey: journal.keys.syncKey)
        let copy = try journal.entry(id: copyID)
        #expect(copy.content == "Conflict copy of entry \(stored.id.storageText): an imported file held this other text, "
                              + "changed at the same moment as the entry's.\n\nConcurrent text.")
        #expect(copy.created == stored.created && copy.modifiedAt == stored.modifiedAt)
        #expect(try journal.entry(id: stored.id).content == "Stored text.")

        #expect(try journal.importSnapshot(version("Newer text.", modifiedAt: stored.modifiedAt + 1)).updated == ["entries": 1])
        #expect(try journal.entry(id: stored.id).content == "Newer text.")
        #expect(try journal.importSnapshot(version("Older text.", modifiedAt: stored.modifiedAt), overwrite: true).updated == ["entries": 1])
        #expect(try journal.entry(id: stored.id).content == "Older text.")
        #expect(try journal.entries().count == 2)
        #expect(try journal.check().isClean)
    }

    /// A vault with the populated vault's export imported, and that export with another
    /// sentiment in an analysis and another text in a message, under the same ids and times.
    fileprivate static func importedWithAChangedAnalysisAndMessage() throws -> (TemporaryVault, String) {
        let document = try export(try populatedVault().journal)
        let target = try TemporaryVault()
        try target.journal.importSnapshot(try ImportFormat.json.read(Array(document.utf8)))
        let changed = document.replacingOccurrences(of: #""sentiment": "calm""#, with: #""sentiment": "stormy""#)
            .replacingOccurrences(of: #""content": "Calm.""#, with: #""content": "Rough.""#)
        #expect(changed != document)
        return (target, changed)
    }

    /// An analysis or thread is replaced only by a newer one, and a chat message, never changed
    /// once written, not at all: its other text is kept as a conflict copy in its thread.
    @Test func aChangedAnalysisOrMessageKeepsTheStoredOne() throws {
        let (target, changedAnalysisAndMessage) = try Self.importedWithAChangedAnalysisAndMessage()
        let changed = changedAnalysisAndMessage.replacingOccurrences(of: #""title": "About the walk""#, with: #""title": "Renamed""#)
        let summary = try target.journal.importSnapshot(try ImportFormat.json.read(Array(changed.utf8)))
        #expect(summary.skipped == ["analyses": 1, "threads": 1] && summary.conflictCopies == ["messages": 1] && summary.updated == [:])
        #expect(try target.journal.analyses(AnalysisQuery()).compactMap(\.sentiment) == ["calm"])
        let messages = try target.journal.messages().map(\.content)
        #expect(messages.count == 3 && messages.contains("Calm."))
        #expect(messages.contains { $0.hasPrefix("Conflict copy of message ") && $0.hasSuffix("\n\nRough.") })
        #expect(try target.journal.importSnapshot(try ImportFormat.json.read(Array(changed.utf8))).changedNothing)
        // A later analysis of the entry (processed after the stored one) replaces it.
        let later = changed.replacingOccurrences(of: "2026-01-05T12:00:00.000+01:00", with: "2026-01-05T13:00:00.000+01:00")
        #expect(later != changed)
        #expect(try target.journal.importSnapshot(try ImportFormat.json.read(Array(later.utf8))).updated == ["analyses": 1])
        #expect(try target.journal.analyses(AnalysisQuery()).compactMap(\.sentiment) == ["stormy"])
        #expect(try target.journal.check().isClean)
    }

    /// With `overwrite`, analyses and messages are rewritten whole, under the next revision of their metadata.
    @Test func aChangedAnalysisOrMessageIsRewrittenUnderTheNextRevision() throws {
        let (target, changed) = try Self.importedWithAChangedAnalysisAndMessage()
        let summary = try target.journal.importSnapshot(try ImportFormat.json.read(Array(changed.utf8)), overwrite: true)
        #expect(summary.updated == ["analyses": 1, "messages": 1])
        #expect(try target.journal.analyses(AnalysisQuery()).compactMap(\.sentiment).contains("stormy"))
        #expect(try target.journal.messages().map(\.content).contains("Rough."))
        let revisions = try target.journal.database.read { db in
            try Data.fetchAll(db, sql: "SELECT enc_meta FROM analysis UNION ALL SELECT enc_meta FROM chat_message")
                .map { RecordMeta(encoded: $0)?.revision }
        }
        #expect(revisions.sorted { ($0 ?? 0) < ($1 ?? 0) } == [1, 1, 2, 2])
        #expect(try target.journal.check().isClean)
    }

    @Test func snapshotFromToLimitsEntriesAndWhatBelongsToThem() throws {
        let vault = try Self.populatedVault()
        let firstDay = DateExpression.day(day(2026, 1, 5))
        let snapshot = try vault.journal.snapshot(from: firstDay, to: firstDay)
        #expect(snapshot.entries.map(\.title) == ["Walked to the harbour with @Anna.", "Late in Tokyo"])
        #expect(snapshot.analyses.count == 2)
        let later = try vault.journal.snapshot(from: .day(day(2026, 1, 6)))
        #expect(later.entries.map(\.title) == ["Next week."])
        #expect(later.analyses.isEmpty && later.relations.isEmpty && later.nodes.isEmpty && later.threads.isEmpty && later.messages.isEmpty)
        // Only the walk's analysis, relation and the nodes it joins: a window around 10:00+01:00.
        let walkOnly = try vault.journal.snapshot(from: .instant(moment(hoursAfterJan5UTC: 8, offsetHours: 0)),
                                                  to: .instant(moment(hoursAfterJan5UTC: 12, offsetHours: 0)))
        #expect(walkOnly.entries.count == 1)
        #expect(walkOnly.analyses.map(\.model) == ["m1"])
        #expect(walkOnly.relations.count == 1)
        #expect(Set(walkOnly.nodes.map(\.name)) == ["Anna", "Harbour"])
        #expect(walkOnly.messages.count == 2 && walkOnly.threads.count == 1)
    }

    @Test func markdownIsAReadableDocument() throws {
        let vault = try Self.populatedVault()
        let markdown = try vault.journal.snapshot().markdown()
        #expect(markdown.hasPrefix("# Journal\n"))
        #expect(markdown.contains("## 2026-01-05\n"))
        #expect(markdown.contains("### 10:00 Walked to the harbour with @Anna. ★\n"))
        #expect(markdown.contains("*Tags: anna, outdoors*"))
        #expect(markdown.contains("> **Analysis** by m1"))
        #expect(markdown.contains("# Chats"))
        #expect(markdown.contains("How was it?"))
        #expect((try? JSONParser.parse(Array(markdown.utf8))) == nil)
    }

    // MARK: Other formats

    @Test func jrnlJSONImportsEveryEntryWithDateTagsAndStar() throws {
        let json = """
            {"tags": {"@tag": 1, "#other": 1}, "entries": [
              {"title": "Title one.", "body": "Body @tag", "date": "2024-03-04", "time": "09:00", "tags": ["@tag"], "starred": false},
              {"title": "Starred one! With #Other tags", "body": "", "date": "2024-03-05", "time": "19:45", "tags": ["#other"], "starred": true}
            ]}
            """
        let snapshot = try ImportFormat.jrnlJSON.read(Array(json.utf8), zone: Self.utc)
        let entries = snapshot.entries
        #expect(entries.map(\.content) == ["Title one.\nBody @tag", "Starred one! With #Other tags"])
        #expect(entries.map(\.created.iso8601) == ["2024-03-04T09:00:00.000+00:00", "2024-03-05T19:45:00.000+00:00"])
        #expect(entries.map(\.tags) == [["tag"], ["other"]])
        #expect(entries.map(\.starred) == [false, true])
        // Read in another zone, the wall-clock time is kept and the offset is that zone's.
        let berlin = try ImportFormat.jrnlJSON.read(Array(json.utf8), zone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(berlin.entries[0].created.iso8601 == "2024-03-04T09:00:00.000+01:00")
        #expect(berlin.entries[0].id == entries[0].id, "the id derives from the wall-clock date, not the zone")
    }

    @Test func jrnlTextImportsEveryEntryWithDateTagsAndStar() throws {
        let text = """
            [2024-03-05 12:05:00 AM] Multi line first
            second line @night

            [2024-03-05 07:45:00 PM] Starred one! With #Other tags *

            """
        let entries = try ImportFormat.jrnlText.read(Array(text.utf8), zone: Self.utc).entries
        #expect(entries.map(\.content) == ["Multi line first\nsecond line @night", "Starred one! With #Other tags"])
        #expect(entries.map(\.created.iso8601) == ["2024-03-05T00:05:00.000+00:00", "2024-03-05T19:45:00.000+00:00"])
        #expect(entries.map(\.tags) == [["night"], ["other"]])
        #expect(entries.map(\.starred) == [false, true])
    }

    fileprivate static let dayOne = """
        {"metadata":{"version":"1.0"},"entries":[
          {"uuid":"0FB1A2B3C4D5E6F708192A3B4C5D6E7F","creationDate":"2024-03-05T07:30:00Z","timeZone":"Europe/Berlin",
           "text":"Morning walk\\\\. #spring","tags":["walk"],"starred":true},
          {"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-07-01T22:15:00Z","modifiedDate":"2024-07-02T08:00:00Z",
           "timeZone":"America/New_York","text":"Summer evening\\\\! Fireworks \\\\(early\\\\)","tags":[]}
        ]}
        """

    @Test func dayOneJSONImportsEveryEntryWithItsUUIDZoneTagsAndStar() throws {
        let entries = try ImportFormat.dayOneJSON.read(Array(Self.dayOne.utf8)).entries
        #expect(entries.map { $0.id.uuidString.lowercased() } == ["0fb1a2b3-c4d5-e6f7-0819-2a3b4c5d6e7f", "1c2d3e4f-5a6b-7c8d-9e0f-1a2b3c4d5e6f"])
        #expect(entries.map(\.content) == ["Morning walk. #spring", "Summer evening! Fireworks (early)"])
        // The writer's zone gives the offset (and DST): CET in March, EDT in July.
        #expect(entries.map(\.created.iso8601) == ["2024-03-05T08:30:00.000+01:00", "2024-07-01T18:15:00.000-04:00"])
        #expect(entries.map(\.localDay.description) == ["2024-03-05", "2024-07-01"])
        #expect(entries[1].modified.iso8601 == "2024-07-02T04:00:00.000-04:00")
        #expect(entries.map(\.tags) == [["spring", "walk"], []])
        #expect(entries.map(\.starred) == [true, false])
        #expect(try ImportFormat.dayOneJSON.read(Array(Self.dayOne.utf8)).omissions.isEmpty)
    }

    @Test func eachFormatImportedTwiceChangesNothing() throws {
        let jrnlText = Array("[2024-03-05 09:00:00 AM] One. #a\n\n[2024-03-06 09:00:00 PM] Two *\n".utf8)
        // What jrnl 4.6 prints with --format json for that journal (checked with jrnl itself: a
        // line read from the file is a whole title, even with two sentences in it).
        let jrnlJSON = Array("""
            {"tags": {"#a": 1}, "entries": [
              {"title": "One. #a", "body": "", "date": "2024-03-05", "time": "09:00", "tags": ["#a"], "starred": false},
              {"title": "Two", "body": "", "date": "2024-03-06", "time": "21:00", "tags": [], "starred": true}]}
            """.utf8)
        let source = try Self.populatedVault()
        let cases: [(ImportFormat, [UInt8])] = [
            (.json, Array(try Self.export(source.journal).utf8)), (.jrnlText, jrnlText), (.jrnlJSON, jrnlJSON), (.dayOneJSON, Array(Self.dayOne.utf8)),
            (.dayOneJSON, Array(DayOneReaderTests.richExport.utf8)),
        ]
        for (format, bytes) in cases {
            let target = try TemporaryVault()
            let first = try target.journal.importSnapshot(try format.read(bytes, zone: Self.utc))
            #expect(!first.changedNothing, "\(format)")
            let before = try Self.export(target.journal)
            let second = try target.journal.importSnapshot(try format.read(bytes, zone: Self.utc))
            #expect(second.changedNothing, "\(format): \(second)")
            #expect(try Self.export(target.journal) == before, "\(format)")
        }
        // jrnl's text and JSON of the same journal are the same entries: one import after the other adds nothing.
        let target = try TemporaryVault()
        try target.journal.importSnapshot(try ImportFormat.jrnlText.read(jrnlText, zone: Self.utc))
        #expect(try target.journal.importSnapshot(try ImportFormat.jrnlJSON.read(jrnlJSON, zone: Self.utc)).changedNothing)
        #expect(try target.journal.entries().count == 2)
    }

    // MARK: Malformed files

    fileprivate static let goodEntry = #"{"id":"11111111-2222-4333-8444-555555555555","created_at":"2024-01-01T09:00:00Z","content":"fine"}"#
    fileprivate static func jv(_ last: String) -> [UInt8] {
        Array(#"{"format":"jv-export","version":1,"entries":[\#(goodEntry),\#(last)]}"#.utf8)
    }
    fileprivate static let goodJrnl = #"{"title":"Ok.","body":"","date":"2024-01-02","time":"09:00","tags":[],"starred":false}"#
    fileprivate static func jrnl(_ last: String) -> [UInt8] { Array(#"{"tags":{},"entries":[\#(goodJrnl),\#(last)]}"#.utf8) }
    fileprivate static let goodDayOne = #"{"uuid":"0FB1A2B3C4D5E6F708192A3B4C5D6E7F","creationDate":"2024-03-05T07:30:00Z","text":"ok"}"#
    fileprivate static func dayOne(_ last: String) -> [UInt8] { Array(#"{"entries":[\#(goodDayOne),\#(last)]}"#.utf8) }

    /// (format, bytes, what the message must name).
    fileprivate static let malformed: [(ImportFormat, [UInt8], String)] = [
        (.json, Array(#"{"format":"jv-export","version":1,"entries":[{"id":"#.utf8), "byte"),
        (.json, Array(#"{"format":"jv-export","version":2,"entries":[]}"#.utf8), "version 2"),
        (.json, Array(#"{"format":"other","entries":[]}"#.utf8), "jv-export"),
        (.json, jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z"}"#), "record 2"),
        (.json, jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":42}"#), "record 2"),
        (.json, jv(#"{"id":"not-a-uuid","created_at":"2024-01-01T09:00:00Z","content":"x"}"#), "record 2"),
        (.json, jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-02-30T09:00:00Z","content":"x"}"#), "record 2"),
        (.json, jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":1700000000,"content":"x"}"#), "record 2"),
        (.json, jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":"x","tags":"a"}"#), "record 2"),
        (.json, jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":"   "}"#), "record 2"),
        (.json, Array(#"{"format":"jv-export","version":1,"entries":[\#(goodEntry),{"id":"11111111-2222-4333-8444-555555555556","#.utf8)
            + Array(#""created_at":"2024-01-01T09:00:00Z","content":"bad "#.utf8) + [0xFF] + Array(#""}]}"#.utf8), "byte"),
        (.jrnlJSON, Array(#"{"entries":[{"title":"Ok."#.utf8), "byte"),
        (.jrnlJSON, Array(#"{"tags":{}}"#.utf8), "entries"),
        (.jrnlJSON, jrnl(#"{"body":"","date":"2024-01-02","time":"09:00"}"#), "record 2"),
        (.jrnlJSON, jrnl(#"{"title":"T","body":"","date":"2024-13-45","time":"09:00"}"#), "record 2"),
        (.jrnlJSON, jrnl(#"{"title":"T","body":"","date":"2024-01-02","time":"25:00"}"#), "record 2"),
        (.jrnlJSON, jrnl(#"{"title":"T","body":"","date":"2024-01-02","time":"9am"}"#), "record 2"),
        (.jrnlJSON, jrnl(#"{"title":5,"body":"","date":"2024-01-02","time":"09:00"}"#), "record 2"),
        (.jrnlJSON, jrnl(#"{"title":"T","body":"","date":"2024-01-02","time":"09:00","tags":[1]}"#), "record 2"),
        (.jrnlJSON, jrnl(#"{"title":" ","body":"","date":"2024-01-02","time":"09:00"}"#), "record 2"),
        (.jrnlText, Array("".utf8), "line 1"),
        (.jrnlText, Array("[2024-01-02 09:00:00 AM] Fine.\n\n[2024-01-03 09:00:00 AM] \n".utf8), "line 3"),
        (.dayOneJSON, dayOne(#"{"creationDate":"2024-03-05T07:30:00Z","text":"no uuid"}"#), "record 2"),
        (.dayOneJSON, dayOne(#"{"uuid":"XYZ","creationDate":"2024-03-05T07:30:00Z","text":"bad uuid"}"#), "record 2"),
        (.dayOneJSON, dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"March 5","text":"bad date"}"#), "record 2"),
        (.dayOneJSON, dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-03-05T07:30:00Z"}"#), "record 2"),
        (.dayOneJSON, dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-03-05T07:30:00Z","text":"x","tags":"walk"}"#), "record 2"),
        (.dayOneJSON, Array(#"{"metadata":{}}"#.utf8), "entries"),
    ]

    @Test func malformedFilesAreRefusedSayingWhere() throws {
        for (format, bytes, place) in Self.malformed {
            let error = #expect(throws: ImportError.self, "\(format): \(String(decoding: bytes, as: UTF8.self))") {
                try format.read(bytes, zone: Self.utc)
            }
            if let error {
                #expect(error.description.contains(place), "\(format): \(error.description) should name \(place)")
                #expect(error.description.hasSuffix("nothing was imported."))
            }
        }
    }

    @Test func aFailingRecordInsideTheTransactionImportsNothing() throws {
        // Two good entries, then an analysis of an entry that exists nowhere: the import fails in
        // its transaction, after the entries were written, and they must not stay.
        let target = try TemporaryVault()
        try target.journal.addEntry("Already here.")
        let before = try Self.export(target.journal)
        let document = """
            {"format":"jv-export","version":1,"entries":[\(Self.goodEntry),
            {"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-02T09:00:00Z","content":"also fine"}],
            "analyses":[{"id":"21111111-2222-4333-8444-555555555555","entry_id":"99999999-2222-4333-8444-555555555555",
            "model":"m","processed_at":"2024-01-02T10:00:00Z","themes":[]}]}
            """
        let snapshot = try ImportFormat.json.read(Array(document.utf8))
        #expect(snapshot.entries.count == 2)
        #expect(throws: (any Error).self) { try target.journal.importSnapshot(snapshot) }
        #expect(try Self.export(target.journal) == before)
        #expect(try target.journal.entries().count == 1)
    }

    // MARK: Wrong types, relative dates, where UTF-8 breaks

    @Test
    func wrongTypedStarAndTagsAreRefused() throws {
        let cases: [(ImportFormat, [UInt8])] = [
            (.jrnlJSON, Self.jrnl(#"{"title":"T.","body":"","date":"2024-01-02","time":"09:00","tags":"@x"}"#)),
            (.jrnlJSON, Self.jrnl(#"{"title":"T.","body":"","date":"2024-01-02","time":"09:00","starred":"yes"}"#)),
            (.json, Self.jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":"x","starred":"true"}"#)),
            (.dayOneJSON, Self.dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-03-05T07:30:00Z","text":"x","starred":1}"#)),
        ]
        for (format, bytes) in cases {
            let error = #expect(throws: ImportError.self, "\(format): \(String(decoding: bytes, as: UTF8.self))") { try format.read(bytes, zone: Self.utc) }
            #expect(error?.description.contains("record 2") == true)
        }
    }

    @Test
    func relativeDatesAreNotISO8601() throws {
        let cases: [(ImportFormat, [UInt8])] = [
            (.json, Self.jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"yesterday 10:00","content":"x"}"#)),
            (.json, Self.jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"3 days ago 09:00","content":"x"}"#)),
            (.dayOneJSON, Self.dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"tomorrow 08:00","text":"x"}"#)),
        ]
        for (format, bytes) in cases {
            let error = #expect(throws: ImportError.self, "\(format): \(String(decoding: bytes, as: UTF8.self))") { try format.read(bytes, zone: Self.utc) }
            #expect(error?.description.contains("record 2") == true)
        }
    }

    @Test
    func invalidUTF8InJrnlTextSaysWhere() throws {
        let bytes = Array("[2024-01-02 09:00:00 AM] Fine.\n\n[2024-01-03 09:00:00 AM] Bad ".utf8) + [0xFF] + Array(" here\n".utf8)
        let error = #expect(throws: ImportError.self) { try ImportFormat.jrnlText.read(bytes, zone: Self.utc) }
        #expect(error?.description.contains("at line 3") == true, "\(String(describing: error))")
    }

    @Test func invalidUTF8InJrnlTextIsRefused() throws {
        let bytes = Array("[2024-01-02 09:00:00 AM] Fine.\n\n[2024-01-03 09:00:00 AM] Bad ".utf8) + [0xFF] + Array(" here\n".utf8)
        let error = #expect(throws: ImportError.self) { try ImportFormat.jrnlText.read(bytes, zone: Self.utc) }
        #expect(error?.description.contains("UTF-8") == true)
    }
}
