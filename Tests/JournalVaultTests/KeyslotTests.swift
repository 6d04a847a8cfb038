// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// Unlocking with passphrases and recovery keys, changing them (SECURITY.md).
@Suite struct UnlockTests {
    @Test func rightPassphraseUnlocksAndReadsRecords() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Written before locking.")
        let again = try vault.unlock()
        #expect(try again.entry(id: entry.id) == entry)
    }

    @Test func wrongEmptyOrNearMissPassphraseIsRefused() throws {
        let vault = try TemporaryVault()
        for passphrase in [
            "",
            "wrong",
            "correct horse battery stapl",
            "correct horse battery staple ",
            " correct horse battery staple",
            "Correct horse battery staple",
            "correct horse battery stable",
            "correct horse battery staple\n",
        ] {
            #expect(throws: VaultError.wrongPassphrase, "\(passphrase.debugDescription)") { try vault.unlock(passphrase) }
        }
        _ = try vault.unlock()
    }

    @Test func composedAndDecomposedFormsOfAPassphraseBothUnlock() throws {
        let nfc = "caf\u{e9} au lait"
        let nfd = "cafe\u{301} au lait"
        #expect(Array(nfc.utf8) != Array(nfd.utf8))
        let createdNFC = try TemporaryVault(passphrase: nfc)
        _ = try createdNFC.unlock(nfc)
        _ = try createdNFC.unlock(nfd)
        let createdNFD = try TemporaryVault(passphrase: nfd)
        _ = try createdNFD.unlock(nfc)
        _ = try createdNFD.unlock(nfd)
        #expect(throws: VaultError.wrongPassphrase) { try createdNFD.unlock("cafe au lait") }
    }

    @Test func passphraseKeyIsArgon2idOfTheNFCBytes() throws {
        // The slot opens with a KEK derived from the NFC bytes even when the vault was created
        // with the NFD spelling: the normal form is what FORMAT.md promises other readers.
        let vault = try TemporaryVault(passphrase: "cafe\u{301}")
        let slot = try #require(Keyslot(encoded: try vault.keyslotData(slot: 0)))
        let master = try slot.unwrap(passphrase: secret("caf\u{e9}"), vaultID: try vault.vault.info().vaultID)
        #expect(master.count == 32)
    }

    @Test func recoveryKeyFromCreateUnlocks() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Readable with the recovery key.")
        let recovered = try vault.vault.unlock(recoveryKey: vault.recoveryKey)
        #expect(try recovered.entry(id: entry.id).content == "Readable with the recovery key.")
        // Through its text form too, as a person would type it.
        let typed = try RecoveryKey(text: vault.recoveryKey.text)
        _ = try vault.vault.unlock(recoveryKey: typed)
    }

    @Test func anotherVaultsRecoveryKeyIsRefused() throws {
        let vault = try TemporaryVault()
        let other = try TemporaryVault()
        #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: other.recoveryKey) }
        #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: RecoveryKey.generate()) }
    }

    @Test func recoveryKeyTextIsNotAPassphrase() throws {
        let vault = try TemporaryVault()
        // The recovery key's text is not a passphrase.
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock(vault.recoveryKey.text) }
    }

    @Test func changePassphraseKeepsRecordsAndRetiresTheOldOne() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Survives a passphrase change. #kept", tags: ["explicit"])
        let contentBefore: Data = try vault.entryColumn("content", of: entry.id)
        try vault.journal.changePassphrase(to: secret("a brand new passphrase"))
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock() }
        let reopened = try Vault.open(at: vault.path).unlock(passphrase: secret("a brand new passphrase"))
        #expect(try reopened.entry(id: entry.id) == entry)
        // Re-wrap only: the record's ciphertext is untouched.
        #expect(try vault.entryColumn("content", of: entry.id) == contentBefore)
        // The recovery key still opens the same master key.
        #expect(try vault.vault.unlock(recoveryKey: vault.recoveryKey).entry(id: entry.id) == entry)
        // KDF costs are kept when none are given.
        #expect(try vault.vault.info().kdf == TemporaryVault.kdf)
    }

    @Test func changePassphraseRefusesEmptyAndOutOfPolicyCosts() throws {
        let vault = try TemporaryVault()
        #expect(throws: VaultError.emptyPassphrase) { try vault.journal.changePassphrase(to: secret("")) }
        expectVaultError(where: \.isKDFParametersRefused) {
            try vault.journal.changePassphrase(to: secret("new one"), kdf: KDFParameters(operations: 1, memoryBytes: 64 << 20))
        }
        // Nothing changed.
        _ = try vault.unlock()
    }

    @Test func changePassphraseCanRaiseTheCost() throws {
        let vault = try TemporaryVault()
        let raised = KDFParameters(operations: 3, memoryBytes: 64 << 20)
        try vault.journal.changePassphrase(to: secret("another"), kdf: raised)
        #expect(try vault.vault.info().kdf == raised)
        _ = try vault.unlock("another")
    }

    @Test func replaceRecoveryKeyRetiresTheOldKey() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Recovery rotation.")
        let newKey = try vault.journal.replaceRecoveryKey()
        #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: vault.recoveryKey) }
        #expect(try vault.vault.unlock(recoveryKey: newKey).entry(id: entry.id) == entry)
        #expect(newKey.text != vault.recoveryKey.text)
        _ = try vault.unlock()
    }

    /// The hand-over of a new recovery key: added (old and new open), then the old retired.
    /// Interrupted hand-overs keep at most three keys; a fourth needs one of them to unlock, and
    /// keeps that one. A rekey that keeps a recovery key finds the slot it opens.
    @Test func recoveryKeyHandOverKeepsAKeyThePersonHolds() throws {
        let vault = try TemporaryVault()
        let first = try vault.journal.addRecoveryKey()
        #expect(try vault.vault.unlock(recoveryKey: vault.recoveryKey).keys.keyVersion == 1)
        #expect(try vault.vault.unlock(recoveryKey: first.key).keys.keyVersion == 1)
        let second = try vault.journal.addRecoveryKey()
        #expect(throws: VaultError.tooManyRecoveryKeys) { try vault.journal.addRecoveryKey() }
        let heldSecond = try vault.vault.unlock(recoveryKey: second.key)
        let third = try heldSecond.addRecoveryKey()
        for key in [vault.recoveryKey, first.key] {
            #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: key) }
        }
        _ = try vault.vault.unlock(recoveryKey: second.key)
        try vault.journal.retireRecoveryKeys(keeping: third)
        #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: second.key) }
        // Two keys again (an interrupted hand-over); a rekey keeping the newer one keeps only it.
        let fourth = try vault.journal.addRecoveryKey()
        let (rekeyed, _) = try vault.unlock().rekey(keepingRecoveryKey: fourth.key)
        #expect(try vault.vault.unlock(recoveryKey: fourth.key).keys.keyVersion == 2)
        #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: third.key) }
        #expect(try rekeyed.check().isClean)
    }

    @Test func createRefusesEmptyPassphraseAndOutOfPolicyCostsWithoutWritingAFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("journal.vault")
        #expect(throws: VaultError.emptyPassphrase) { try Vault.create(at: path, passphrase: secret(""), kdf: TemporaryVault.kdf) }
        expectVaultError(where: \.isKDFParametersRefused) {
            try Vault.create(at: path, passphrase: secret("x"), kdf: KDFParameters(operations: 2, memoryBytes: 8 << 10))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func unlockingNeedsNoWriteAndChangesNothing() throws {
        let vault = try TemporaryVault()
        let before = try vault.keyslotData(slot: 0)
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock("nope") }
        _ = try vault.unlock()
        #expect(try vault.keyslotData(slot: 0) == before)
    }
}

/// The recovery key's text form (FORMAT.md §Recovery key).
@Suite struct RecoveryKeyTextTests {
    /// secret = 00…1f; expected text from Python: base32(key ‖ BLAKE2b-256("JVLT-recovery-check" ‖ key)[0..<3]).
    static let fixedText = "JVR1-aaaq-eaye-auda-ocaj-bifq-ydio-b4ib-ceqt-cqkr-mfyy-denb-wha5-dypv-n5sr"

    static func fixedKey() throws -> RecoveryKey {
        RecoveryKey(secret: try SecureBytes(copying: Array(UInt8(0)...UInt8(31))))
    }

    @Test func textOfAKnownKeyMatchesAnIndependentEncoding() throws {
        #expect(try Self.fixedKey().text == Self.fixedText)
    }

    @Test func generatedTextHasFourteenGroupsAfterThePrefix() throws {
        let text = try RecoveryKey.generate().text
        let groups = text.split(separator: "-")
        #expect(groups.first == "JVR1")
        #expect(groups.count == 15)
        #expect(groups.dropFirst().allSatisfy { $0.count == 4 })
    }

    @Test(arguments: [
        fixedText,
        fixedText.uppercased(),
        fixedText.lowercased(),
        fixedText.replacingOccurrences(of: "-", with: ""),
        fixedText.replacingOccurrences(of: "-", with: " "),
        "  " + fixedText + "\n",
        fixedText.replacingOccurrences(of: "-", with: "\n"),
        "jvr1" + fixedText.dropFirst(4).replacingOccurrences(of: "-", with: "--"),
    ])
    func parsingToleratesCaseSpacesAndDashes(text: String) throws {
        let parsed = try RecoveryKey(text: text)
        #expect(parsed.secret.constantTimeEquals(try Self.fixedKey().secret))
    }

    @Test func roundTripOfGeneratedKeys() throws {
        for _ in 0..<20 {
            let key = try RecoveryKey.generate()
            #expect(try RecoveryKey(text: key.text).secret.constantTimeEquals(key.secret))
        }
    }

    @Test func everySingleCharacterTypoIsDetected() throws {
        // Deterministic: a fixed key, each of the 56 symbols replaced by the next letter of the
        // alphabet. The 24-bit check catches every one.
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let symbols = Array(Self.fixedText.dropFirst(5).filter { $0 != "-" })
        #expect(symbols.count == 56)
        for index in symbols.indices {
            var typo = symbols
            let position = alphabet.firstIndex(of: typo[index])!
            typo[index] = alphabet[(position + 1) % alphabet.count]
            #expect(throws: VaultError.malformedRecoveryKey, "symbol \(index)") {
                try RecoveryKey(text: "JVR1-" + String(typo))
            }
        }
    }

    @Test(arguments: [
        "",
        "JVR1-",
        String(fixedText.dropFirst(5)),                       // no prefix
        "JVR2-" + fixedText.dropFirst(5),                     // other prefix
        String(fixedText.dropLast()),                         // a symbol missing
        fixedText + "a",                                      // a symbol extra
        fixedText.replacingOccurrences(of: "aaaq", with: "aaa1"),  // not base32
        fixedText.replacingOccurrences(of: "aaaq", with: "aaa0"),
        fixedText.replacingOccurrences(of: "aaaq", with: "aaa8"),
        fixedText.replacingOccurrences(of: "-", with: "_"),
    ])
    func malformedTextIsRefused(text: String) {
        #expect(throws: VaultError.malformedRecoveryKey) { try RecoveryKey(text: text) }
    }
}

/// Editing keyslots behind the vault's back (SECURITY.md, FORMAT.md §3: flips and KDF downgrades).
@Suite struct KeyslotTamperTests {
    // Byte offsets in the 108-byte slot: format 0, slot 1, kind 2, kdf 3, ops 4..<8,
    // mem 8..<16, salt 16..<32, key version 32..<36, nonce 36..<60, wrapped 60..<108.

    @Test func storedSlotsHaveTheDocumentedLayout() throws {
        let vault = try TemporaryVault()
        let passphrase = try vault.keyslotData(slot: 0)
        #expect(passphrase.count == 108)
        // Format 2: the vault keeps a row-set manifest (FORMAT.md §3).
        #expect(Array(passphrase.prefix(16)) == [2, 0, 1, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0x04, 0, 0, 0])
        #expect(Array(passphrase[32..<36]) == [0, 0, 0, 1])
        let recovery = try vault.keyslotData(slot: 1)
        #expect(recovery.count == 108)
        #expect(Array(recovery.prefix(16)) == [2, 1, 2, 2] + [UInt8](repeating: 0, count: 12))
        // Fresh random salt and nonce per slot.
        #expect(passphrase[16..<32] != recovery[16..<32])
        #expect(passphrase[36..<60] != recovery[36..<60])
    }

    /// About a hundred Argon2 runs: the full run only. The quick run keeps every bit of the
    /// recovery slot flipped (no Argon2) and the passphrase slot's cost edits below.
    @Test(.tags(.slow), .notInQuickRun)
    func flippingAnyByteOfThePassphraseSlotNeverUnlocks() throws {
        // One bit (the lowest) per byte keeps this at about a hundred Argon2 runs: every in-policy
        // edit of ops/mem stays at or near 64 MiB (bit 0 of mem's high bytes leaves the policy).
        let vault = try TemporaryVault()
        let original = try vault.keyslotData(slot: 0)
        for offset in 0..<original.count {
            try vault.setKeyslotData(slot: 0, to: original.flipping(offset))
            expectVaultError("offset \(offset)", where: { _ in true }) { try vault.unlock() }
        }
        try vault.setKeyslotData(slot: 0, to: original)
        _ = try vault.unlock()
    }

    @Test func flippingAnyByteOfTheRecoverySlotNeverUnlocks() throws {
        let vault = try TemporaryVault()
        let original = try vault.keyslotData(slot: 1)
        for offset in 0..<original.count {
            try vault.setKeyslotData(slot: 1, to: original.flipping(offset))
            expectVaultError("offset \(offset)", where: { _ in true }) {
                try vault.vault.unlock(recoveryKey: vault.recoveryKey)
            }
        }
        try vault.setKeyslotData(slot: 1, to: original)
        _ = try vault.vault.unlock(recoveryKey: vault.recoveryKey)
    }

    @Test func flippingAnyBitOfTheRecoverySlotNeverUnwraps() throws {
        // Every bit of every byte, on the slot as parsed from its stored bytes (no Argon2 here,
        // and no write per flip).
        let vault = try TemporaryVault()
        let vaultID = try vault.vault.info().vaultID
        let original = try vault.keyslotData(slot: 1)
        let intact = try #require(Keyslot(encoded: original))
        #expect(try intact.unwrap(recoveryKey: vault.recoveryKey, vaultID: vaultID).constantTimeEquals(vault.journal.keys.masterKey))
        for offset in 0..<original.count {
            for bit in 0..<8 {
                guard let slot = Keyslot(encoded: original.flipping(offset, mask: 1 << bit)) else { continue }  // refused as malformed
                #expect(throws: VaultError.self, "offset \(offset) bit \(bit)") {
                    try slot.unwrap(recoveryKey: vault.recoveryKey, vaultID: vaultID)
                }
            }
        }
    }

    /// The policy is checked before Argon2: these come back as refusals, not as a wrong
    /// passphrase (and a 1 TiB request never allocates).
    @Test func outOfPolicyStoredCostsAreRefusedBeforeArgon2() throws {
        let vault = try TemporaryVault()
        let original = try vault.keyslotData(slot: 0)
        for (label, costs) in [
            ("ops 1", KDFParameters(operations: 1, memoryBytes: 64 << 20)),
            ("ops 0", KDFParameters(operations: 0, memoryBytes: 64 << 20)),
            ("ops 17", KDFParameters(operations: 17, memoryBytes: 64 << 20)),
            ("mem 8 KiB", KDFParameters(operations: 2, memoryBytes: 8 << 10)),
            ("mem 1 TiB", KDFParameters(operations: 2, memoryBytes: 1 << 40)),
            ("mem 64 MiB + 1", KDFParameters(operations: 2, memoryBytes: (64 << 20) + 1)),
        ] {
            var slot = try #require(Keyslot(encoded: original))
            slot.kdf = costs
            try vault.setKeyslotData(slot: 0, to: slot.encoded)
            expectVaultError(Comment(rawValue: label), where: \.isKDFParametersRefused) { try vault.unlock() }
            // With a wrong passphrase alike: the refusal comes first.
            expectVaultError(Comment(rawValue: label), where: \.isKDFParametersRefused) { try vault.unlock("wrong") }
        }
    }

    @Test func inPolicyCostEditsFailAuthentication() throws {
        // ops 2 → 3 and mem + 1 KiB are within the policy: Argon2 runs, and the parameters in the
        // associated data make the unwrap fail.
        let vault = try TemporaryVault()
        let original = try #require(Keyslot(encoded: try vault.keyslotData(slot: 0)))
        var moreOps = original
        moreOps.kdf.operations = 3
        try vault.setKeyslotData(slot: 0, to: moreOps.encoded)
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock() }
        var moreMemory = original
        moreMemory.kdf.memoryBytes += 1024
        try vault.setKeyslotData(slot: 0, to: moreMemory.encoded)
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock() }
        var otherVersion = original
        otherVersion.keyVersion = 2
        try vault.setKeyslotData(slot: 0, to: otherVersion.encoded)
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock() }
    }

    @Test func slotCopiedFromAnotherVaultDoesNotUnlock() throws {
        // Both vaults have the same passphrase; the slot is bound to its vault's id.
        let vault = try TemporaryVault()
        let other = try TemporaryVault()
        try vault.setKeyslotData(slot: 0, to: try other.keyslotData(slot: 0))
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock() }
        try vault.setKeyslotData(slot: 1, to: try other.keyslotData(slot: 1))
        #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: other.recoveryKey) }
    }

    /// A changed vault id makes every slot fail to authenticate. With no record to prove a key
    /// by, that reads as a wrong credential; with one, the right credential's key opens it, and
    /// the key data is reported damaged — while a wrong one is still just wrong.
    @Test func editedVaultIDInTheHeaderMakesSlotsFail() throws {
        let empty = try TemporaryVault()
        try empty.execute("UPDATE vault_header SET vault_id = ?", [Data(UUID().bytes)])
        #expect(throws: VaultError.wrongPassphrase) { try empty.unlock() }
        #expect(throws: VaultError.wrongRecoveryKey) { try empty.vault.unlock(recoveryKey: empty.recoveryKey) }

        let vault = try TemporaryVault()
        try vault.journal.addEntry("Proof that the key is right.")
        try vault.execute("UPDATE vault_header SET vault_id = ?", [Data(UUID().bytes)])
        expectVaultError(where: \.isKeyDataDamaged) { try vault.unlock() }
        expectVaultError(where: \.isKeyDataDamaged) { try vault.vault.unlock(recoveryKey: vault.recoveryKey) }
        #expect(throws: VaultError.wrongPassphrase) { try vault.unlock("not the passphrase") }
        #expect(throws: VaultError.wrongRecoveryKey) { try vault.vault.unlock(recoveryKey: RecoveryKey.generate()) }
    }

    /// The slot's own parameters are in its associated data too: a changed key version byte
    /// (the right passphrase still derives the right KEK) is damage, not a wrong passphrase.
    @Test func editedSlotParameterWithTheRightPassphraseIsDamage() throws {
        let vault = try TemporaryVault()
        try vault.journal.addEntry("Proof that the key is right.")
        let original = try vault.keyslotData(slot: 0)
        try vault.setKeyslotData(slot: 0, to: original.flipping(35))
        expectVaultError(where: \.isKeyDataDamaged) { try vault.unlock() }
    }

    @Test func headerKeyVersionThatDisagreesWithTheSlotIsReported() throws {
        let vault = try TemporaryVault()
        try vault.execute("UPDATE vault_header SET key_version = 2")
        expectVaultError(where: { _ in true }) { try vault.unlock() }
        expectVaultError(where: { _ in true }) { try vault.vault.unlock(recoveryKey: vault.recoveryKey) }
    }

    @Test func slotKindOrNumberEditedInItsRowIsReported() throws {
        let vault = try TemporaryVault()
        try vault.execute("UPDATE keyslot SET kind = 'recovery' WHERE slot = 0")
        expectVaultError(where: \.isCorruptKeyslot) { try vault.unlock() }
        try vault.execute("UPDATE keyslot SET kind = 'passphrase' WHERE slot = 0")
        _ = try vault.unlock()
        // Passphrase slot moved to number 5: its bytes say slot 0.
        try vault.execute("UPDATE keyslot SET slot = 5 WHERE slot = 0")
        expectVaultError(where: \.isCorruptKeyslot) { try vault.unlock() }
    }

    /// A recovery slot's `ops` and `mem` take no part in its key, so only the AD would notice an
    /// edit; a reader refuses the slot before that, as FORMAT.md §3 says.
    @Test func recoverySlotWithCostParametersIsReported() throws {
        let vault = try TemporaryVault()
        let original = try vault.keyslotData(slot: 1)
        for (label, offset) in [("ops", 7), ("mem", 15)] {
            try vault.setKeyslotData(slot: 1, to: original.flipping(offset))
            expectVaultError(Comment(rawValue: label), where: \.isCorruptKeyslot) { try vault.vault.unlock(recoveryKey: vault.recoveryKey) }
        }
        try vault.setKeyslotData(slot: 1, to: original)
        _ = try vault.vault.unlock(recoveryKey: vault.recoveryKey)
    }

    @Test func slotOfTheWrongLengthIsReported() throws {
        let vault = try TemporaryVault()
        let original = try vault.keyslotData(slot: 0)
        for length in [0, 1, 107, 109] {
            let resized = length <= original.count ? original.prefix(length) : original + Data(count: length - original.count)
            try vault.setKeyslotData(slot: 0, to: Data(resized))
            expectVaultError("length \(length)", where: \.isCorruptKeyslot) { try vault.unlock() }
        }
    }

    @Test func missingPassphraseSlotIsReportedNotCrashed() throws {
        let vault = try TemporaryVault()
        try vault.execute("DELETE FROM keyslot WHERE slot = 0")
        expectVaultError(where: \.isKeyDataDamaged) { try vault.unlock() }
        expectVaultError(where: \.isNotAVault) { try vault.vault.info() }
        // The recovery slot still opens it.
        _ = try vault.vault.unlock(recoveryKey: vault.recoveryKey)
    }
}
