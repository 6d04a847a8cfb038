// SPDX-License-Identifier: Apache-2.0
import CSodium
import Foundation
import GRDB
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// FORMAT.md's test vectors, computed by `Tests/interop/format_vectors.py` from the document
/// alone with PyNaCl and hashlib. jv must read what an independent implementation wrote, and
/// produce the same deterministic bytes.
@Suite struct FormatVectorTests {
    static let vaultID = UUID(uuidString: "00112233-4455-6677-8899-aabbccddeeff")!
    static let masterKey = Array(UInt8(0x00)...UInt8(0x1f))
    static let passphrase = "correct horse battery staple"
    static let passphraseKeyslot = "01000101000000020000000004000000a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a500000001404142434445464748494a4b4c4d4e4f5051525354555657660dfcda835b566ae404eacfbba9b305bd1488d885d44cab1f42af3625f3e0538657f97ec5bc045ab20549be4cce3d1b"
    static let recoveryKeyText = "JVR1-eaqs-eize-eutc-okbj-fivs-yljo-f4yd-cmrt-gq2t-mnzy-he5d-wpb5-hy7x-xgzo"
    static let recoveryKeyslot = "010102020000000000000000000000005a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a000000014142434445464748494a4b4c4d4e4f505152535455565758204823cb8ee8246524dc8f8416a493710b4cb3a8eed2c0e62dff68af0861af01974cc92f7e5e7c47266e2131882f82fe"
    static let recordKey = "239e13bb77aceea0f4940285f4e8d87d88ee994a860ef1b62abace52dbf7acbe"
    static let blindIndexKey = "6ba15482a334405045778b7dc1681ea7cb2adc8fa974f29930cd185345e89ce9"
    static let travelBlindIndex = "fab584095f52288b"
    static let entryID = UUID(uuidString: "3f2504e0-4f89-41d3-9a0c-0305e82c3301")!
    static let entryEncMeta = "01000000010000000111111111111111111111111111111111"
    static let entryContentAD = "4a560105656e7472793f2504e04f8941d39a0c0305e82c330107636f6e74656e74000000010000000105010000019b8e909a40010000019b8e909a40010000000000007e90010000000000000001010000000000000000"
    static let entryContent = "606162636465666768696a6b6c6d6e6f7071727374757677e80d67f9e4c5068f53c5abd41a9ff20ca1da897ae769ee458ffea2a710e853416d5de581bd2c1a7d563c1a154b58024b83174c6225acd0c23bbd78eb2b285cbcdf3613f76949321bd38ecea4a852901d"
    static let entryTags = "808182838485868788898a8b8c8d8e8f90919293949596971d27702799e58a165d65a14ca58cb65bc0911b255c5bb85d297de39ff02d7073526ed1b20d82038146ba74fd64e636324d55f6a7d436926eda2e6cdb28d06e26b64cabcfeb41db95c8041f2c2f1f880b"
    static let createdAt: Int64 = 1_767_623_400_000
    static let backupHeader = "4a564c5442414b00000100112233445566778899aabbccddeeff0000019b8e909a40000000010201000101000000020000000004000000a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a500000001404142434445464748494a4b4c4d4e4f5051525354555657660dfcda835b566ae404eacfbba9b305bd1488d885d44cab1f42af3625f3e0538657f97ec5bc045ab20549be4cce3d1b010102020000000000000000000000005a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a000000014142434445464748494a4b4c4d4e4f505152535455565758204823cb8ee8246524dc8f8416a493710b4cb3a8eed2c0e62dff68af0861af01974cc92f7e5e7c47266e2131882f82fee0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7b178476256773618ebcb9c8eb97b0d2e0d8fb79c23f69144aa77b15b374c84033afdf332cbe5ae709860b8b80921fe71303132333435363738393a3b3c3d3e3f40414243444546474b6c6a57f4462e5307124c93f1bdf9fbe9dcb084bf3d13ae4b26a5c689f38776fd4e6b88f46fb2b912dae64998b250cde0c696bb0d09961b8504408483f47fea"
    static let backup2Header = "4a564c5442414b00000200112233445566778899aabbccddeeff0000019b8e909a40000000010201000101000000020000000004000000a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a500000001404142434445464748494a4b4c4d4e4f5051525354555657660dfcda835b566ae404eacfbba9b305bd1488d885d44cab1f42af3625f3e0538657f97ec5bc045ab20549be4cce3d1b010102020000000000000000000000005a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a000000014142434445464748494a4b4c4d4e4f505152535455565758204823cb8ee8246524dc8f8416a493710b4cb3a8eed2c0e62dff68af0861af01974cc92f7e5e7c47266e2131882f82fee0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7b178476256773618ebcb9c8eb97b0d2e0d8fb79c23f69144aa77b15b374c840339e33e91ae292812bc98af0b01008bce21361edbd4b375f711003cbed1f26e13b78f00f96ca65cec240e8ad2fd306f7215fbccb168ce3710eaa0af1c8c35427d563058e5854069b96d7ac51e3e7fe13f"
    static let backup2SHA256 = "7da317cb33ccd350d770ece0d2ac543341ab38195f84865bae5ef88d8986c26a"

    @Test func subkeysAndBlindIndexMatchTheDocument() throws {
        let master = try SecureBytes(copying: Self.masterKey)
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: master)
        #expect(keys.records.recordKey.withUnsafeBytes { Array($0) }.hex == Self.recordKey)
        #expect(keys.blindIndex.value(domain: "tag", parts: ["travel"]).hex == Self.travelBlindIndex)
        let bidxKey = try SubkeyDerivation.derive(from: master, id: 2, context: "JVLTBIDX")
        #expect(bidxKey.withUnsafeBytes { Array($0) }.hex == Self.blindIndexKey)
    }

    @Test func recordMetadataAndAssociatedDataMatchTheDocument() {
        let meta = RecordMeta(keyVersion: 1, revision: 1, salt: [UInt8](repeating: 0x11, count: 16))
        #expect(Array(meta.encoded).hex == Self.entryEncMeta)
        let binding = RecordBinding(table: "entry", id: Self.entryID, meta: meta, columns: [
            .integer(Self.createdAt), .integer(Self.createdAt), .integer(32400), .integer(1), .integer(0),
        ])
        #expect(binding.associatedData(field: "content").hex == Self.entryContentAD)
    }

    static let nodeKeyPersonAnna = "bd2f40612d7d8fca"
    static let relationKeyMeets = "3497947536bd78c1"
    static let otherID = "00000000-0000-4000-8000-000000000001"
    static let otherID2 = "00000000-0000-4000-8000-000000000002"
    /// AD of one field of a record of each other sealed table: id as the entry's, kv 1, rev 2.
    static let associatedData: [(table: SealedTable, field: String, values: [String: DatabaseValue], expected: String)] = [
        (.analysis, "payload", ["entry_id": otherID.databaseValue, "model": "llama3".databaseValue, "processed_at": createdAt.databaseValue,
                                "utc_offset": 32400.databaseValue, "version": 2.databaseValue],
         "4a560108616e616c797369733f2504e04f8941d39a0c0305e82c3301077061796c6f6164000000010000000205020000002430303030303030302d303030302d343030302d383030302d30303030303030303030303102000000066c6c616d6133010000019b8e909a40010000000000007e90010000000000000002"),
        (.knowledgeNode, "name", ["type": "person".databaseValue, "created_at": createdAt.databaseValue,
                                  "node_key": Data(hex: nodeKeyPersonAnna).databaseValue],
         "4a56010e6b6e6f776c656467655f6e6f64653f2504e04f8941d39a0c0305e82c3301046e616d650000000100000002030200000006706572736f6e010000019b8e909a40020000001062643266343036313264376438666361"),
        (.knowledgeRelation, "relation", ["from_node": otherID.databaseValue, "to_node": otherID2.databaseValue, "entry_id": .null,
                                          "created_at": createdAt.databaseValue, "relation_key": Data(hex: relationKeyMeets).databaseValue],
         "4a5601126b6e6f776c656467655f72656c6174696f6e3f2504e04f8941d39a0c0305e82c33010872656c6174696f6e000000010000000205020000002430303030303030302d303030302d343030302d383030302d303030303030303030303031020000002430303030303030302d303030302d343030302d383030302d30303030303030303030303200010000019b8e909a40020000001033343937393437353336626437386331"),
        (.chatThread, "title", ["created_at": createdAt.databaseValue, "utc_offset": 32400.databaseValue, "updated_at": createdAt.databaseValue,
                                "last_message_at": .null],
         "4a56010b636861745f7468726561643f2504e04f8941d39a0c0305e82c3301057469746c65000000010000000204010000019b8e909a40010000000000007e90010000019b8e909a4000"),
        (.chatMessage, "content", ["thread_id": otherID.databaseValue, "role": "user".databaseValue, "timestamp": createdAt.databaseValue,
                                   "utc_offset": 32400.databaseValue],
         "4a56010c636861745f6d6573736167653f2504e04f8941d39a0c0305e82c330107636f6e74656e74000000010000000204020000002430303030303030302d303030302d343030302d383030302d303030303030303030303031020000000475736572010000019b8e909a40010000000000007e90"),
        (.attachmentBlob, "key", ["stream_id": "00000000-0000-4000-8000-000000000003".databaseValue, "created_at": createdAt.databaseValue,
                                  "stored_size": 10.databaseValue, "chunk_count": 1.databaseValue,
                                  "content_tag": Data(hex: "c75c2cab958143af662e46109f79753a").databaseValue],
         "4a56010f6174746163686d656e745f626c6f623f2504e04f8941d39a0c0305e82c3301036b6579000000010000000205020000002430303030303030302d303030302d343030302d383030302d303030303030303030303033010000019b8e909a4001000000000000000a01000000000000000102000000206337356332636162393538313433616636363265343631303966373937353361"),
        (.attachment, "name", ["entry_id": otherID.databaseValue, "blob_id": otherID2.databaseValue, "created_at": createdAt.databaseValue],
         "4a56010a6174746163686d656e743f2504e04f8941d39a0c0305e82c3301046e616d65000000010000000203020000002430303030303030302d303030302d343030302d383030302d303030303030303030303031020000002430303030303030302d303030302d343030302d383030302d303030303030303030303032010000019b8e909a40"),
        (.measure, "fields", ["entry_id": otherID.databaseValue],
         "4a5601076d6561737572653f2504e04f8941d39a0c0305e82c3301066669656c6473000000010000000201020000002430303030303030302d303030302d343030302d383030302d303030303030303030303031"),
    ]

    /// The tables' descriptions (which every whole-vault walk and rekey seal through) bind what
    /// FORMAT.md §1 and §4.4 say, in its order.
    @Test func associatedDataOfEveryTableMatchesTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        #expect(Data(keys.blindIndex.value(domain: "node", parts: ["person", "anna"])).lowerHex == Self.nodeKeyPersonAnna)
        #expect(UnlockedVault.nodeKey(NodeReference(type: " Person", name: "  ANNA "), keys: keys).lowerHex == Self.nodeKeyPersonAnna)
        #expect(UnlockedVault.relationKey("meets", keys: keys).lowerHex == Self.relationKeyMeets)
        let meta = RecordMeta(keyVersion: 1, revision: 2, salt: [UInt8](repeating: 0x11, count: 16))
        for (table, field, values, expected) in Self.associatedData {
            let row = SealedRow(table, id: Self.entryID, values: table.columns.map { values[$0] ?? .null })
            #expect(try row.binding(meta: meta).associatedData(field: field).hex == expected, "\(table.name)")
        }
    }

    /// FORMAT.md §6: the id of an entry's measures, derived under `K_sync`, and their canonical plaintext.
    @Test func measureIDAndPlaintextMatchTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        #expect(MeasureRow.id(entryID: Self.entryID, syncKey: keys.syncKey).storageText == "469b143f-cdf4-8fc5-abfd-cbf78bf05857")
        let measures = try Measures.assignments(["weather=rain", "sleep=7.5", "Outside=yes", "mood=7"])
        #expect(measures.json.serialized() == #"{"mood":7,"outside":true,"sleep":7.5,"weather":"rain"}"#)
    }

    // MARK: Attachments (§15.5)

    static let attachmentKey = "f7764ec6311406b451a9ef474231149ed61a3005f27918c97d17abc3342f44a5"
    static let attachmentDigest = "fbb7203011461464dcb3ca3a8659e104e43143d5ae51daa31cb7a424eb195c06"
    static let attachmentContentTag = "c75c2cab958143af662e46109f79753a"
    static let attachmentBlobID = UUID(uuidString: "c4181607-b79a-8e26-977f-4c99605066a5")!
    static let attachmentStreamID = UUID(uuidString: "00000000-0000-4000-8000-000000000003")!
    static let attachmentChunkAD = "4a564c542d6368756e6b0000000000004000800000000000000300000000"
    static let attachmentChunk = "7628a63fdce50b3b2237ecda3c279699a4055f602a907a73c2a45c"

    /// `K_att`, the content tag and blob id of "Ridge, 9.", and its one chunk written by PyNaCl
    /// under the content key `40 41 … 5f` and header `60 61 … 77`: jv derives the same, and reads
    /// the chunk back to the content (its one padding byte checked to be zero).
    @Test func attachmentKeysTagsIDsAndChunkMatchTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        #expect(keys.attachmentKey.withUnsafeBytes { Array($0) }.hex == Self.attachmentKey)
        let content = Array("Ridge, 9.".utf8)
        #expect(Blake2b.hash(content).hex == Self.attachmentDigest)
        let tag = AttachmentBlobRow.contentTag(digest: Blake2b.hash(content), keys: keys)
        #expect(tag.lowerHex == Self.attachmentContentTag)
        #expect(AttachmentBlobRow.derivedID(contentTag: tag) == Self.attachmentBlobID)
        #expect(AttachmentStream.layout(size: Int64(content.count)) == (storedSize: 10, chunkCount: 1))
        #expect(AttachmentStream.associatedData(streamID: Self.attachmentStreamID, index: 0).hex == Self.attachmentChunkAD)
        let expected = AttachmentStream.Stored(
            streamID: Self.attachmentStreamID,
            secret: AttachmentStream.Secret(key: try SecureBytes(copying: Array(UInt8(0x40)...UInt8(0x5f))), header: Array(UInt8(0x60)...UInt8(0x77))),
            size: Int64(content.count), digest: Blake2b.hash(content), storedSize: 10, chunkCount: 1)
        var read: [UInt8] = []
        try AttachmentStream.read(expected, chunk: { $0 == 0 ? Data(hex: Self.attachmentChunk) : nil }, emit: { read += $0 },
                                  tampered: { VaultError.tamperedRecord(table: "attachment_blob", id: "vector", detail: $0) })
        #expect(read == content)
    }

    @Test func recoveryKeyTextMatchesTheDocument() throws {
        let key = RecoveryKey(secret: try SecureBytes(copying: Array(UInt8(0x20)...UInt8(0x3f))))
        #expect(key.text == Self.recoveryKeyText)
    }

    @Test func keyslotsWrittenByAnotherImplementationUnwrap() throws {
        let slot = try #require(Keyslot(encoded: Data(hex: Self.passphraseKeyslot)))
        let master = try slot.unwrap(passphrase: SecureBytes(copying: Array(Self.passphrase.utf8)), vaultID: Self.vaultID)
        #expect(master.withUnsafeBytes { Array($0) } == Self.masterKey)
        let recovery = try #require(Keyslot(encoded: Data(hex: Self.recoveryKeyslot)))
        let again = try recovery.unwrap(recoveryKey: RecoveryKey(text: Self.recoveryKeyText), vaultID: Self.vaultID)
        #expect(again.withUnsafeBytes { Array($0) } == Self.masterKey)
    }

    /// A vault whose header, keyslots and entry are the document's vectors opens with the
    /// passphrase and with the recovery key, and yields the entry.
    @Test func goldenVaultBuiltFromTheVectorsOpens() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jv-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("golden.vault").path
        let (created, _) = try Vault.create(at: path, passphrase: SecureBytes(copying: Array("placeholder".utf8)),
                                            kdf: .profile(.interactive))
        try created.writeBehindTheVaultsBack { db in
            try db.execute(sql: "UPDATE vault_header SET vault_id = ?", arguments: [Data(Self.vaultID.bytes)])
            try db.execute(sql: "UPDATE keyslot SET data = ? WHERE slot = 0", arguments: [Data(hex: Self.passphraseKeyslot)])
            try db.execute(sql: "UPDATE keyslot SET data = ? WHERE slot = 1", arguments: [Data(hex: Self.recoveryKeyslot)])
            try db.execute(sql: """
                INSERT INTO entry (id, created_at, modified_at, utc_offset, local_day, version, starred, enc_meta, content, tags)
                VALUES (?, ?, ?, 32400, '2026-01-05', 1, 0, ?, ?, ?)
                """, arguments: [Self.entryID.storageText, Self.createdAt, Self.createdAt, Data(hex: Self.entryEncMeta),
                                 Data(hex: Self.entryContent), Data(hex: Self.entryTags)])
            try db.execute(sql: "INSERT INTO entry_tag (bidx, entry_seq) VALUES (?, (SELECT seq FROM entry WHERE id = ?))",
                           arguments: [Data(hex: Self.travelBlindIndex), Self.entryID.storageText])
            // The vectors' keyslots are of format 1, a vault from before the manifest (§11.4).
            try db.execute(sql: "DELETE FROM manifest")
        }
        let vault = try Vault.open(at: path)
        let journal = try vault.unlock(passphrase: SecureBytes(copying: Array(Self.passphrase.utf8)))
        let entry = try journal.entry(id: Self.entryID)
        #expect(entry.content == "Tokyo night. #travel")
        #expect(entry.explicitTags == ["travel"])
        #expect(entry.created.iso8601 == "2026-01-05T23:30:00.000+09:00")
        var byTag = EntryQuery()
        byTag.tags = ["#Travel"]
        #expect(try journal.entries(byTag).map(\.id) == [Self.entryID])
        #expect(try journal.check().isClean)
        let recovered = try vault.unlock(recoveryKey: RecoveryKey(text: Self.recoveryKeyText))
        #expect(try recovered.entry(id: Self.entryID).content == "Tokyo night. #travel")
    }

    /// §8's vector: `Fixtures/golden.jvbak`, written by `format_vectors.py` from the golden
    /// vault (`Fixtures/golden.vault`, the vault the test above builds), restores with the
    /// passphrase and with the recovery key, and its header is the documented one.
    @Test func backupWrittenByAnotherImplementationRestores() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let backup = fixtures.appendingPathComponent("golden.jvbak").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
        #expect(bytes.prefix(Self.backupHeader.count / 2) == Data(hex: Self.backupHeader))
        try expectRestoresWithTheGoldenCredentials(backup)
    }

    /// The golden backup at `path` restores with the §6 passphrase and with the recovery key, to
    /// the golden vault.
    private func expectRestoresWithTheGoldenCredentials(_ path: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jv-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for credential in [VaultCredential.passphrase(try SecureBytes(copying: Array(Self.passphrase.utf8))),
                           .recoveryKey(try RecoveryKey(text: Self.recoveryKeyText))] {
            let target = folder.appendingPathComponent("restored-\(UUID().uuidString).vault").path
            let summary = try BackupFile.restore(path, to: target, credential: credential)
            #expect(summary.vaultID == Self.vaultID)
            #expect(summary.createdAt.millis == Self.createdAt)
            let restored = try Vault.open(at: target).unlock(credential)
            #expect(try restored.entry(id: Self.entryID).content == "Tokyo night. #travel")
        }
    }

    /// §8's format-2 vector: `Fixtures/golden2.jvbak`, the same snapshot written by
    /// `format_vectors.py` as format 2, restores with the passphrase and with the recovery key;
    /// and jv's writer, given the same file key and header MAC, seals the same body byte for byte
    /// (its 16-chunk batches sealed side by side make the chunks a one-by-one sealing makes).
    @Test func backupOfFormat2WrittenByAnotherImplementationRestoresAndJvSealsItsBodyAlike() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let backup = fixtures.appendingPathComponent("golden2.jvbak").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
        #expect(sha256(bytes).hex == Self.backup2SHA256)
        let header = Data(hex: Self.backup2Header)
        #expect(bytes.prefix(header.count) == header)
        try expectRestoresWithTheGoldenCredentials(backup)

        let folder = try TemporaryFolder()
        let snapshot = try Data(contentsOf: fixtures.appendingPathComponent("golden.vault"))
        let bodyKey = try SubkeyDerivation.derive(from: try SecureBytes(copying: Array(UInt8(0xc0)...UInt8(0xdf))), id: 3, context: "JVBKSTRM")
        let headerMAC = Array(header.dropLast(32).suffix(32))
        let sealedPath = folder.file("body")
        _ = FileManager.default.createFile(atPath: sealedPath, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: sealedPath))
        defer { try? output.close() }
        try IndexedChunkStream.Writer(key: bodyKey, associatedData: headerMAC, to: output).write(length: Int64(snapshot.count), read: { buffer, offset in
            snapshot.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(offset)..<Int(offset) + buffer.count])) }
        }, wrote: { _ in })
        #expect(try Data(contentsOf: URL(fileURLWithPath: sealedPath)) == bytes.dropFirst(header.count))
    }

    // MARK: Sync (§14.10)

    static let syncKey = "533506b0a2dca55d883765c0389d5ca4fea6cdff512815aac6b658904fc7ea1e"
    static let device1 = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
    static let device2 = UUID(uuidString: "00000000-0000-4000-8000-000000000002")!
    static let conflictMessage = "4a564c542d73796e632d636f6e666c69637405656e7472793f2504e04f8941d39a0c0305e82c33010000019b8e909a4000000000000040008000000000000001"
    static let conflictHash = "09d02c7b92ccf716ba50763a108264b972473b4bb51ce8ef09553aa8274e29a7"
    static let conflictCopyID = UUID(uuidString: "09d02c7b-92cc-8716-ba50-763a108264b9")!
    static let packHeader = "4a5653594e430000000100112233445566778899aabbccddeeff000000000000400080000000000000010000000000000001000000010000019b8e909a400001000000000000400080000000000000020000000000000003"
    /// `wrap_nonce ‖ wrapped_pack_key`, with `pack_key` = `c0 c1 … df` and `wrap_nonce` = `e0 e1 … f7`.
    static let packWrappedKey = "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7a86e73b169732b7d171950ba9e1b1618d8486855ca75abca55e2ff5465f17ddf590bbed3adc1a35d228571c99698357e"
    static let packChange = "02003f2504e04f8941d39a0c0305e82c33010000019b8e909a4100000000000040008000000000000001010000019b8e909a4000000000000040008000000000000002"
    /// 160 + 24 (one dependency) + 3,912 (one `TAG_FINAL` chunk: 4 + 67 + 4 + 3,820 zero bytes + 17).
    static let packSize = 4096
    static let packSHA256 = "235e4c17d3bbca0fb6462f8e3e041cbefe00ee3176506ed8d8bd8e66ce46e485"
    static let keysFileSize = 295
    static let keysFileMAC = "3d28343ed3f3d9c9802cbc606073e72692907777551c538e803ee703d1d51b11"
    static let keysFileSHA256 = "4b237d9e1b2641ddacd2543481dc23f845e65196e0b2802ce75a3a3dd0d2389c"

    /// Device …0001's pack 1, kv 1, written at `t`, after applying 3 packs of device …0002.
    static let packFields = SyncPack.Header(vaultID: vaultID, device: device1, number: 1, keyVersion: 1, createdAt: createdAt,
                                            dependencies: [device2: 3])
    /// The pack's one change: a tombstone of the entry, stamp `(t + 1, …0001)`, base `(t, …0002)`.
    static let tombstone = SyncChange(table: .entry, id: entryID, stamp: SyncStamp(hlc: UInt64(createdAt) + 1, device: device1),
                                      base: SyncStamp(hlc: UInt64(createdAt), device: device2), body: .tombstone)

    static func encoded(_ change: SyncChange) -> [UInt8] {
        var writer = ByteWriter()
        change.encode(into: &writer)
        return writer.bytes
    }

    /// The pack at `path` opens with the document's `K_sync` where §14.10 puts it, and holds its one change.
    static func expectThePackOfTheDocument(at path: String, keys: VaultKeys) throws {
        let reader = try SyncPack.open(path, syncKey: keys.syncKey, expected: (Self.vaultID, Self.device1, 1))
        #expect(reader.header == Self.packFields)
        let change = try #require(try reader.next())
        #expect(Self.encoded(change).hex == Self.packChange)
        #expect(try reader.next() == nil)
    }

    @Test func syncKeyAndConflictCopyIDMatchTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        #expect(keys.syncKey.withUnsafeBytes { Array($0) }.hex == Self.syncKey)
        #expect(keys.syncKey.withUnsafeBytes { Blake2b.hash(Array(Data(hex: Self.conflictMessage)), key: $0) }.hex == Self.conflictHash)
        let loser = SyncStamp(hlc: UInt64(Self.createdAt), device: Self.device1)
        #expect(SyncEngine.conflictCopyID(table: .entry, id: Self.entryID, loser: loser, syncKey: keys.syncKey) == Self.conflictCopyID)
    }

    @Test func importConflictCopyIDMatchesTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        let id = UnlockedVault.importConflictCopyID(of: Self.entryID, in: .entry, text: "Concurrent text.", syncKey: keys.syncKey)
        #expect(id == UUID(uuidString: "079e5cf4-c253-830b-89c1-7e6d4fd2173d")!)
    }

    @Test func markdownNoteEntryIDMatchesTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        let part = MarkdownNote("## 07:30\nCoffee.").parts[1]
        let origin = MarkdownFolderReader.origin(path: "Daily/2024-05-01.md", part: part)
        #expect(UnlockedVault.importedNoteEntryID(origin: origin, syncKey: keys.syncKey) == UUID(uuidString: "87b00aa6-117d-859e-900b-5b8780569ccd")!)
    }

    /// The pack jv writes from §14.10's inputs: its header and change are the document's bytes, and
    /// the whole file is padded to the document's size. Its pack key, wrap nonce and stream header
    /// are random, so the bytes they make are checked on the document's pack (the test below).
    @Test func syncPackWrittenByJvMatchesTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        #expect(Self.packFields.encoded.hex == Self.packHeader)
        #expect(Self.encoded(Self.tombstone).hex == Self.packChange)
        let packKey = Array(UInt8(0xc0)...UInt8(0xdf))
        let wrapped = try keys.syncKey.withUnsafeBytes { key in
            try AEAD.seal(packKey, key: key, nonce: Array(UInt8(0xe0)...UInt8(0xf7)), associatedData: SyncPack.Kind.pack.wrapDomain + Self.packFields.encoded)
        }
        #expect(wrapped.hex == Self.packWrappedKey)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jv-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("pack-000000000001.jvp").path
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let writer = try SyncPack.Writer(header: Self.packFields, syncKey: keys.syncKey, to: handle)
        try writer.append(Self.tombstone)
        try writer.finish()
        try handle.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count == Self.packSize)
        #expect(bytes.prefix(Self.packHeader.count / 2) == Data(hex: Self.packHeader))
        try Self.expectThePackOfTheDocument(at: path, keys: keys)
    }

    /// §14.10's pack: `Fixtures/golden.jvp`, written by `format_vectors.py` with the document's
    /// pack key, wrap nonce and stream header, is the documented file, and jv reads its change.
    @Test func syncPackWrittenByAnotherImplementationOpens() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let path = fixtures.appendingPathComponent("golden.jvp").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count == Self.packSize)
        #expect(sha256(bytes).hex == Self.packSHA256)
        #expect(bytes.prefix(Self.packHeader.count / 2) == Data(hex: Self.packHeader))
        #expect(bytes.dropFirst(Self.packHeader.count / 2).prefix(SyncPack.keyBlockLength) ==
            Data(hex: Self.packWrappedKey) + Data(UInt8(0x30)...UInt8(0x47)))
        try Self.expectThePackOfTheDocument(at: path, keys: keys)
    }

    /// Device …0001's keys file, kv 1, holding the two keyslots of §6.
    @Test func syncKeysFileMatchesTheDocument() throws {
        let keys = try VaultKeys(vaultID: Self.vaultID, keyVersion: 1, masterKey: try SecureBytes(copying: Self.masterKey))
        let slots = try [Self.passphraseKeyslot, Self.recoveryKeyslot].map { try #require(Keyslot(encoded: Data(hex: $0))) }
        let file = SyncKeysFile(vaultID: Self.vaultID, device: Self.device1, keyVersion: 1, slots: slots).encoded(syncKey: keys.syncKey)
        #expect(file.count == Self.keysFileSize)
        #expect(file.suffix(32).hex == Self.keysFileMAC)
        #expect(sha256(file).hex == Self.keysFileSHA256)
        #expect(try SyncKeysFile(parsing: file).authenticates(with: keys))
    }
}

/// SHA-256, as the document states a file's digest (libsodium's `crypto_hash_sha256`).
private func sha256<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
    Sodium.ready()
    let message = Array(bytes)
    var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
    _ = crypto_hash_sha256(&digest, message, UInt64(message.count))
    return digest
}
