// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

/// `rekey` (SECURITY.md, FORMAT.md §12): a new master key for every record of every table, the
/// old one good for nothing afterwards, the recovery-key rule, and backups from before.
@Suite struct RekeyTests {
    /// Every stored blob of every sealed table (fields and enc_meta) and every blind index, by table and id.
    static func storedBytes(_ journal: UnlockedVault) throws -> [String: Data] {
        try journal.database.read { db in
            var bytes: [String: Data] = [:]
            for table in SealedTable.all {
                let rows = try Row.fetchAll(db, sql: "SELECT \(table.selection) FROM \(table.name)")
                for row in rows {
                    for (index, column) in table.columns.enumerated() {
                        if case .blob(let data) = (row[index] as DatabaseValue).storage {
                            bytes["\(table.name).\(row["id"] as String).\(column)"] = data
                        }
                    }
                }
            }
            for row in try Row.fetchAll(db, sql: "SELECT bidx, entry_seq FROM entry_tag") {
                bytes["entry_tag.\(row[1] as Int64).\((row[0] as Data).lowerHex)"] = row[0] as Data
            }
            return bytes
        }
    }

    @Test("a vault unlocked before another process's rekey committed follows it: reads, checks and writes under the new key")
    func unlockedBeforeAnotherRekeyFollowsIt() throws {
        let fixture = try ManifestTests.Fixture()
        let byPassphrase = try fixture.vault.unlock()
        let byRecoveryKey = try fixture.vault.vault.unlock(recoveryKey: fixture.vault.recoveryKey)
        let withoutSlot = fixture.vault.journal
        // Another process: its own connection, its own unlock.
        let (_, summary) = try Vault.open(at: fixture.vault.path).unlock(passphrase: secret(TemporaryVault.passphrase)).rekey()
        #expect(summary.newRecoveryKey != nil)
        #expect(try byPassphrase.entries().count == 2)
        let report = try byPassphrase.check()
        #expect(report.isClean, "\(report.problems)")
        _ = try byPassphrase.addEntry("Written after the other rekey.")
        #expect(try byPassphrase.check().isClean)
        // Its recovery key was replaced, and a vault without its keyslot has nothing to open the new one with.
        expectVaultError(where: { $0 == .keyRotatedMeanwhile }) { try byRecoveryKey.entries() }
        expectVaultError(where: { $0 == .keyRotatedMeanwhile }) { try withoutSlot.addEntry("Not written.") }
        #expect(try fixture.vault.unlock().entries().count == 3)
        // A backup is of one key: the vault that follows makes one that restores; the one that cannot follow makes none.
        let backup = fixture.vault.folder.file("after.jvbak")
        try byPassphrase.backup(to: backup)
        #expect(try BackupFile.verify(backup, credential: .passphrase(secret(TemporaryVault.passphrase))).counts["entries"] == 3)
        let unmade = fixture.vault.folder.file("unmade.jvbak")
        expectVaultError(where: { $0 == .keyRotatedMeanwhile }) { try withoutSlot.backup(to: unmade) }
        #expect(!FileManager.default.fileExists(atPath: unmade))
    }

    @Test func everyCiphertextChangesAndEveryRecordReadsTheSame() throws {
        let fixture = try ManifestTests.Fixture()
        let journal = fixture.vault.journal
        let before = try journal.snapshot()
        let bytesBefore = try Self.storedBytes(journal)
        let (rekeyed, summary) = try fixture.vault.unlock().rekey()
        #expect(summary.keyVersion == 2)
        #expect(summary.records["entry"] == 2 && summary.records["knowledge_relation"] == 1 && summary.records["chat_message"] == 2
                && summary.records["measure"] == 1)
        let bytesAfter = try Self.storedBytes(rekeyed)
        // Every record keeps its id, a knowledge node's and relation's too (FORMAT.md §1.6).
        #expect(Set(bytesBefore.keys.filter { !$0.hasPrefix("entry_tag") }) == Set(bytesAfter.keys.filter { !$0.hasPrefix("entry_tag") }))
        for (name, old) in bytesBefore where !name.hasPrefix("entry_tag") {
            #expect(bytesAfter[name] != old, "\(name) is unchanged")
        }
        #expect(Set(bytesBefore.values.filter { $0.count == 8 }).isDisjoint(with: bytesAfter.values.filter { $0.count == 8 }),
                "blind indexes are under a new key")
        var after = try rekeyed.snapshot()
        after.threads = after.threads.map { var thread = $0; thread.messageCount = 0; return thread }
        var expected = before
        expected.threads = expected.threads.map { var thread = $0; thread.messageCount = 0; return thread }
        #expect(after.entries == expected.entries && after.analyses == expected.analyses && after.messages == expected.messages
                && after.nodes == expected.nodes && after.relations == expected.relations && after.threads == expected.threads)
        let report = try rekeyed.check()
        #expect(report.isClean && report.notes.isEmpty, "\(report.problems)")
        var tagged = EntryQuery()
        tagged.tags = ["sea"]
        #expect(try rekeyed.entries(tagged).map(\.id) == [fixture.first.id])
        // The passphrase is the same, and opens the new key.
        #expect(try fixture.vault.unlock().entries().count == 2)
        // Every record is under exactly one key version: the new one.
        let versions = try rekeyed.database.read { db in
            try SealedTable.all.flatMap { table in
                try Data.fetchAll(db, sql: "SELECT enc_meta FROM \(table.name)").map { RecordMeta(encoded: $0)?.keyVersion }
            }
        }
        #expect(Set(versions) == [2])
    }

    @Test func theOldMasterKeyOpensNothingAfterwards() throws {
        let fixture = try ManifestTests.Fixture()
        let oldKey = fixture.vault.journal.keys.masterKey
        _ = try fixture.vault.unlock().rekey()
        let withOldKey = try fixture.vault.vault.unlock(masterKey: oldKey)
        expectTampered { try withOldKey.entries() }
        expectTampered { try withOldKey.analyses() }
        expectTampered { try withOldKey.threads() }
        #expect(!(try withOldKey.check().isClean))
        #expect(throws: VaultError.self) { try withOldKey.addEntry("refused: the manifest does not authenticate") }
        // Even read as key version 1, the records no longer authenticate.
        let asVersionOne = try VaultKeys(vaultID: fixture.vault.journal.keys.vaultID, keyVersion: 1, masterKey: oldKey)
        let row = try #require(try fixture.vault.journal.database.base.read { db in
            try Row.fetchOne(db, sql: "SELECT \(EncryptedEntryRow.selection) FROM entry")
        })
        let stored = try EncryptedEntryRow(row: row)
        expectTampered { try stored.decrypt(keys: asVersionOne) }
        // And an unlocked vault of key version 1 without a keyslot to follow the rekey through reads nothing.
        let unlockedAsVersionOne = UnlockedVault(vault: fixture.vault.vault, keys: asVersionOne, unlockedSlot: nil)
        expectVaultError(where: { $0 == .keyRotatedMeanwhile }) { try unlockedAsVersionOne.entries() }
    }

    @Test func theRecoveryKeyIsReplacedUnlessItIsGiven() throws {
        let fixture = try ManifestTests.Fixture()
        let (_, summary) = try fixture.vault.unlock().rekey()
        let newKey = try #require(summary.newRecoveryKey)
        _ = expectVaultError(where: { $0 == .wrongRecoveryKey }) { try fixture.vault.vault.unlock(recoveryKey: fixture.vault.recoveryKey) }
        #expect(try fixture.vault.vault.unlock(recoveryKey: newKey).entries().count == 2)

        let (_, kept) = try fixture.vault.unlock().rekey(keepingRecoveryKey: newKey)
        #expect(kept.newRecoveryKey == nil && kept.keyVersion == 3)
        #expect(try fixture.vault.vault.unlock(recoveryKey: newKey).entries().count == 2)
        // A wrong recovery key to keep changes nothing.
        _ = expectVaultError(where: { $0 == .wrongRecoveryKey }) { try fixture.vault.unlock().rekey(keepingRecoveryKey: fixture.vault.recoveryKey) }
        #expect(try fixture.vault.vault.header().keyVersion == 3)
    }

    @Test func rekeyNeedsThePassphraseAndASoundVault() throws {
        let fixture = try ManifestTests.Fixture()
        let byRecovery = try fixture.vault.vault.unlock(recoveryKey: fixture.vault.recoveryKey)
        _ = expectVaultError(where: { $0 == .rekeyNeedsPassphrase }) { try byRecovery.rekey() }
        try fixture.vault.execute("DELETE FROM chat_message WHERE id = ?", [fixture.message.id.storageText])
        #expect(throws: VaultError.self) { try fixture.vault.unlock().rekey() }
        #expect(try fixture.vault.vault.header().keyVersion == 1, "a damaged vault is not rekeyed over its damage")
    }

    @Test func aBackupFromBeforeTheRekeyStillRestores() throws {
        let fixture = try ManifestTests.Fixture()
        let backup = fixture.vault.folder.file("before.jvbak")
        try fixture.vault.journal.backup(to: backup)
        _ = try fixture.vault.unlock().rekey()
        let target = fixture.vault.folder.file("restored.vault")
        _ = try BackupFile.restore(backup, to: target, credential: .passphrase(secret(TemporaryVault.passphrase)))
        let restored = try Vault.open(at: target).unlock(passphrase: secret(TemporaryVault.passphrase))
        #expect(try restored.entries().map(\.id) == [fixture.first.id, fixture.second.id])
        #expect(try restored.check().isClean)
        #expect(try Vault.open(at: target).unlock(recoveryKey: fixture.vault.recoveryKey).entries().count == 2,
                "the recovery key of its day opens it")
    }
}
