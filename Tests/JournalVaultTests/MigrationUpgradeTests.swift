// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

/// A vault written by the schema-1 release (`Fixtures/version1.vault`, made with its `jv` and
/// committed with the passphrase below) opens with this release, migrates forward in place,
/// and keeps every entry exactly.
@Suite struct MigrationUpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let passphrase = "fixture v1 passphrase"

    /// A private copy of the fixture, so the committed file is never migrated.
    private func copyOfFixture() throws -> (path: String, cleanup: () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jv-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("version1.vault").path
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("version1.vault").path, toPath: path)
        return (path, { try? FileManager.default.removeItem(at: folder) })
    }

    @Test func fixtureIsAtSchemaVersionOne() throws {
        let (path, cleanup) = try copyOfFixture()
        defer { cleanup() }
        let identifiers = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        }
        #expect(identifiers == ["0001_entries"])
    }

    @Test func versionOneVaultMigratesWithEveryEntryIntact() throws {
        let (path, cleanup) = try copyOfFixture()
        defer { cleanup() }
        let vault = try Vault.open(at: path)
        let info = try vault.info()
        #expect(info.schemaVersion == VaultDatabase.supportedSchemaVersion)
        #expect(info.counts["entries"] == 3)

        let journal = try vault.unlock(passphrase: SecureBytes(copying: Array(Self.passphrase.utf8)))
        let expected = try JSONParser.parse(Array(Data(contentsOf: Self.fixtures.appendingPathComponent("version1.entries.json"))))
        #expect(JSONValue.array(try journal.entries().map(\.json)) == expected)
        // check() compares every entry's tag index with its decrypted tags: migration 0004
        // moved the index onto `entry.seq`, and a tag query must find the same entries.
        let beforeFirstWrite = try journal.check()
        #expect(beforeFirstWrite.isClean, "\(beforeFirstWrite.problems)")
        #expect(beforeFirstWrite.notes.count == 1, "no manifest until the first write (FORMAT.md §11.4)")
        #expect(try journal.database.read { db in try Manifest.isStored(db) } == false, "reading did not write")
        var spring = EntryQuery()
        spring.tags = ["spring"]
        #expect(try journal.entries(spring).map(\.content) == ["First entry of the fixture. Written in Berlin with #spring in the air and @mira."])

        // The new tables work on the upgraded vault.
        let entry = try #require(try journal.entries().first)
        try journal.addAnalysis(Analysis(entryID: entry.id, model: "m", processedAt: .now(), sentiment: "calm"),
                                nodes: [NodeReference(type: "person", name: "Mira")])
        try journal.addMessage(ChatMessageDraft(role: .user, content: "About my first entry", entryID: entry.id))
        let afterFirstWrite = try journal.check()
        #expect(afterFirstWrite.isClean && afterFirstWrite.notes.isEmpty, "\(afterFirstWrite.problems) \(afterFirstWrite.notes)")
        #expect(try vault.headerAndSlots().1.first { $0.kind == .passphrase }?.format == Keyslot.format,
                "the slot that unlocked it now promises a manifest")
        // Nothing was lost: the entries read exactly as before, and a rekey goes through.
        #expect(JSONValue.array(try journal.entries().map(\.json)) == expected)
        let recoveryText = try String(contentsOf: Self.fixtures.appendingPathComponent("version1.recovery-key"), encoding: .utf8)
        #expect(try Vault.open(at: path).unlock(recoveryKey: RecoveryKey(text: recoveryText)).entries().count == 3)
        let (rekeyed, _) = try Vault.open(at: path).unlock(passphrase: SecureBytes(copying: Array(Self.passphrase.utf8))).rekey()
        #expect(JSONValue.array(try rekeyed.entries().map(\.json)) == expected)
        #expect(try rekeyed.check().isClean)

        #expect(throws: VaultError.wrongRecoveryKey, "rekey made a new recovery key") {
            try Vault.open(at: path).unlock(recoveryKey: RecoveryKey(text: recoveryText))
        }
    }

    @Test func migrationIsAllOrNothing() throws {
        let (path, cleanup) = try copyOfFixture()
        defer { cleanup() }
        // A table in the way makes migration 0002 fail half-way; the vault must stay at version 1, intact.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE knowledge_node (x)") }
        #expect(throws: VaultError.self) { try Vault.open(at: path) }
        let (identifiers, entries) = try DatabaseQueue(path: path).read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? 0)
        }
        #expect(identifiers == ["0001_entries"])
        #expect(entries == 3)
        #expect(try DatabaseQueue(path: path).read { db in try db.tableExists("analysis") } == false)
    }
}
