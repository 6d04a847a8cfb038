// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// Encrypted backups (FORMAT.md §8, README): the file's layout, round trips, and every way
/// of damaging one — each refused with nothing written where the restore was going.
@Suite struct BackupTests {
    // MARK: Fixture

    /// A vault of more than 200 KiB (so the backup body has at least three full chunks), with a
    /// chat thread, an analysis and a small knowledge graph, and its backup — of format 2, as jv
    /// writes them, or the same snapshot as a format-1 backup (as jv wrote them before). It holds
    /// `entries` entries plus one (the entry the chat and the analysis are about).
    fileprivate final class Fixture: Sendable {
        let vault: TemporaryVault
        let backup: String
        let headerLength: Int
        let bytes: Data
        /// On-disk bytes of every chunk but the last (FORMAT.md §8.2).
        let sealedChunk: Int

        init(entries count: Int = 300, format: Int = 2) throws {
            vault = try TemporaryVault()
            try vault.journal.addEntries(fileprivateEntries(count))
            try fileprivatePopulateOtherKinds(vault.journal)
            backup = vault.folder.file("journal.jvbak")
            try vault.journal.backup(to: backup)
            if format == 1 { try fileprivateAsFormat1(backup, keys: vault.journal.keys).write(to: URL(fileURLWithPath: backup)) }
            bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
            headerLength = 39 + Int(bytes[38]) * 108 + 24 + 48 + (format == 1 ? 24 : 0) + 32 + 32
            sealedChunk = 65_536 + (format == 1 ? 17 : 16)
        }

        /// Another backup of the same vault, in the same format: the same keys, another file key.
        func another() throws -> Data {
            let path = vault.folder.file("other.jvbak")
            try vault.journal.backup(to: path)
            if sealedChunk == 65_536 + 17 { return try fileprivateAsFormat1(path, keys: vault.journal.keys) }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }

        var passphrase: VaultCredential { get throws { .passphrase(try secret(TemporaryVault.passphrase)) } }
        var recovery: VaultCredential { .recoveryKey(vault.recoveryKey) }

        /// Offset of chunk `index` (0-based) of the body.
        func chunkStart(_ index: Int) -> Int { headerLength + index * sealedChunk }

        /// Chunks before the last one.
        var fullChunks: Int { (bytes.count - headerLength - 1) / sealedChunk }

        /// Writes `data` as a new file in the fixture's folder and returns its path.
        func write(_ data: Data, name: String = "damaged-\(UUID().uuidString).jvbak") throws -> String {
            let path = vault.folder.file(name)
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    // MARK: Layout

    @Test func headerFollowsFormatSection8_1() throws {
        let fixture = try Fixture(entries: 5)
        let bytes = [UInt8](fixture.bytes)
        let before = Instant.now().millis
        #expect(Array(bytes[0..<8]) == Array("JVLTBAK\0".utf8))
        #expect(Array(bytes[8..<10]) == [0, 2], "format u16 = 2, big-endian")
        let header = try fixture.vault.vault.header()
        let idBytes = withUnsafeBytes(of: header.vaultID.uuid) { Array($0) }
        #expect(Array(bytes[10..<26]) == idBytes)
        let created = bytes[26..<34].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        #expect(abs(created - before) < 120_000, "created_at is now, in ms (big-endian)")
        #expect(Array(bytes[34..<38]) == [0, 0, 0, 1], "kv = 1")
        #expect(bytes[38] == 2, "a passphrase slot and a recovery slot")
        // The slots are the vault's own, byte for byte.
        #expect(Data(bytes[39..<147]) == (try fixture.vault.keyslotData(slot: 0)))
        #expect(Data(bytes[147..<255]) == (try fixture.vault.keyslotData(slot: 1)))
        #expect(fixture.headerLength == 391, "no stream header in format 2")
        // header_check: unkeyed BLAKE2b-256 of "JVLT-backup-check" ‖ every byte before it.
        let check = Blake2b.hash(Array("JVLT-backup-check".utf8) + bytes[0..<(fixture.headerLength - 32)])
        #expect(Array(bytes[(fixture.headerLength - 32)..<fixture.headerLength]) == check)
        // Nothing readable: no entry text in the file.
        #expect(fixture.bytes.range(of: Data("Entry number".utf8)) == nil)
    }

    @Test func bodyIsChunksOf65552BytesAndTheVaultIsLargeEnough() throws {
        let fixture = try Fixture()
        let body = fixture.bytes.count - fixture.headerLength
        #expect(fixture.fullChunks >= 3, "body of \(body) bytes")
        let last = body - fixture.fullChunks * fixture.sealedChunk
        // The last chunk is the remainder, 1 to 65,536 bytes and its 16 bytes of tag.
        #expect(last >= 17 && last <= fixture.sealedChunk)
        // The snapshot inside is a whole number of SQLite pages: body = snapshot + 16 per chunk.
        let chunks = fixture.fullChunks + 1
        #expect((body - 16 * chunks) % 4096 == 0)
        #expect(body - 16 * chunks > 200 * 1024)
    }

    @Test func backupFileIsPrivateAndNeverReplacedWithoutReplace() throws {
        let fixture = try Fixture(entries: 3)
        var info = stat()
        #expect(stat(fixture.backup, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        expectVaultError(where: { if case .vaultExists = $0 { true } else { false } }) {
            try fixture.vault.journal.backup(to: fixture.backup)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.backup)) == fixture.bytes)
        try fixture.vault.journal.addEntry("One more.")
        let summary = try fixture.vault.journal.backup(to: fixture.backup, replace: true)
        #expect(summary.counts["entries"] == 5, "3 + the fixture's walk + one more")
        #expect(try BackupFile.verify(fixture.backup, credential: fixture.passphrase).counts["entries"] == 5)
        // No temporary file is left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.vault.folder.url.path)
        #expect(names.filter { $0.hasPrefix(".") }.isEmpty, "\(names)")
    }

    // MARK: Round trips

    @Test func restoreElsewhereGivesTheSameRecords() throws {
        let fixture = try Fixture(entries: 40)
        let target = fixture.vault.folder.file("elsewhere/restored.vault")
        let summary = try BackupFile.restore(fixture.backup, to: target, credential: fixture.passphrase)
        #expect(summary.counts["entries"] == 41)
        #expect(summary.counts["threads"] == 1 && summary.counts["analyses"] == 1 && summary.counts["nodes"] == 2)
        let restored = try Vault.open(at: target).unlock(passphrase: secret(TemporaryVault.passphrase))
        #expect(try fileprivateExport(restored) == (try fileprivateExport(fixture.vault.journal)))
        #expect(try restored.check().isClean)
        var info = stat()
        #expect(stat(target, &info) == 0 && info.st_mode & 0o777 == 0o600)
        // Only the vault (and SQLite's companions while it is open) in the target folder.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.vault.folder.file("elsewhere"))
        #expect(names.filter { !$0.hasPrefix("restored.vault") }.isEmpty, "\(names)")
    }

    @Test func restoreWithTheRecoveryKey() throws {
        let fixture = try Fixture(entries: 10)
        let target = fixture.vault.folder.file("restored.vault")
        let summary = try BackupFile.restore(fixture.backup, to: target, credential: fixture.recovery)
        #expect(summary.vaultID == (try fixture.vault.vault.header().vaultID))
        let restored = try Vault.open(at: target).unlock(recoveryKey: fixture.vault.recoveryKey)
        #expect(try fileprivateExport(restored) == (try fileprivateExport(fixture.vault.journal)))
    }

    @Test func verifyChecksWithoutWritingAndReportsCounts() throws {
        let fixture = try Fixture(entries: 12)
        let before = try fileprivateListing(fixture.vault.folder.url.path)
        let summary = try BackupFile.verify(fixture.backup, credential: fixture.passphrase)
        #expect(summary.counts["entries"] == 13)
        #expect(summary.bytes == Int64(fixture.bytes.count))
        #expect(try fileprivateListing(fixture.vault.folder.url.path) == before)
    }

    @Test func aBackupOpensWithTheCredentialsOfItsTimeOnly() throws {
        let fixture = try Fixture(entries: 2)
        try fixture.vault.journal.changePassphrase(to: secret("a new passphrase"), kdf: TemporaryVault.kdf)
        _ = try fixture.vault.journal.replaceRecoveryKey()
        // The backup still holds the old slots.
        #expect(try BackupFile.verify(fixture.backup, credential: fixture.passphrase).counts["entries"] == 3)
        #expect(try BackupFile.verify(fixture.backup, credential: fixture.recovery).counts["entries"] == 3)
        expectVaultError(where: { $0 == .wrongPassphrase }) {
            try BackupFile.verify(fixture.backup, credential: .passphrase(try secret("a new passphrase")))
        }
    }

    // MARK: Refusals that write nothing

    @Test func wrongPassphraseOrRecoveryKeyIsRefusedAndNothingIsWritten() throws {
        let fixture = try Fixture(entries: 2)
        let target = fixture.vault.folder.file("restored.vault")
        let before = try fileprivateListing(fixture.vault.folder.url.path)
        expectVaultError(where: { $0 == .wrongPassphrase }) {
            try BackupFile.restore(fixture.backup, to: target, credential: .passphrase(try secret("not the passphrase")))
        }
        expectVaultError(where: { $0 == .wrongRecoveryKey }) {
            try BackupFile.restore(fixture.backup, to: target, credential: .recoveryKey(try RecoveryKey.generate()))
        }
        expectVaultError(where: { $0 == .wrongPassphrase }) {
            try BackupFile.verify(fixture.backup, credential: .passphrase(try secret("")))
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try fileprivateListing(fixture.vault.folder.url.path) == before)
    }

    @Test func aRefusedRestoreIntoAnExistingFolderLeavesItAsItWas() throws {
        let fixture = try Fixture(entries: 2)
        let folder = try TemporaryFolder()
        try Data("unrelated".utf8).write(to: folder.url.appendingPathComponent("notes.txt"))
        let before = try fileprivateListing(folder.url.path)
        expectVaultError(where: { $0 == .wrongPassphrase }) {
            try BackupFile.restore(fixture.backup, to: folder.file("journal.vault"), credential: .passphrase(try secret("wrong")))
        }
        #expect(try fileprivateListing(folder.url.path) == before)
    }

    @Test func aRefusedRestoreCreatesNoFolder() throws {
        let fixture = try Fixture(entries: 2)
        let folder = try TemporaryFolder()
        let target = folder.file("new/journal.vault")
        expectVaultError(where: { $0 == .wrongPassphrase }) {
            try BackupFile.restore(fixture.backup, to: target, credential: .passphrase(try secret("wrong")))
        }
        let damaged = try fixture.write(fixture.bytes.dropLast())
        expectVaultError(where: { if case .backupCorrupt = $0 { true } else { false } }) {
            try BackupFile.restore(damaged, to: target, credential: fixture.passphrase)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test
    func aRefusedRestoreCreatesNoNestedFolders() throws {
        let fixture = try Fixture(entries: 2)
        let folder = try TemporaryFolder()
        let target = folder.file("new/sub/journal.vault")
        expectVaultError(where: { $0 == .wrongPassphrase }) {
            try BackupFile.restore(fixture.backup, to: target, credential: .passphrase(try secret("wrong")))
        }
        let damaged = try fixture.write(fixture.bytes.dropLast())
        expectVaultError(where: { if case .backupCorrupt = $0 { true } else { false } }) {
            try BackupFile.restore(damaged, to: target, credential: fixture.passphrase)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func everyHeaderByteFlippedIsRefusedAsDamage() throws {
        let fixture = try Fixture(entries: 2)
        let path = try fixture.write(fixture.bytes, name: "flipped.jvbak")
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? file.close() }
        for offset in 0..<fixture.headerLength {
            let original = fixture.bytes[offset]
            try file.seek(toOffset: UInt64(offset))
            try file.write(contentsOf: [original ^ 0x01])
            let error = #expect(throws: VaultError.self, "header byte \(offset)") {
                try BackupFile.verify(path, credential: fixture.passphrase)
            }
            if let error, case .backupCorrupt = error {} else { Issue.record("header byte \(offset): \(String(describing: error))") }
            try file.seek(toOffset: UInt64(offset))
            try file.write(contentsOf: [original])
        }
        // The loop restored every byte: the file verifies again.
        #expect(try BackupFile.verify(path, credential: fixture.passphrase).counts["entries"] == 3)
    }

    @Test func everyHeaderByteForgedWithARecomputedCheckIsRefused() throws {
        // An attacker can recompute the unkeyed header_check: the keyslots' AEAD, the file key's
        // wrapping and the keyed header_mac must still catch every change. (Recovery key: no
        // Argon2, so this loop stays fast.)
        let fixture = try Fixture(entries: 2)
        let path = try fixture.write(fixture.bytes, name: "forged.jvbak")
        let checkStart = fixture.headerLength - 32
        for offset in 0..<checkStart {
            var bytes = [UInt8](fixture.bytes.prefix(fixture.headerLength))
            bytes[offset] ^= 0x01
            let check = Blake2b.hash(Array("JVLT-backup-check".utf8) + bytes[0..<checkStart])
            bytes.replaceSubrange(checkStart..<fixture.headerLength, with: check)
            let file = try #require(FileHandle(forUpdatingAtPath: path))
            try file.write(contentsOf: bytes)
            try file.close()
            for credential in [fixture.recovery] {
                let error = #expect(throws: VaultError.self, "forged header byte \(offset)") {
                    try BackupFile.verify(path, credential: credential)
                }
                if let error, !fileprivateIsRefusal(error) { Issue.record("forged header byte \(offset): \(error)") }
            }
        }
    }

    @Test func forgedPassphraseSlotParametersAreRefused() throws {
        // Passphrase slot bytes 4…15 (ops, mem) and 16…31 (salt) with a recomputed check: refused
        // (policy, or the slot's AEAD), never opened.
        let fixture = try Fixture(entries: 2)
        let path = try fixture.write(fixture.bytes, name: "forged-kdf.jvbak")
        let checkStart = fixture.headerLength - 32
        for offset in [39 + 4, 39 + 7, 39 + 8, 39 + 11, 39 + 16, 39 + 31, 39 + 60, 39 + 107] {
            var bytes = [UInt8](fixture.bytes.prefix(fixture.headerLength))
            bytes[offset] ^= 0x01
            bytes.replaceSubrange(checkStart..<fixture.headerLength, with: Blake2b.hash(Array("JVLT-backup-check".utf8) + bytes[0..<checkStart]))
            let file = try #require(FileHandle(forUpdatingAtPath: path))
            try file.write(contentsOf: bytes)
            try file.close()
            let error = #expect(throws: VaultError.self, "slot byte \(offset - 39)") { try BackupFile.verify(path, credential: fixture.passphrase) }
            if let error, !fileprivateIsRefusal(error) { Issue.record("slot byte \(offset - 39): \(error)") }
        }
    }

    /// Each damaged body: (what, bytes).
    fileprivate static func damagedBodies(_ fixture: Fixture, other: Data) -> [(String, Data)] {
        let bytes = fixture.bytes
        let h = fixture.headerLength
        let chunk = fixture.sealedChunk
        func flip(_ offset: Int) -> Data { bytes.flipping(offset, mask: 0x40) }
        func chunkData(_ index: Int) -> Data { bytes[fixture.chunkStart(index)..<fixture.chunkStart(index + 1)] }
        var cases: [(String, Data)] = [
            ("first body byte flipped", flip(h)),
            ("byte inside chunk 1 flipped", flip(h + 30_000)),
            ("last byte of chunk 1 (its tag) flipped", flip(h + chunk - 1)),
            ("first byte of chunk 2 flipped", flip(h + chunk)),
            ("byte inside chunk 3 flipped", flip(h + 2 * chunk + 12_345)),
            ("last byte of the file flipped", flip(bytes.count - 1)),
            ("truncated to the header", bytes.prefix(h)),
            ("truncated one byte into the body", bytes.prefix(h + 1)),
            ("truncated inside chunk 1", bytes.prefix(h + 40_000)),
            ("truncated exactly after chunk 1", bytes.prefix(h + chunk)),
            ("truncated exactly after chunk 2", bytes.prefix(h + 2 * chunk)),
            ("truncated exactly after chunk 3", bytes.prefix(h + 3 * chunk)),
            ("truncated by one byte", bytes.dropLast()),
            ("truncated by 16 bytes", bytes.dropLast(16)),
            ("truncated by 17 bytes", bytes.dropLast(17)),
            ("truncated inside the header", bytes.prefix(h - 1)),
            ("one byte appended", bytes + Data([0])),
            ("a full chunk's worth appended", bytes + chunkData(1)),
            ("chunks 1 and 2 swapped", bytes.prefix(h) + chunkData(1) + chunkData(0) + bytes[fixture.chunkStart(2)...]),
            ("chunks 2 and 3 swapped", bytes.prefix(fixture.chunkStart(1)) + chunkData(2) + chunkData(1) + bytes[fixture.chunkStart(3)...]),
            ("chunk 1 duplicated", bytes.prefix(fixture.chunkStart(1)) + chunkData(0) + bytes[fixture.chunkStart(1)...]),
            ("chunk 2 dropped", bytes.prefix(fixture.chunkStart(1)) + bytes[fixture.chunkStart(2)...]),
            ("header of backup A, body of backup B", bytes.prefix(h) + other[h...]),
            ("body of A up to its last chunk, then B's last chunk",
             bytes.prefix(fixture.chunkStart(fixture.fullChunks)) + other[(h + fixture.fullChunks * chunk)...]),
        ]
        // The empty file and a file of only the magic.
        cases.append(("empty file", Data()))
        cases.append(("only the magic", Data("JVLTBAK\0".utf8)))
        return cases
    }

    /// Format 1 too: jv still restores the backups it wrote before format 2.
    @Test(arguments: [2, 1]) func damagedBodiesAreRefusedAndNothingIsRestored(format: Int) throws {
        let fixture = try Fixture(format: format)
        #expect(fixture.fullChunks >= 4, "cuts after chunks 1, 2 and 3 must all be truncations")
        // A second backup of the same vault, for splicing (same keys, different file key).
        let other = try fixture.another()
        let otherPath = try fixture.write(other, name: "other.jvbak")
        #expect(other.count == fixture.bytes.count, "two backups of the same vault have the same size")
        #expect(other != fixture.bytes)

        // An existing vault at a second target: it must stay byte-identical.
        let existingFolder = try TemporaryFolder()
        let existing = existingFolder.file("existing.vault")
        do {
            let (journal, _) = try Vault.create(at: existing, passphrase: secret("other"), kdf: TemporaryVault.kdf)
            try journal.addEntry("I was here first.")
            try journal.vault.close()
        }
        let existingBytes = try Data(contentsOf: URL(fileURLWithPath: existing))
        let existingListing = try fileprivateListing(existingFolder.url.path)

        let targetFolder = try TemporaryFolder()
        let target = targetFolder.file("restored.vault")
        // The recovery key (no Argon2) keeps this loop of 75 attempts fast; the damage is the same.
        let credential = fixture.recovery
        for (what, data) in Self.damagedBodies(fixture, other: other) {
            let path = try fixture.write(data)
            defer { unlink(path) }
            let verifyError = #expect(throws: VaultError.self, "verify: \(what)") { try BackupFile.verify(path, credential: credential) }
            if let verifyError, case .backupCorrupt = verifyError {} else { Issue.record("verify: \(what): \(String(describing: verifyError))") }
            let restoreError = #expect(throws: VaultError.self, "restore: \(what)") { try BackupFile.restore(path, to: target, credential: credential) }
            if let restoreError, case .backupCorrupt = restoreError {} else { Issue.record("restore: \(what): \(String(describing: restoreError))") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: targetFolder.url.path).isEmpty, "restore left files: \(what)")
            #expect(throws: VaultError.self, "restore --force: \(what)") {
                try BackupFile.restore(path, to: existing, credential: credential, replace: true)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == existingBytes, "existing vault changed: \(what)")
            #expect(try fileprivateListing(existingFolder.url.path) == existingListing, "files appeared: \(what)")
        }
        // The undamaged files restore, so the refusals above were about the damage.
        #expect(try BackupFile.verify(fixture.backup, credential: credential).counts["entries"] == 301)
        #expect(try BackupFile.verify(otherPath, credential: credential).counts["entries"] == 301)
    }

    @Test func aSnapshotOfWholeChunksEndsWithAFullLastChunkAndFormat1BackupsOfItStillRestore() throws {
        // FORMAT.md §8.2: in format 2 a snapshot of a whole number of chunks ends with a full last
        // chunk; format 1 ended it with an empty final chunk, and before that (as jv first wrote
        // them) with its last full chunk tagged final — both must still restore. Grow a vault
        // until its snapshot is like that.
        let vault = try TemporaryVault()
        let path = vault.folder.file("aligned.jvbak")
        var bytes = Data()
        var snapshotLength = 1
        let headerLength = 391
        for round in 0..<400 {
            try vault.journal.addEntries(fileprivateEntries(3).map {
                Entry(content: $0.content + " r\(round)", created: $0.created, modifiedAt: $0.modifiedAt)
            })
            try vault.journal.backup(to: path, replace: true)
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let body = bytes.count - headerLength
            snapshotLength = body - 16 * ((body + 65_551) / 65_552)
            if snapshotLength % BackupFile.chunkLength == 0 { break }
        }
        try #require(snapshotLength % BackupFile.chunkLength == 0, "no snapshot of whole chunks found")
        let fullChunks = snapshotLength / BackupFile.chunkLength
        #expect(bytes.count - headerLength == fullChunks * 65_552, "full chunks, the last one too")
        let credential = VaultCredential.recoveryKey(vault.recoveryKey)
        let entries = try BackupFile.verify(path, credential: credential).counts["entries"] ?? 0
        #expect(entries > 0)

        let format1Header = headerLength + 24
        let emptyFinal = try fileprivateAsFormat1(path, keys: vault.journal.keys)
        #expect(emptyFinal.count - format1Header == fullChunks * 65_553 + 17, "full chunks, then an empty final one")
        let fullFinal = try fileprivateAsFormat1(path, keys: vault.journal.keys) { snapshot in
            stride(from: 0, to: snapshot.count, by: BackupFile.chunkLength).map { start in
                (snapshot[start..<start + BackupFile.chunkLength], start + BackupFile.chunkLength == snapshot.count)
            }
        }
        #expect(fullFinal.count - format1Header == fullChunks * 65_553)
        for (form, backup) in [("format 1, empty final chunk", emptyFinal), ("format 1, full final chunk", fullFinal)] {
            let old = vault.folder.file("old.jvbak")
            try backup.write(to: URL(fileURLWithPath: old))
            #expect(try BackupFile.verify(old, credential: credential).counts["entries"] == entries, "\(form)")
            let target = vault.folder.file("restored-\(UUID().uuidString).vault")
            #expect(try BackupFile.restore(old, to: target, credential: credential).counts["entries"] == entries, "\(form)")
        }

        // Nothing may follow the last chunk, whichever form it has: when it is full, it ends
        // exactly where the reader's next read starts, and only the rule about the end catches
        // what follows.
        for (form, backup, lastChunk) in [("format 2", bytes, bytes.suffix(65_552)),
                                          ("format 1, empty final chunk", emptyFinal, emptyFinal.suffix(17)),
                                          ("format 1, full final chunk", fullFinal, fullFinal.suffix(65_553))] {
            for (what, data) in [("one byte appended", backup + Data([0])), ("17 bytes appended", backup + Data(repeating: 0, count: 17)),
                                 ("the final chunk repeated", backup + lastChunk)] {
                let damaged = vault.folder.file("damaged.jvbak")
                try data.write(to: URL(fileURLWithPath: damaged))
                let error = #expect(throws: VaultError.self, "\(form): \(what)") { try BackupFile.verify(damaged, credential: credential) }
                if let error, case .backupCorrupt = error {} else { Issue.record("\(form): \(what): \(String(describing: error))") }
            }
        }
    }

    @Test func aBackupOfAnotherVaultDoesNotOpenWithThisOnesPassphraseOrSplice() throws {
        let first = try Fixture(entries: 3)
        let second = try Fixture(entries: 3)
        // Same passphrase, different vaults: header of one, body of the other.
        let spliced = first.bytes.prefix(first.headerLength) + second.bytes[second.headerLength...]
        let path = try first.write(spliced)
        expectVaultError(where: { if case .backupCorrupt = $0 { true } else { false } }) {
            try BackupFile.verify(path, credential: first.passphrase)
        }
    }

    // MARK: Replacing an existing vault

    @Test func restoreNeverReplacesWithoutReplaceAndReplacesAtomicallyWith() throws {
        let fixture = try Fixture(entries: 5)
        let folder = try TemporaryFolder()
        let target = folder.file("journal.vault")
        do {
            let (journal, _) = try Vault.create(at: target, passphrase: secret("other passphrase"), kdf: TemporaryVault.kdf)
            try journal.addEntry("The vault that was there.")
            try journal.vault.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        expectVaultError(where: { if case .vaultExists = $0 { true } else { false } }) {
            try BackupFile.restore(fixture.backup, to: target, credential: fixture.passphrase)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(names.allSatisfy { $0.hasPrefix("journal.vault") }, "\(names)")

        _ = try BackupFile.restore(fixture.backup, to: target, credential: fixture.passphrase, replace: true)
        let restored = try Vault.open(at: target)
        expectVaultError(where: { $0 == .wrongPassphrase }) { try restored.unlock(passphrase: secret("other passphrase")) }
        let journal = try restored.unlock(passphrase: secret(TemporaryVault.passphrase))
        #expect(try fileprivateExport(journal) == (try fileprivateExport(fixture.vault.journal)))
        #expect(try journal.check().isClean)
    }

    // MARK: The snapshot (FORMAT.md §8)

    /// Through a symbolic link too: SQLite keeps the log beside the file the link points to.
    @Test(arguments: [false, true]) func aBackupHoldsWhatTheLogCouldNotFoldIntoTheFile(throughALink: Bool) throws {
        // Another process's open read transaction keeps SQLite from folding a later commit into
        // the vault file: the file alone is not the vault, and a backup copied from it would
        // lose the entry that is only in the log.
        let vault = try TemporaryVault()
        let elsewhere = try TemporaryFolder()
        let link = elsewhere.file("journal.vault")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: vault.path)
        let journal = throughALink ? try Vault.open(at: link).unlock(recoveryKey: vault.recoveryKey) : vault.journal
        try journal.addEntry("Before the reader began.")
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: vault.path, configuration: holding)
        try reader.inDatabase { db in try db.execute(sql: "BEGIN; SELECT count(*) FROM entry") }
        try journal.addEntry("After the reader began: only in the log.")
        let backup = vault.folder.file("journal.jvbak")
        try journal.backup(to: backup)
        var log = stat()
        #expect(stat(vault.path + "-wal", &log) == 0 && log.st_size > 0, "the log was not folded in while the reader held it")
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }
        try reader.close()

        let target = vault.folder.file("restored.vault")
        #expect(try BackupFile.restore(backup, to: target, credential: .recoveryKey(vault.recoveryKey)).counts["entries"] == 2)
        let restored = try Vault.open(at: target).unlock(recoveryKey: vault.recoveryKey)
        #expect(try fileprivateExport(restored) == (try fileprivateExport(journal)))
        // The copy it was made through is gone with it.
        let names = try FileManager.default.contentsOfDirectory(atPath: vault.folder.url.path)
            + FileManager.default.contentsOfDirectory(atPath: elsewhere.url.path)
        #expect(names.filter { $0.hasPrefix(".") }.isEmpty, "\(names)")
    }

    @Test func backupsWhileAnotherConnectionWritesAreEachOneMomentOfTheVault() throws {
        let vault = try TemporaryVault()
        try vault.journal.addEntries(fileprivateEntries(300))
        let writer = try Vault.open(at: vault.path).unlock(masterKey: vault.journal.keys.masterKey)
        let written = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { written.signal() }
            for index in 0..<200 { _ = try? writer.addEntry("Written while backups are made, \(index).") }
        }
        var counts: [Int] = []
        for round in 0..<6 {
            let backup = vault.folder.file("round-\(round).jvbak")
            try vault.journal.backup(to: backup)
            // Verification restores a scratch copy and runs the whole check, the manifest included.
            counts.append(try BackupFile.verify(backup, credential: .recoveryKey(vault.recoveryKey)).counts["entries"] ?? 0)
        }
        written.wait()
        #expect(counts == counts.sorted() && counts.allSatisfy { (300...500).contains($0) }, "\(counts)")
        #expect(try writer.entries().count == 500)
    }

    @Test func replacingAnOpenVaultDoesNotReplayItsOldLog() throws {
        // The target is in use (its -wal holds committed pages): the restored file must not pick
        // them up.
        let fixture = try Fixture(entries: 4)
        let other = try TemporaryVault()
        try other.journal.addEntry("Only in the old vault's log.")
        #expect(FileManager.default.fileExists(atPath: other.path + "-wal"))
        _ = try BackupFile.restore(fixture.backup, to: other.path, credential: fixture.passphrase, replace: true)
        let journal = try Vault.open(at: other.path).unlock(passphrase: secret(TemporaryVault.passphrase))
        #expect(try journal.entries().count == 5)
        #expect(try journal.check().isClean)
        #expect(try fileprivateExport(journal) == (try fileprivateExport(fixture.vault.journal)))
    }

    /// A vault kept elsewhere and reached through a link (a synced folder, another disk): the
    /// restore replaces the file the link names — the link itself was replaced by a new file,
    /// leaving the vault it named as it was — and takes away the log beside that file.
    @Test func aRestoreThroughALinkRestoresTheVaultItNamesAndKeepsTheLink() throws {
        let fixture = try Fixture(entries: 4)
        let other = try TemporaryVault()
        try other.journal.addEntry("Only in the old vault's log.")
        #expect(FileManager.default.fileExists(atPath: other.path + "-wal"))
        let links = try TemporaryFolder()
        let link = links.file("journal.vault")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: other.path)
        _ = try BackupFile.restore(fixture.backup, to: link, credential: fixture.passphrase, replace: true)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == other.path, "the link is still a link to the vault")
        let journal = try Vault.open(at: other.path).unlock(passphrase: secret(TemporaryVault.passphrase))
        #expect(try journal.entries().count == 5)
        #expect(try journal.check().isClean)
        #expect(try FileManager.default.contentsOfDirectory(atPath: links.path) == ["journal.vault"], "nothing written beside the link")
    }

    /// Verification runs the whole check, the row-set manifest included: a backup of a vault a
    /// record was deleted from behind jv's back does not restore, and says why in one sentence.
    @Test func aBackupOfAVaultMissingARecordIsRefused() throws {
        let vault = try TemporaryVault()
        try vault.journal.addEntry("Kept.")
        let deleted = try vault.journal.addEntry("Deleted behind jv's back.")
        try vault.execute("DELETE FROM entry WHERE id = ?", [deleted.id.storageText])
        let backup = vault.folder.file("damaged.jvbak")
        try vault.journal.backup(to: backup)
        let error = expectVaultError(where: { if case .backupCorrupt = $0 { true } else { false } }) {
            try BackupFile.verify(backup, credential: .passphrase(secret(TemporaryVault.passphrase)))
        }
        let message = error?.description ?? ""
        #expect(message.contains("missing"), "\(message)")
        #expect(message.filter { $0 == "(" }.count == message.filter { $0 == ")" }.count, "\(message)")
    }

    @Test func aMissingBackupIsNotFound() throws {
        let folder = try TemporaryFolder()
        let error = expectVaultError(where: { if case .backupNotFound = $0 { true } else { false } }) {
            try BackupFile.verify(folder.file("nothing.jvbak"), credential: .passphrase(try secret("x")))
        }
        #expect(error?.description.hasPrefix("No backup file at ") == true)
    }
}

// MARK: - Helpers (file-private)

/// The format-2 backup at `path` (of the vault whose keys are `keys`) as a backup of format 1
/// (FORMAT.md §8.2), the snapshot cut into the chunks `cut` gives, each with whether it is tagged
/// final, and sealed under the same file key: for backups jv no longer writes. By default, as
/// format 1's writer cut it: whole chunks, then a final one of 0 to 65,535 bytes.
fileprivate func fileprivateAsFormat1(_ path: String, keys: VaultKeys,
                                      cut: ([UInt8]) -> [(chunk: ArraySlice<UInt8>, final: Bool)] = fileprivateFormat1Chunks) throws -> Data {
    guard let input = FileHandle(forReadingAtPath: path) else { throw VaultError.backupNotFound(path: path) }
    defer { try? input.close() }
    var header = try BackupHeader.read(from: input)
    let fileKey = try header.openFileKey(masterKey: keys.masterKey)
    let reader = IndexedChunkStream.Reader(key: try header.bodyKey(fileKey: fileKey), associatedData: header.mac, from: input)
    var snapshot: [UInt8] = []
    while let chunk = try reader.next() { snapshot += chunk }
    header.format = 1
    let (writer, streamHeader) = try SecretStream.Writer.start(key: try header.bodyKey(fileKey: fileKey))
    try header.seal(fileKey: fileKey, masterKey: keys.masterKey, streamHeader: streamHeader)
    var output = Data(header.encoded)
    for (chunk, final) in cut(snapshot) {
        output += try writer.push(Array(chunk), associatedData: header.mac, final: final)
    }
    return output
}

fileprivate func fileprivateFormat1Chunks(_ snapshot: [UInt8]) -> [(chunk: ArraySlice<UInt8>, final: Bool)] {
    let full = snapshot.count / BackupFile.chunkLength * BackupFile.chunkLength
    return stride(from: 0, to: full, by: BackupFile.chunkLength).map { (snapshot[$0..<$0 + BackupFile.chunkLength], false) }
        + [(snapshot[full...], true)]
}

/// `count` entries of about 1 KiB each, with tags and stars, on days spread over a year.
fileprivate func fileprivateEntries(_ count: Int) -> [Entry] {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return seed >> 33
    }
    let words = ["harbour", "walked", "rain", "coffee", "letter", "garden", "quiet", "train", "river", "friend", "bread", "light"]
    return (0..<count).map { index in
        var text = "Entry number \(index). "
        while text.utf8.count < 900 { text += words[Int(next() % UInt64(words.count))] + (next() % 7 == 0 ? ". " : " ") }
        text += " #tag\(index % 5)"
        let created = Instant(millis: jan5UTCMillis + Int64(index) * 86_400_000 / 3, utcOffsetSeconds: [0, 3600, -18000, 32400][index % 4])
        return Entry(content: text, created: created, modifiedAt: created.millis, starred: index % 7 == 0,
                     explicitTags: index % 3 == 0 ? ["explicit"] : [])
    }
}

/// A chat thread with two messages, an analysis with two nodes and a relation.
fileprivate func fileprivatePopulateOtherKinds(_ journal: UnlockedVault) throws {
    let entry = try journal.addEntry("Walked to the harbour with @Anna.", at: moment(hoursAfterJan5UTC: 10, offsetHours: 1))
    _ = try journal.addMessage(ChatMessageDraft(role: .user, content: "How was the walk?", model: "local"))
    _ = try journal.addMessage(ChatMessageDraft(role: .assistant, content: "Calm.", entryID: entry.id))
    _ = try journal.addAnalysis(
        Analysis(entryID: entry.id, model: "m", processedAt: moment(hoursAfterJan5UTC: 11, offsetHours: 1), sentiment: "calm",
                 themes: ["sea"], entities: .object([("people", .strings(["Anna"]))])),
        nodes: [NodeReference(type: "person", name: "Anna"), NodeReference(type: "place", name: "Harbour")],
        relations: [RelationDraft(from: NodeReference(type: "person", name: "Anna"), to: NodeReference(type: "place", name: "Harbour"),
                                  type: "walked to", strength: 0.5)])
}

/// The whole vault as the jv-export document, with a fixed `exported_at`.
fileprivate func fileprivateExport(_ journal: UnlockedVault) throws -> String {
    try journal.snapshot().jvExport(exportedAt: Instant(millis: 0, utcOffsetSeconds: 0)).serialized(pretty: true)
}

/// Every file under `folder` (recursively) with its size and modification time.
fileprivate func fileprivateListing(_ folder: String) throws -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
    var result: [String] = []
    while let name = enumerator.nextObject() as? String {
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        result.append("\(name) \(size) \(modified)")
    }
    return result.sorted()
}

/// The errors that mean "refused": damage, or a key that does not open it.
fileprivate func fileprivateIsRefusal(_ error: VaultError) -> Bool {
    switch error {
    case .backupCorrupt, .wrongPassphrase, .wrongRecoveryKey, .corruptKeyslot, .kdfParametersRefused: true
    default: false
    }
}
