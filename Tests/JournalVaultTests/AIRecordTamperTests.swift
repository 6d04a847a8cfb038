// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

// Edits behind the vault's back to the rows of the AI tables (SECURITY.md, FORMAT.md
// §1.5–§1.9, §4.4): chat messages, chat threads, analyses and knowledge nodes. Each edit must
// be reported by the readers (VaultError.tamperedRecord) and by check(), naming the record,
// while untouched records still read. And no chat or analysis text may be in the vault's files.

fileprivate extension TemporaryVault {
    func blob(_ table: String, _ column: String, id: UUID) throws -> Data {
        try journal.database.read { db in
            try #require(try Data.fetchOne(db, sql: "SELECT \(column) FROM \(table) WHERE id = ?", arguments: [id.storageText]))
        }
    }

    func text(_ table: String, _ column: String, id: UUID) throws -> String {
        try journal.database.read { db in
            try #require(try String.fetchOne(db, sql: "SELECT \(column) FROM \(table) WHERE id = ?", arguments: [id.storageText]))
        }
    }

    func set(_ table: String, _ column: String, id: UUID, to value: some DatabaseValueConvertible) throws {
        try execute("UPDATE \(table) SET \(column) = ? WHERE id = ?", [value, id.storageText])
    }

    /// Flips one bit of the byte at `offset(count)` of a blob column.
    func flip(_ table: String, _ column: String, id: UUID, at offset: (Int) -> Int) throws {
        var data = try blob(table, column, id: id)
        data[data.startIndex + offset(data.count)] ^= 0x01
        try set(table, column, id: id, to: data)
    }

    /// Exchanges a blob column between two rows.
    func swap(_ table: String, _ column: String, _ a: UUID, _ b: UUID) throws {
        let first = try blob(table, column, id: a)
        let second = try blob(table, column, id: b)
        try set(table, column, id: a, to: second)
        try set(table, column, id: b, to: first)
    }

    func sql(_ table: String, _ assignment: String, id: UUID) throws {
        try execute("UPDATE \(table) SET \(assignment) WHERE id = ?", [id.storageText])
    }
}

/// A vault holding two entries, three threads with messages, two analyses and a small graph.
fileprivate struct AITamperFixture {
    private(set) var vault: TemporaryVault
    let entry: Entry
    let otherEntry: Entry
    let thread: ChatThread        // Alpha: `message` and `sibling`
    let otherThread: ChatThread   // Beta: one message
    let quietThread: ChatThread   // Gamma: `quietMessage`, never touched
    let message: ChatMessage
    let sibling: ChatMessage
    let quietMessage: ChatMessage
    let analysis: Analysis
    let otherAnalysis: Analysis
    let anna: KnowledgeNode
    let lisbon: KnowledgeNode

    /// Made once; every test edits a copy of its vault (Argon2 and the writes once, not per test).
    private static let template = Result { try AITamperFixture(populating: TemporaryVault()) }

    init() throws {
        let template = try Self.template.get()
        self = template
        vault = try TemporaryVault(copying: template.vault)
    }

    private init(populating vault: TemporaryVault) throws {
        self.vault = vault
        let journal = vault.journal
        let base = Instant.now().millis
        func at(_ minutes: Int64) -> Instant { Instant(millis: base + minutes * 60_000, utcOffsetSeconds: 3600) }
        entry = try journal.addEntry("Anna moved to Lisbon.")
        otherEntry = try journal.addEntry("Quiet evening.")
        let alpha = try journal.createThread(title: "Alpha")
        message = try journal.addMessage(ChatMessageDraft(threadID: alpha.id, role: .user, content: "How is Anna doing?", model: nil,
                                                          language: "en", entryID: entry.id, timestamp: at(1)))
        sibling = try journal.addMessage(ChatMessageDraft(threadID: alpha.id, role: .assistant, content: "She likes Lisbon.",
                                                          model: "llama3", language: "en", usage: .object([("tokens", .integer(7))]),
                                                          timestamp: at(2)))
        let beta = try journal.createThread(title: "Beta")
        try journal.addMessage(ChatMessageDraft(threadID: beta.id, role: .user, content: "Another thread.", timestamp: at(3)))
        let gamma = try journal.createThread(title: "Gamma")
        quietMessage = try journal.addMessage(ChatMessageDraft(threadID: gamma.id, role: .user, content: "Leave me alone.", timestamp: at(4)))
        thread = try journal.thread(id: alpha.id)
        otherThread = try journal.thread(id: beta.id)
        quietThread = try journal.thread(id: gamma.id)
        analysis = try journal.addAnalysis(
            Analysis(entryID: entry.id, model: "llama3", processedAt: at(5), sentiment: "hopeful", themes: ["moving"],
                     entities: .object([("people", .array([.string("Anna")]))])),
            relations: [RelationDraft(from: NodeReference(type: "person", name: "Anna"), to: NodeReference(type: "place", name: "Lisbon"),
                                      type: "lives in", strength: 0.9)])
        otherAnalysis = try journal.addAnalysis(Analysis(entryID: otherEntry.id, model: "mistral", processedAt: at(6), sentiment: "quiet"))
        anna = try journal.resolveNode("anna")
        lisbon = try journal.resolveNode("lisbon")
    }

    /// check() reports each of `ids` (and only finds problems, not a crash).
    func expectCheckReports(_ ids: [UUID], _ comment: Comment?, sourceLocation: SourceLocation) throws {
        let report = try vault.journal.check()
        #expect(!report.isClean, comment, sourceLocation: sourceLocation)
        for id in ids {
            #expect(report.problems.contains { $0.contains(id.storageText) }, "\(report.problems)", sourceLocation: sourceLocation)
        }
    }
}

fileprivate func isAITampered(_ error: VaultError) -> Bool {
    if case .tamperedRecord = error { true } else { false }
}

/// Expects `body` to throw ``VaultError/tamperedRecord(table:id:detail:)``.
fileprivate func expectAITampered<R>(_ comment: Comment?, sourceLocation: SourceLocation, _ body: () throws -> R) {
    let error = #expect(throws: VaultError.self, comment, sourceLocation: sourceLocation) { _ = try body() }
    if let error, !isAITampered(error) {
        Issue.record("expected tamperedRecord, got \(error)\(comment.map { ": \($0)" } ?? "")", sourceLocation: sourceLocation)
    }
}

/// Every file in `folder`, with its bytes.
fileprivate func aiVaultFiles(in folder: URL) throws -> [(String, [UInt8])] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { name in
        (name, try [UInt8](Data(contentsOf: folder.appendingPathComponent(name))))
    }
}

fileprivate func aiContains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    let first = needle[0]
    var index = 0
    let last = haystack.count - needle.count
    while index <= last {
        if haystack[index] == first, Array(haystack[index..<index + needle.count]) == needle { return true }
        index += 1
    }
    return false
}

@Suite struct AIRecordTamperTests {
    @Test func anUntouchedVaultChecksCleanOverEveryTable() throws {
        let fixture = try AITamperFixture()
        let report = try fixture.vault.journal.check()
        #expect(report.isClean, "\(report.problems)")
        #expect(report.checked["chat_thread"] == 3)
        #expect(report.checked["chat_message"] == 4)
        #expect(report.checked["analysis"] == 2)
        #expect(report.checked["knowledge_node"] == 2)
        #expect(report.checked["entry"] == 2)
        #expect(try fixture.vault.journal.messages(inThread: fixture.thread.id) == [fixture.message, fixture.sibling])
        #expect(try fixture.vault.journal.analyses() == [fixture.analysis, fixture.otherAnalysis])
    }

    // MARK: Chat messages

    enum MessageEdit: String, CaseIterable, Sendable {
        case contentFirstByte, contentMiddleByte, contentLastByte, metadataByte
        case encMetaFormat, encMetaKeyVersion, encMetaRevision, encMetaSalt, encMetaTruncated
        case timestampPlusOneMillisecond, utcOffset, roleUserToAssistant, threadIDToAnotherThread
        case contentSwappedWithSibling, metadataSwappedWithSibling, encMetaSwappedWithSibling
    }

    @Test(arguments: MessageEdit.allCases)
    func anEditedChatMessageIsReported(edit: MessageEdit) throws {
        let fixture = try AITamperFixture()
        let vault = fixture.vault
        let id = fixture.message.id, table = "chat_message"
        var reported = [id]
        switch edit {
        case .contentFirstByte: try vault.flip(table, "content", id: id) { _ in 0 }
        case .contentMiddleByte: try vault.flip(table, "content", id: id) { $0 / 2 }
        case .contentLastByte: try vault.flip(table, "content", id: id) { $0 - 1 }
        case .metadataByte: try vault.flip(table, "metadata", id: id) { $0 / 2 }
        case .encMetaFormat: try vault.flip(table, "enc_meta", id: id) { _ in 0 }
        case .encMetaKeyVersion: try vault.flip(table, "enc_meta", id: id) { _ in 4 }
        case .encMetaRevision: try vault.flip(table, "enc_meta", id: id) { _ in 8 }
        case .encMetaSalt: try vault.flip(table, "enc_meta", id: id) { _ in 20 }
        case .encMetaTruncated: try vault.sql(table, "enc_meta = substr(enc_meta, 1, 24)", id: id)
        case .timestampPlusOneMillisecond: try vault.sql(table, "timestamp = timestamp + 1", id: id)
        case .utcOffset: try vault.sql(table, "utc_offset = utc_offset + 3600", id: id)
        case .roleUserToAssistant:
            #expect(try vault.text(table, "role", id: id) == "user")
            try vault.sql(table, "role = 'assistant'", id: id)
        case .threadIDToAnotherThread: try vault.set(table, "thread_id", id: id, to: fixture.otherThread.id.storageText)
        case .contentSwappedWithSibling:
            try vault.swap(table, "content", id, fixture.sibling.id)
            reported.append(fixture.sibling.id)
        case .metadataSwappedWithSibling:
            try vault.swap(table, "metadata", id, fixture.sibling.id)
            reported.append(fixture.sibling.id)
        case .encMetaSwappedWithSibling:
            try vault.swap(table, "enc_meta", id, fixture.sibling.id)
            reported.append(fixture.sibling.id)
        }
        let comment: Comment = "\(edit.rawValue)"
        let threadNow = try #require(UUID(uuidString: try vault.text(table, "thread_id", id: id)))
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.messages(inThread: threadNow) }
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.messages() }
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.searchIDs("Anna", kinds: [.chatMessage]) }
        try fixture.expectCheckReports(reported, comment, sourceLocation: #_sourceLocation)
        #expect(try vault.journal.messages(inThread: fixture.quietThread.id) == [fixture.quietMessage], comment)
    }

    // MARK: Chat threads

    enum ThreadEdit: String, CaseIterable, Sendable {
        case titleFirstByte, titleLastByte, metadataByte, encMetaSalt, encMetaRevision
        case createdAt, updatedAt, lastMessageAt, lastMessageAtCleared, utcOffset
        case titleSwappedWithAnotherThread, metadataSwappedWithAnotherThread
    }

    @Test(arguments: ThreadEdit.allCases)
    func anEditedChatThreadIsReportedAndNotWrittenTo(edit: ThreadEdit) throws {
        let fixture = try AITamperFixture()
        let vault = fixture.vault
        let id = fixture.thread.id, table = "chat_thread"
        var reported = [id]
        switch edit {
        case .titleFirstByte: try vault.flip(table, "title", id: id) { _ in 0 }
        case .titleLastByte: try vault.flip(table, "title", id: id) { $0 - 1 }
        case .metadataByte: try vault.flip(table, "metadata", id: id) { $0 / 2 }
        case .encMetaSalt: try vault.flip(table, "enc_meta", id: id) { _ in 24 }
        case .encMetaRevision: try vault.flip(table, "enc_meta", id: id) { _ in 8 }
        case .createdAt: try vault.sql(table, "created_at = created_at - 1", id: id)
        case .updatedAt: try vault.sql(table, "updated_at = updated_at + 1", id: id)
        case .lastMessageAt: try vault.sql(table, "last_message_at = last_message_at + 1", id: id)
        case .lastMessageAtCleared: try vault.sql(table, "last_message_at = NULL", id: id)
        case .utcOffset: try vault.sql(table, "utc_offset = utc_offset - 3600", id: id)
        case .titleSwappedWithAnotherThread:
            try vault.swap(table, "title", id, fixture.otherThread.id)
            reported.append(fixture.otherThread.id)
        case .metadataSwappedWithAnotherThread:
            try vault.swap(table, "metadata", id, fixture.otherThread.id)
            reported.append(fixture.otherThread.id)
        }
        let comment: Comment = "\(edit.rawValue)"
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.thread(id: id) }
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.threads() }
        try fixture.expectCheckReports(reported, comment, sourceLocation: #_sourceLocation)
        #expect(try vault.journal.thread(id: fixture.quietThread.id) == fixture.quietThread, comment)

        // Writing to it fails too, and writes nothing (no silent re-encryption of tampered data).
        let before = try vault.journal.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message") }
        expectAITampered(comment, sourceLocation: #_sourceLocation) {
            try vault.journal.addMessage(ChatMessageDraft(threadID: id, role: .user, content: "One more"))
        }
        let after = try vault.journal.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message") }
        #expect(before == after, comment)
        try fixture.expectCheckReports(reported, comment, sourceLocation: #_sourceLocation)
    }

    @Test func theActiveFlagIsNotBoundSoSwitchingThreadsNeedsNoReencryption() throws {
        let fixture = try AITamperFixture()
        // Gamma is active; writing to Alpha moves the flag without touching Gamma's ciphertext.
        let gammaTitle = try fixture.vault.blob("chat_thread", "title", id: fixture.quietThread.id)
        try fixture.vault.journal.addMessage(ChatMessageDraft(threadID: fixture.thread.id, role: .user, content: "Back to Alpha"))
        #expect(try fixture.vault.blob("chat_thread", "title", id: fixture.quietThread.id) == gammaTitle)
        #expect(try !fixture.vault.journal.thread(id: fixture.quietThread.id).isActive)
        #expect(try fixture.vault.journal.check().isClean)
    }

    // MARK: Analyses

    enum AnalysisEdit: String, CaseIterable, Sendable {
        case payloadFirstByte, payloadMiddleByte, payloadLastByte
        case encMetaFormat, encMetaKeyVersion, encMetaRevision, encMetaSalt
        case processedAtPlusOneMillisecond, utcOffset, version, modelRenamed, entryIDToAnotherEntry
        case payloadSwappedWithAnotherAnalysis
    }

    @Test(arguments: AnalysisEdit.allCases)
    func anEditedAnalysisIsReported(edit: AnalysisEdit) throws {
        let fixture = try AITamperFixture()
        let vault = fixture.vault
        let id = fixture.analysis.id, table = "analysis"
        var reported = [id]
        switch edit {
        case .payloadFirstByte: try vault.flip(table, "payload", id: id) { _ in 0 }
        case .payloadMiddleByte: try vault.flip(table, "payload", id: id) { $0 / 2 }
        case .payloadLastByte: try vault.flip(table, "payload", id: id) { $0 - 1 }
        case .encMetaFormat: try vault.flip(table, "enc_meta", id: id) { _ in 0 }
        case .encMetaKeyVersion: try vault.flip(table, "enc_meta", id: id) { _ in 3 }
        case .encMetaRevision: try vault.flip(table, "enc_meta", id: id) { _ in 8 }
        case .encMetaSalt: try vault.flip(table, "enc_meta", id: id) { _ in 9 }
        case .processedAtPlusOneMillisecond: try vault.sql(table, "processed_at = processed_at + 1", id: id)
        case .utcOffset: try vault.sql(table, "utc_offset = utc_offset + 60", id: id)
        case .version: try vault.sql(table, "version = version + 1", id: id)
        case .modelRenamed:
            #expect(try vault.text(table, "model", id: id) == "llama3")
            try vault.sql(table, "model = 'mistral'", id: id)
        case .entryIDToAnotherEntry: try vault.set(table, "entry_id", id: id, to: fixture.otherEntry.id.storageText)
        case .payloadSwappedWithAnotherAnalysis:
            try vault.swap(table, "payload", id, fixture.otherAnalysis.id)
            reported.append(fixture.otherAnalysis.id)
        }
        let comment: Comment = "\(edit.rawValue)"
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.analysis(id: id) }
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.analyses() }
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.searchIDs("hopeful", kinds: [.analysis]) }
        try fixture.expectCheckReports(reported, comment, sourceLocation: #_sourceLocation)
        if !reported.contains(fixture.otherAnalysis.id) {
            #expect(try vault.journal.analysis(id: fixture.otherAnalysis.id) == fixture.otherAnalysis, comment)
        }
    }

    // MARK: Knowledge nodes

    enum NodeEdit: String, CaseIterable, Sendable {
        case typeChanged, typeUpperCased, nodeKeyByte, nameFirstByte, nameLastByte, metadataByte
        case encMetaSalt, encMetaRevision, createdAt, nameSwappedWithAnotherNode, nodeKeySwappedWithAnotherNode
    }

    @Test(arguments: NodeEdit.allCases)
    func anEditedKnowledgeNodeIsReported(edit: NodeEdit) throws {
        let fixture = try AITamperFixture()
        let vault = fixture.vault
        let id = fixture.anna.id, table = "knowledge_node"
        var reported = [id]
        switch edit {
        case .typeChanged:
            #expect(try vault.text(table, "type", id: id) == "person")
            try vault.sql(table, "type = 'place'", id: id)
        case .typeUpperCased: try vault.sql(table, "type = 'PERSON'", id: id)
        case .nodeKeyByte: try vault.flip(table, "node_key", id: id) { _ in 3 }
        case .nameFirstByte: try vault.flip(table, "name", id: id) { _ in 0 }
        case .nameLastByte: try vault.flip(table, "name", id: id) { $0 - 1 }
        case .metadataByte: try vault.flip(table, "metadata", id: id) { $0 / 2 }
        case .encMetaSalt: try vault.flip(table, "enc_meta", id: id) { _ in 12 }
        case .encMetaRevision: try vault.flip(table, "enc_meta", id: id) { _ in 8 }
        case .createdAt: try vault.sql(table, "created_at = created_at + 1", id: id)
        case .nameSwappedWithAnotherNode:
            try vault.swap(table, "name", id, fixture.lisbon.id)
            reported.append(fixture.lisbon.id)
        case .nodeKeySwappedWithAnotherNode:
            // node_key is UNIQUE: go through a temporary value.
            let mine = try vault.blob(table, "node_key", id: id)
            let theirs = try vault.blob(table, "node_key", id: fixture.lisbon.id)
            try vault.journal.writeBehindTheVaultsBack { db in
                try db.execute(sql: "UPDATE knowledge_node SET node_key = x'0000000000000000' WHERE id = ?", arguments: [id.storageText])
                try db.execute(sql: "UPDATE knowledge_node SET node_key = ? WHERE id = ?", arguments: [mine, fixture.lisbon.id.storageText])
                try db.execute(sql: "UPDATE knowledge_node SET node_key = ? WHERE id = ?", arguments: [theirs, id.storageText])
            }
            reported.append(fixture.lisbon.id)
        }
        let comment: Comment = "\(edit.rawValue)"
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.node(id: id) }
        expectAITampered(comment, sourceLocation: #_sourceLocation) { try vault.journal.nodes() }
        try fixture.expectCheckReports(reported, comment, sourceLocation: #_sourceLocation)
        if !reported.contains(fixture.lisbon.id) {
            #expect(try vault.journal.node(id: fixture.lisbon.id) == fixture.lisbon, comment)
        }
    }

    // MARK: Relations (type and strength sealed, bound to the nodes and entry they join)

    @Test func aRelationMovedToOtherNodesOrWithAnotherTypeIndexIsReported() throws {
        for edit in ["to_node = from_node", "relation_key = x'0102030405060708'", "created_at = created_at + 1", "entry_id = NULL"] {
            let fixture = try AITamperFixture()
            let relation = try #require(try fixture.vault.journal.allRelations().first)
            try fixture.vault.journal.writeWithoutTransactionBehindTheVaultsBack { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                try db.execute(sql: "UPDATE knowledge_relation SET \(edit) WHERE id = ?", arguments: [relation.id.storageText])
            }
            expectAITampered("\(edit)", sourceLocation: #_sourceLocation) { try fixture.vault.journal.allRelations() }
            let report = try fixture.vault.journal.check()
            #expect(report.problems.contains { $0.contains(relation.id.storageText) }, "\(edit): \(report.problems)")
        }
    }

    @Test func checkReportsARelationToAMissingNodeAndAMessageInAMissingThread() throws {
        let fixture = try AITamperFixture()
        try fixture.vault.journal.writeWithoutTransactionBehindTheVaultsBack { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.execute(sql: "UPDATE knowledge_relation SET to_node = ?", arguments: [UUID().storageText])
        }
        var report = try fixture.vault.journal.check()
        #expect(report.problems.contains { $0.contains("knowledge_relation") }, "\(report.problems)")

        try fixture.vault.journal.writeWithoutTransactionBehindTheVaultsBack { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.execute(sql: "DELETE FROM chat_thread WHERE id = ?", arguments: [fixture.quietThread.id.storageText])
        }
        report = try fixture.vault.journal.check()
        #expect(report.problems.contains { $0.contains("chat_message") }, "\(report.problems)")
    }

    @Test func checkReportsTwoActiveThreads() throws {
        let fixture = try AITamperFixture()
        try fixture.vault.execute("DROP INDEX chat_thread_one_active")
        try fixture.vault.execute("UPDATE chat_thread SET is_active = 1")
        let report = try fixture.vault.journal.check()
        #expect(!report.isClean)
        #expect(report.problems.contains { $0.contains("active") }, "\(report.problems)")
    }

    // MARK: Plaintext

    @Test func noChatOrAnalysisTextIsInTheVaultFiles() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        // Distinctive words, one per kind of encrypted field.
        let secrets = [
            "Quixotrombe",    // message content
            "Blorptitlezz",   // thread title (explicit)
            "Flumptitleyy",   // thread title (from the first message)
            "Wumbleserene",   // sentiment
            "Frazzlethemeq",  // theme
            "Glorpentityx",   // entity value
            "Snarfkeyzzz",    // entity key
            "Extrawordqqq",   // extra analyser output
            "Zyxnodeannaa",   // node name (person)
            "Vexplacelisb",   // node name (place)
            "Lingoqwertyz",   // message language
            "Modelmsgzzzz",   // message model (inside the encrypted metadata)
            "Usagewordzzz",   // message usage
            "Entrywordzzz",   // entry content
        ]
        let plainByDesign = "Plainmodelzzz"  // analysis model names are plaintext (SECURITY.md)
        let entry = try journal.addEntry("Entrywordzzz went to the sea.")
        try journal.createThread(title: "Blorptitlezz plans", entryID: entry.id)
        try journal.addMessage(ChatMessageDraft(role: .user, content: "Tell me about Quixotrombe, please.", model: "Modelmsgzzzz",
                                                language: "Lingoqwertyz", entryID: entry.id,
                                                usage: .object([("note", .string("Usagewordzzz"))])))
        let untitled = try journal.createThread()
        try journal.addMessage(ChatMessageDraft(threadID: untitled.id, role: .assistant, content: "Flumptitleyy is the first line\nand more"))
        try journal.addAnalysis(
            Analysis(entryID: entry.id, model: plainByDesign, processedAt: .now(), sentiment: "Wumbleserene", themes: ["Frazzlethemeq"],
                     entities: .object([("Snarfkeyzzz", .array([.string("Glorpentityx")]))]),
                     extra: .object([("summary", .string("Extrawordqqq"))])),
            nodes: [NodeReference(type: "person", name: "Zyxnodeannaa")],
            relations: [RelationDraft(from: NodeReference(type: "person", name: "Zyxnodeannaa"),
                                      to: NodeReference(type: "place", name: "Vexplacelisb"), type: "visits", strength: 0.5)])
        // Everything reads back (the words are really stored).
        #expect(try journal.searchIDs("quixotrombe", kinds: [.chatMessage]).count == 1)
        #expect(try journal.searchIDs("frazzlethemeq", kinds: [.analysis]).count == 1)
        #expect(try journal.resolveNode("vexplacelisb").name == "Vexplacelisb")

        func scan(_ stage: String) throws {
            let files = try aiVaultFiles(in: vault.folder.url)
            #expect(files.contains { $0.0 == "journal.vault" }, "\(stage): \(files.map(\.0))")
            let everything = files.flatMap(\.1)
            // The scan sees stored text: the plaintext-by-design model name is found.
            #expect(aiContains(everything, Array(plainByDesign.utf8)), "\(stage): the scan finds nothing at all")
            for word in secrets {
                for form in Set([word, word.lowercased(), word.uppercased()]) {
                    for (name, bytes) in files where aiContains(bytes, Array(form.utf8)) {
                        Issue.record("\(stage): '\(form)' is in plaintext in \(name)")
                    }
                }
            }
        }
        try scan("open, with the write-ahead log")
        _ = try journal.database.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try scan("after a checkpoint")
    }
}
