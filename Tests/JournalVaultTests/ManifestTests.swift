// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// The row-set manifest (FORMAT.md §11, SECURITY.md): known answers computed from the document
/// with Python's hashlib, its arithmetic, and what `check()` sees after careful edits of the
/// file — and does not see after every legitimate write.
@Suite struct ManifestTests {
    // MARK: Known answers (FORMAT.md §11.5; `Tests/interop/format_vectors.py`)

    static let masterKey = Array(UInt8(0x00)...UInt8(0x1f))
    static let vaultID = UUID(uuidString: "00112233-4455-6677-8899-aabbccddeeff")!
    static let manifestKey = "d3d8c84eb13deb1250455e651c491e60d3a0b690a48a81f54ee08224dbadc5d9"
    static let tagRowDigest = "ba084c0ca934abcf3ca2baed46eec79d40d47d3628e8d87386d312d883b71a39"
    static let doubledDigest = "741098195269579e794575da8ddd8f3a81a8fa6c51d1b0e70da625b1076e3472"
    static let oneTagRowManifest = "010000000100000000000000010705656e7472790000000000000000000000000000000000000000000000000000000000000000000000000000000008616e616c79736973000000000000000000000000000000000000000000000000000000000000000000000000000000000e6b6e6f776c656467655f6e6f646500000000000000000000000000000000000000000000000000000000000000000000000000000000126b6e6f776c656467655f72656c6174696f6e000000000000000000000000000000000000000000000000000000000000000000000000000000000b636861745f746872656164000000000000000000000000000000000000000000000000000000000000000000000000000000000c636861745f6d6573736167650000000000000000000000000000000000000000000000000000000000000000000000000000000009656e7472795f7461670000000000000001ba084c0ca934abcf3ca2baed46eec79d40d47d3628e8d87386d312d883b71a3951d98bea010d309329db525ac4e056daf8b4385e17342fa4ca451333319d5ec0"

    static func vectorKeys() throws -> VaultKeys {
        try VaultKeys(vaultID: vaultID, keyVersion: 1, masterKey: SecureBytes(copying: masterKey))
    }

    /// The tag-index row `(bidx = 8 × ab, entry_seq = 7)`.
    static let tagRow: [DatabaseValue] = [Data(repeating: 0xab, count: 8).databaseValue, 7.databaseValue]

    @Test func manifestKeyRowDigestAndManifestMatchTheDocument() throws {
        let keys = try Self.vectorKeys()
        #expect(keys.manifestKey.withUnsafeBytes { Data($0) }.lowerHex == Self.manifestKey)
        let digest = try RowDigest.of(Self.tagRow, in: "entry_tag", key: keys.manifestKey)
        #expect(Data(digest.bytes).lowerHex == Self.tagRowDigest)
        var manifest = Manifest.empty(keyVersion: 1)
        manifest.tables["entry_tag"]?.add(digest)
        manifest.counter = 1
        #expect(manifest.encoded(key: keys.manifestKey, vaultID: Self.vaultID).lowerHex == Self.oneTagRowManifest)
    }

    static let syncDeviceRowDigest = "37fd9305a912afbcd9eb9309c0e092f6c7d828390662926c867bfd741bda6500"
    static let formatTwoManifestTail = "101112131415161718191a1b1c1d1e1f000000000000000137fd9305a912afbcd9eb9309c0e092f6c7d828390662926c867bfd741bda6500fa25b8a15e1534f34d40535c261147a52a6d39a4de05212ee028648485f438df"
    static let highWaterIdentity = "733ca035-4a1a-0a1e-0a93-3d16d5c10b18"

    /// Format 2 (FORMAT.md §11.2): the file's instance id and its `sync_device` row, digested as
    /// it stands in SQLite, then the MAC; and the high-water identity of §11.6.
    @Test func formatTwoManifestAndHighWaterIdentityMatchTheDocument() throws {
        let keys = try Self.vectorKeys()
        let db = try DatabaseQueue()
        let state = try db.write { db -> Manifest.TableState in
            try db.execute(sql: """
                CREATE TABLE sync_device (singleton INTEGER NOT NULL PRIMARY KEY, device_id BLOB NOT NULL, location TEXT NOT NULL,
                                          last_pack INTEGER NOT NULL, clock INTEGER NOT NULL, keys_digest BLOB);
                INSERT INTO sync_device VALUES (1, X'202122232425262728292A2B2C2D2E2F', '/home/me/Sync', 3, 5, NULL);
                """)
            return try Manifest.syncDeviceState(db, keys: keys)
        }
        #expect(state.count == 1 && Data(state.sum.bytes).lowerHex == Self.syncDeviceRowDigest)
        var manifest = Manifest.empty(keyVersion: 1, instance: UUID(bytes: Array(UInt8(0x10)...UInt8(0x1f))))
        manifest.tables["entry_tag"]?.add(try RowDigest.of(Self.tagRow, in: "entry_tag", key: keys.manifestKey))
        manifest.counter = 1
        manifest.syncDevice = state
        let encoded = manifest.encoded(key: keys.manifestKey, vaultID: Self.vaultID)
        let oneTagRowBody = Self.oneTagRowManifest.dropLast(64).dropFirst(2)
        #expect(encoded.lowerHex == "02" + oneTagRowBody + Self.formatTwoManifestTail)
        #expect(try Manifest(encoded: encoded, key: keys.manifestKey, vaultID: Self.vaultID) == manifest)
        #expect(manifest.markIdentity(vaultID: Self.vaultID).uuidString.lowercased() == Self.highWaterIdentity)
        // Format 1 is still read, and has no identity but the vault id.
        let formatOne = try #require(try Manifest(encoded: Data(hex: Self.oneTagRowManifest), key: keys.manifestKey, vaultID: Self.vaultID))
        #expect(formatOne.instance == nil && formatOne.markIdentity(vaultID: Self.vaultID) == Self.vaultID)
    }

    /// FORMAT.md §11.2: the attachment tables are listed (n = 10) once one of them holds a row,
    /// and not before (n = 7, the bytes of before schema 8); both read back to the same manifest.
    @Test func theAttachmentTablesAreListedOnceTheyHoldRows() throws {
        let keys = try Self.vectorKeys()
        var manifest = Manifest.empty(keyVersion: 1, instance: UUID())
        manifest.counter = 3
        let without = manifest.encoded(key: keys.manifestKey, vaultID: Self.vaultID)
        #expect(without[13] == 7)
        #expect(try Manifest(encoded: without, key: keys.manifestKey, vaultID: Self.vaultID) == manifest)
        manifest.tables["attachment_chunk"]?.add(try RowDigest.of(["s".databaseValue, 0.databaseValue, Data([1]).databaseValue],
                                                                 in: "attachment_chunk", key: keys.manifestKey))
        let with = manifest.encoded(key: keys.manifestKey, vaultID: Self.vaultID)
        #expect(with[13] == 10)
        let read = try #require(try Manifest(encoded: with, key: keys.manifestKey, vaultID: Self.vaultID))
        #expect(read == manifest && read.tables["attachment_chunk"]?.count == 1)
        #expect(read != (try Manifest(encoded: without, key: keys.manifestKey, vaultID: Self.vaultID)))
    }

    /// FORMAT.md §11.2: the measures are listed (n = 11, after the attachment tables, listed
    /// empty) once the table holds a row, and not before; each listing reads back as written.
    @Test func theMeasuresAreListedOnceTheyHoldRows() throws {
        let keys = try Self.vectorKeys()
        var manifest = Manifest.empty(keyVersion: 1, instance: UUID())
        let without = manifest.encoded(key: keys.manifestKey, vaultID: Self.vaultID)
        #expect(without[13] == 7)
        manifest.tables["measure"]?.add(try RowDigest.of([UUID().storageText.databaseValue, UUID().storageText.databaseValue,
                                                          Data([1]).databaseValue, Data([2]).databaseValue],
                                                         in: "measure", key: keys.manifestKey))
        let with = manifest.encoded(key: keys.manifestKey, vaultID: Self.vaultID)
        #expect(with[13] == 11)
        let read = try #require(try Manifest(encoded: with, key: keys.manifestKey, vaultID: Self.vaultID))
        #expect(read == manifest && read.tables["measure"]?.count == 1 && read.tables["attachment"]?.count == 0)
        #expect(read != (try Manifest(encoded: without, key: keys.manifestKey, vaultID: Self.vaultID)))
    }

    /// A vault whose manifest an earlier jv wrote (format 1, no instance, `sync_device` not
    /// covered) still opens, and its next write upgrades it to format 2, which then covers the
    /// `sync_device` row and keeps its instance through later writes.
    @Test func aFormatOneManifestIsUpgradedAtTheNextWrite() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        _ = try journal.addEntry("Before the upgrade.")
        let keys = journal.keys
        try journal.writeBehindTheVaultsBack { db in
            var old = try #require(try Manifest.load(db, keys: keys))
            old.instance = nil
            old.syncDevice = nil
            try old.save(db, keys: keys)
            try db.execute(sql: "INSERT INTO sync_device (singleton, device_id, location) VALUES (1, randomblob(16), '/somewhere')")
        }
        let before = try #require(try journal.database.read { db in try Manifest.load(db, keys: keys) })
        #expect(before.instance == nil && before.markIdentity(vaultID: keys.vaultID) == keys.vaultID)
        try journal.writeBehindTheVaultsBack { db in try db.execute(sql: "DELETE FROM sync_device") }
        _ = try journal.addEntry("After it.")
        let upgraded = try #require(try journal.database.read { db in try Manifest.load(db, keys: keys) })
        #expect(upgraded.instance != nil && upgraded.syncDevice == Manifest.TableState() && upgraded.counter == before.counter + 1)
        _ = try journal.addEntry("And again.")
        #expect(try journal.database.read { db in try Manifest.load(db, keys: keys) }?.instance == upgraded.instance)
        try journal.writeBehindTheVaultsBack { db in
            try db.execute(sql: "INSERT INTO sync_device (singleton, device_id, location) VALUES (1, randomblob(16), '/somewhere')")
        }
        #expect(throws: VaultError.self) { try journal.addEntry("Refused.") }
        #expect(try journal.check().problems.contains { $0.contains("sync_device") })
    }

    @Test func sumsAddModulo2To256AndSubtractionUndoesAddition() throws {
        let digest = DigestSum(bytes: Array(Data(hex: Self.tagRowDigest)))
        #expect(Data(digest.adding(digest).bytes).lowerHex == Self.doubledDigest)
        let allOnes = DigestSum(bytes: [UInt8](repeating: 0xff, count: 32))
        var one = [UInt8](repeating: 0, count: 32)
        one[31] = 1
        #expect(allOnes.adding(DigestSum(bytes: one)) == DigestSum())
        #expect(DigestSum().subtracting(DigestSum(bytes: one)) == allOnes)
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            let a = DigestSum(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let b = DigestSum(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(a.adding(b).subtracting(b) == a)
            #expect(a.adding(b) == b.adding(a))
        }
    }

    @Test func everyFlippedByteOfAStoredManifestIsRefused() throws {
        let keys = try Self.vectorKeys()
        let stored = Data(hex: Self.oneTagRowManifest)
        #expect(try Manifest(encoded: stored, key: keys.manifestKey, vaultID: Self.vaultID) != nil)
        for offset in stored.indices {
            var flipped = stored
            flipped[offset] ^= 0x01
            #expect(try Manifest(encoded: flipped, key: keys.manifestKey, vaultID: Self.vaultID) == nil, "byte \(offset)")
        }
        let otherVault = UUID()
        #expect(try Manifest(encoded: stored, key: keys.manifestKey, vaultID: otherVault) == nil)
    }

    @Test func aDigestCoversEveryColumnAndItsType() throws {
        let keys = try Self.vectorKeys()
        let digest = try RowDigest.of(Self.tagRow, in: "entry_tag", key: keys.manifestKey)
        // The same value as text, the same seq as a real number, another table: all differ.
        let variants: [(String, [DatabaseValue])] = [
            ("entry_tag", [Self.tagRow[0], "7".databaseValue]),
            ("entry_tag", [Self.tagRow[0], 7.0.databaseValue]),
            ("entry_tag", [Self.tagRow[0], 8.databaseValue]),
            ("entry_tag", [Self.tagRow[0]]),
            ("entry", Self.tagRow),
        ]
        for (table, values) in variants {
            #expect(try RowDigest.of(values, in: table, key: keys.manifestKey) != digest, "\(table) \(values)")
        }
    }

    // MARK: A vault with one of everything

    /// Entries with tags, an analysis with nodes and relations, a chat thread with messages.
    struct Fixture {
        let vault: TemporaryVault
        let first: Entry
        let second: Entry
        let analysis: Analysis
        let message: ChatMessage

        init() throws {
            vault = try TemporaryVault()
            let journal = vault.journal
            first = try journal.addEntry("Lunch with @anna by the #sea.", at: moment(hoursAfterJan5UTC: 12, offsetHours: 1), tags: ["food"],
                                         measures: Measures.assignments(["mood=7", "weather=sun"]))
            second = try journal.addEntry("Quiet evening. #home", at: moment(hoursAfterJan5UTC: 20, offsetHours: 1))
            analysis = try journal.addAnalysis(Analysis(entryID: first.id, model: "m", processedAt: .now(), sentiment: "warm", themes: ["sea"]),
                                               nodes: [NodeReference(type: "place", name: "Sea")],
                                               relations: [RelationDraft(from: NodeReference(type: "person", name: "me"),
                                                                         to: NodeReference(type: "person", name: "Anna"), type: "meets", strength: 0.8)])
            _ = try journal.createThread(title: "Talk")
            message = try journal.addMessage(ChatMessageDraft(role: .user, content: "How was lunch?", entryID: first.id))
            _ = try journal.addMessage(ChatMessageDraft(role: .assistant, content: "Sunny."))
        }

        func expectClean(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let report = try vault.journal.check()
            #expect(report.isClean, "\(comment.map { "\($0): " } ?? "")\(report.problems)", sourceLocation: sourceLocation)
            #expect(report.notes.isEmpty, "\(report.notes)", sourceLocation: sourceLocation)
        }

        /// `check()` fails and one of its problems mentions `words`.
        func expectReported(_ words: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let report = try vault.journal.check()
            #expect(report.problems.contains { $0.contains(words) }, "\(comment.map { "\($0): " } ?? "")\(report.problems)",
                    sourceLocation: sourceLocation)
        }

        /// A whole row as stored, to put back later as an editor of the file would.
        func savedRow(_ table: String, id: UUID) throws -> Row {
            try vault.journal.database.read { db in
                try #require(try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE id = ?", arguments: [id.storageText]))
            }
        }

        /// Writes `row` back: over the row with its id if there is one (an update, so nothing
        /// cascades), else as a new row.
        func putBack(_ row: Row, into table: String) throws {
            let columns = Array(row.columnNames)
            let values = columns.map { row[$0] as DatabaseValue }
            try vault.execute("UPDATE \(table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?",
                              StatementArguments(values + [row["id"] as DatabaseValue]))
            try vault.execute("INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                              StatementArguments(values))
        }
    }

    @Test func noFalseAlarmAfterEveryLegitimateWrite() throws {
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        try fixture.expectClean("after the fixture")
        try journal.updateEntry(id: fixture.first.id, content: "Lunch with @anna by the #sea, edited.", starred: true)
        try fixture.expectClean("after edit")
        try journal.addEntries([Entry(content: "Imported #old", created: moment(hoursAfterJan5UTC: -100, offsetHours: 0), modifiedAt: 1)])
        try fixture.expectClean("after a bulk insert")
        let snapshot = try journal.snapshot()
        try journal.importSnapshot(snapshot)
        try fixture.expectClean("after importing the vault's own export")
        try journal.addAnalysis(Analysis(entryID: fixture.second.id, model: "m2", processedAt: .now(), sentiment: "calm"),
                                relations: [RelationDraft(from: NodeReference(type: "person", name: "me"),
                                                          to: NodeReference(type: "place", name: "home"), type: "rests at", strength: 0.3)])
        try fixture.expectClean("after a second analysis")
        try journal.deleteAnalysis(id: fixture.analysis.id)
        try fixture.expectClean("after deleting an analysis")
        try journal.deleteEntry(id: fixture.first.id)  // cascades: analyses, relations, tag rows; a message's entry_id set to NULL
        try fixture.expectClean("after deleting an entry with everything hanging on it")
        try journal.changePassphrase(to: secret("another passphrase"))
        _ = try journal.replaceRecoveryKey()
        try fixture.expectClean("after passwd and recovery-key")
        try journal.deleteThread(id: fixture.message.threadID)
        try fixture.expectClean("after deleting a thread")
    }

    @Test func concurrentWritersLeaveTheManifestConsistent() async throws {
        let fixture = try Fixture()
        let path = fixture.vault.path
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    // Each writer its own process-like handle on the same file.
                    let journal = try Vault.open(at: path).unlock(passphrase: secret(TemporaryVault.passphrase))
                    for index in 0..<15 {
                        let entry = try journal.addEntry("Writer \(writer), entry \(index) #w\(writer)")
                        if index % 3 == 0 { try journal.updateEntry(id: entry.id, content: "Writer \(writer), edited \(index)") }
                        if index % 5 == 0 { try journal.deleteEntry(id: entry.id) }
                    }
                }
            }
            try await group.waitForAll()
        }
        try fixture.expectClean()
        #expect(try fixture.vault.journal.check().checked["entry"] == 2 + 4 * 12)
    }

    // MARK: Careful edits of the file

    @Test func deletingAnyKindOfRecordIsReported() throws {
        for (table, column) in [("entry", "id"), ("analysis", "id"), ("knowledge_node", "id"), ("knowledge_relation", "id"),
                                ("chat_thread", "id"), ("chat_message", "id")] {
            let fixture = try Fixture()
            // The most recently written row, with foreign keys kept valid: rows that point at it go too.
            try fixture.vault.writeWithForeignKeysEnforced("DELETE FROM \(table) WHERE \(column) = (SELECT \(column) FROM \(table) ORDER BY rowid DESC LIMIT 1)")
            try fixture.expectReported("missing", "a deleted \(table) row")
            #expect(try fixture.vault.journal.check().problems.contains { $0.contains(table) })
        }
    }

    @Test func aRecordRolledBackToAnOlderRevisionWithItsTagRowsIsReported() throws {
        let fixture = try Fixture()
        let id = fixture.second.id
        let old = try fixture.savedRow("entry", id: id)
        let oldTags = try fixture.vault.tagIndexRows().filter { $0.0 == id.storageText }
        try fixture.vault.journal.updateEntry(id: id, content: "Quiet evening, then a storm. #home #storm")
        try fixture.vault.execute("DELETE FROM entry_tag WHERE entry_seq = ?", [old["seq"] as DatabaseValue])
        try fixture.vault.execute("DELETE FROM entry WHERE id = ?", [id.storageText])
        try fixture.putBack(old, into: "entry")
        for (entryID, bidx) in oldTags { try fixture.vault.execute(RecordTamperTests.insertTagIndexRow, [bidx, entryID]) }
        #expect(try fixture.vault.journal.entry(id: id) == fixture.second, "the old revision reads as a record jv wrote")
        try fixture.expectReported("not the ones the manifest lists")
    }

    @Test func olderRevisionsOfEveryKindOfRecordAreReported() throws {
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        let oldAnalysis = try fixture.savedRow("analysis", id: fixture.analysis.id)
        let oldThread = try fixture.savedRow("chat_thread", id: fixture.message.threadID)
        let oldRelation = try #require(try journal.allRelations().first)
        let oldRelationRow = try fixture.savedRow("knowledge_relation", id: oldRelation.id)
        // New revisions: the thread through a new message, the relation through a new strength,
        // the analysis through a deliberate import of a changed copy (the same processing time).
        _ = try journal.addMessage(ChatMessageDraft(threadID: fixture.message.threadID, role: .user, content: "One more thing."))
        try journal.addAnalysis(Analysis(entryID: fixture.first.id, model: "m", processedAt: .now()), relations: [
            RelationDraft(from: NodeReference(type: "person", name: "me"), to: NodeReference(type: "person", name: "Anna"), type: "meets", strength: 0.1),
        ])
        var changed = fixture.analysis
        changed.sentiment = "cold"
        var snapshot = VaultSnapshot()
        snapshot.analyses = [changed]
        try journal.importSnapshot(snapshot, overwrite: true)
        try fixture.expectClean()
        for (table, row) in [("analysis", oldAnalysis), ("chat_thread", oldThread), ("knowledge_relation", oldRelationRow)] {
            let current = try fixture.savedRow(table, id: try RecordID.parse(row["id"] as String, table: table))
            try fixture.putBack(row, into: table)
            try fixture.expectReported(table, "\(table) rolled back")
            try fixture.putBack(current, into: table)
            try fixture.expectClean("\(table) put forward again")
        }
    }

    @Test func aDeletedRecordPutBackIsReported() throws {
        let fixture = try Fixture()
        let old = try fixture.savedRow("analysis", id: fixture.analysis.id)
        try fixture.vault.journal.deleteAnalysis(id: fixture.analysis.id)
        try fixture.expectClean("after the legitimate delete")
        try fixture.putBack(old, into: "analysis")
        #expect(try fixture.vault.journal.analysis(id: fixture.analysis.id) == fixture.analysis, "the copy reads as a record jv wrote")
        try fixture.expectReported("should not exist", "a deleted analysis put back")
    }

    @Test func tagIndexRowsAddedRemovedOrMovedAreReported() throws {
        let edits: [(String, (Fixture) throws -> Void)] = [
            ("added", { fixture in
                try fixture.vault.execute(RecordTamperTests.insertTagIndexRow,
                                          [try fixture.vault.tagIndexRows().first { $0.0 == fixture.first.id.storageText }!.1, fixture.second.id.storageText])
            }),
            ("removed", { fixture in
                try fixture.vault.execute("DELETE FROM entry_tag WHERE (bidx, entry_seq) IN (SELECT bidx, entry_seq FROM entry_tag LIMIT 1)")
            }),
            ("moved", { fixture in
                try fixture.vault.execute("""
                    UPDATE entry_tag SET entry_seq = (SELECT seq FROM entry WHERE id = ?) WHERE entry_seq = (SELECT seq FROM entry WHERE id = ?)
                    """, [fixture.second.id.storageText, fixture.first.id.storageText])
            }),
        ]
        for (name, edit) in edits {
            let fixture = try Fixture()
            try edit(fixture)
            try fixture.expectReported("tag index rows", "a tag-index row \(name)")
        }
    }

    @Test func aForgedTagIndexRowDoesNotPutAnEntryIntoATagListing() throws {
        let fixture = try Fixture()
        let sea = Data(fixture.vault.journal.keys.blindIndex.value(domain: "tag", parts: ["sea"]))
        try fixture.vault.execute(RecordTamperTests.insertTagIndexRow, [sea, fixture.second.id.storageText])
        var query = EntryQuery()
        query.tags = ["sea"]
        expectTampered { try fixture.vault.journal.entries(query) }
    }

    @Test func aForgedRelationIsNotShownAndIsReported() throws {
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        let relation = try #require(try journal.allRelations().first)
        let row = try fixture.savedRow("knowledge_relation", id: relation.id)
        // "me → murdered → Anna": a copy of a real row with a new id and the type index of another word.
        try fixture.vault.execute("""
            INSERT INTO knowledge_relation (id, from_node, to_node, entry_id, created_at, relation_key, enc_meta, relation)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [UUID().storageText, row["from_node"] as DatabaseValue, row["to_node"] as DatabaseValue, row["entry_id"] as DatabaseValue,
                  row["created_at"] as DatabaseValue, journal.relationKey("murdered"), row["enc_meta"] as DatabaseValue, row["relation"] as DatabaseValue])
        expectTampered { try journal.allRelations() }
        try fixture.expectReported("knowledge_relation")
    }

    @Test func aMissingManifestOrMissingTriggersStopWritesAndAreReported() throws {
        let fixture = try Fixture()
        try fixture.vault.execute("DELETE FROM manifest")
        try fixture.expectReported("manifest is missing")
        #expect(throws: VaultError.self) { try fixture.vault.journal.addEntry("not written") }

        let other = try Fixture()
        try other.vault.execute("DROP TRIGGER entry_manifest_insert")
        #expect(throws: VaultError.self) { try other.vault.journal.addEntry("not written") }
        try other.expectClean("nothing was written, so nothing is out of step")
    }

    @Test func aManifestFromAnotherMomentIsReported() throws {
        let fixture = try Fixture()
        let old = try fixture.vault.journal.database.read { db in try Data.fetchOne(db, sql: "SELECT data FROM manifest") }
        try fixture.vault.journal.addEntry("One more. #later")
        try fixture.vault.execute("UPDATE manifest SET data = ?", [old])
        try fixture.expectReported("should not exist")
    }

    // MARK: Vaults from before the manifest

    @Test func aVaultFromBeforeTheManifestIsUpgradedAtItsFirstWrite() throws {
        let fixture = try Fixture()
        let journal = fixture.vault.journal
        let relations = try journal.allRelations()
        let greek = try journal.addEntry("Along the #οδος again.")
        // Back to how schema 4 left it: no manifest, relations in the clear, format-1 keyslots.
        try fixture.vault.execute("DELETE FROM manifest")
        for relation in relations {
            try fixture.vault.execute("INSERT INTO legacy_relation VALUES (?, ?, ?, ?, ?, ?, ?)",
                                      [relation.id.storageText, relation.from.storageText, relation.to.storageText, relation.type,
                                       relation.strength, relation.entryID?.storageText, 1])
        }
        try fixture.vault.execute("DELETE FROM knowledge_relation")
        // An entry whose tag index has the normal form of schema 4 (lower case, final sigma kept).
        try fixture.vault.execute("UPDATE entry_tag SET bidx = ? WHERE entry_seq = (SELECT seq FROM entry WHERE id = ?)",
                                  [Data(journal.keys.blindIndex.value(domain: "tag", parts: ["οδος"])), greek.id.storageText])
        // A node of a type outside today's vocabulary, as schema 4 stored it (the word in the
        // clear, a random id), and ids not derived yet (schema 7).
        let hobby = KnowledgeNode(id: UUID(), type: "hobby", name: "Chess", created: .now(), metadata: .null)
        try journal.writeBehindTheVaultsBack { db in
            try NodeRow(hobby, key: Data(journal.keys.blindIndex.value(domain: "node", parts: ["hobby", "chess"])),
                        meta: .fresh(keyVersion: 1), keys: journal.keys).insert(db)
            try db.execute(sql: "DELETE FROM graph_ids_derived")
        }
        let unlocked = try #require(fixture.vault.unlock().unlockedSlot)
        for slot in try fixture.vault.vault.headerAndSlots().1 {
            let kek: SecureBytes = slot.kind == .passphrase ? unlocked.kek
                : try slot.unwrapWithKEK(recoveryKey: fixture.vault.recoveryKey, vaultID: journal.keys.vaultID).kek
            try fixture.vault.setKeyslotData(slot: Int(slot.slot), to: try slot.rewrapped(journal.keys.masterKey, kek: kek,
                keyVersion: 1, vaultID: journal.keys.vaultID, format: Keyslot.legacyFormat).encoded)
        }

        let legacy = try fixture.vault.unlock()
        #expect(try legacy.allRelations() == relations, "read as they are before the upgrade")
        let report = try legacy.check()
        #expect(report.isClean && report.notes.count == 2, "no manifest yet, one tag index to redo: \(report.problems) \(report.notes)")

        try legacy.addEntry("The first write after the upgrade.")
        try fixture.expectClean("after the upgrade")
        #expect(try legacy.allRelations() == relations, "sealed now, and the same")
        let chess = try legacy.resolveNode("chess")
        #expect(chess.type == "other", "no type word outside the vocabulary stays in the clear")
        #expect(chess.id != hobby.id, "and its id is derived from its name index under its new type")
        var greekQuery = EntryQuery()
        greekQuery.tags = ["ΟΔΟΣ"]
        #expect(try legacy.entries(greekQuery).map(\.id) == [greek.id], "tags re-indexed in today's normal form")
        #expect(try fixture.vault.journal.database.read { db in try String.fetchOne(db, sql: "SELECT type FROM knowledge_node WHERE id = ?",
                                                                                      arguments: [chess.id.storageText]) } == "other")
        #expect(try fixture.vault.journal.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM legacy_relation") } == 0)
        let formats = try fixture.vault.vault.headerAndSlots().1.map { ($0.kind, $0.format) }
        #expect(formats.contains { $0 == (.passphrase, Keyslot.format) }, "the slot that unlocked it now promises a manifest")
        // From now on a deleted manifest is not a vault from before it.
        try fixture.vault.execute("DELETE FROM manifest")
        try fixture.expectReported("manifest is missing")
    }
}

extension TemporaryVault {
    /// Runs `sql` behind the vault's back with foreign keys enforced, so cascades happen as
    /// SQLite would do them for an editor who keeps the file consistent.
    func writeWithForeignKeysEnforced(_ sql: String) throws {
        try journal.writeBehindTheVaultsBack { db in try db.execute(sql: sql) }
    }
}


@Suite struct NodeTypeVocabularyTests {
    @Test func typesOutsideTheVocabularyAreStoredAsOther() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Played chess with Anna.")
        try vault.journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now()),
                                      nodes: [NodeReference(type: "Hobby", name: "Chess"), NodeReference(type: "PERSON", name: "Anna")])
        let stored = try vault.journal.database.read { db in try String.fetchAll(db, sql: "SELECT type FROM knowledge_node ORDER BY type") }
        #expect(stored == ["other", "person"])
        #expect(KnowledgeNode.normalizedType(" Emotion ") == "emotion")
        #expect(KnowledgeNode.normalizedType("murder-weapon") == "other")
        #expect(KnowledgeNode.normalizedType("two words") == nil)
        #expect(try vault.journal.nodes(type: "hobby").map(\.name) == ["Chess"], "asking by a word outside the vocabulary asks for other")
    }
}
