// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The keys of an unlocked vault, all derived once at unlock and held in secure memory:
/// the master key and its fixed-purpose subkeys (FORMAT.md §Keys).
struct VaultKeys: Sendable {
    static let recordSubkey: (id: UInt64, context: String) = (1, "JVLTREC1")
    static let blindIndexSubkey: (id: UInt64, context: String) = (2, "JVLTBIDX")
    static let manifestSubkey: (id: UInt64, context: String) = (3, "JVLTMANI")
    static let syncSubkey: (id: UInt64, context: String) = (6, "JVLTSYNC")
    static let attachmentSubkey: (id: UInt64, context: String) = (7, "JVLTATTC")

    let vaultID: UUID
    let keyVersion: UInt32
    let masterKey: SecureBytes
    let records: RecordCipher
    let blindIndex: BlindIndex
    /// `K_man`: row digests and the MAC of the row-set manifest (FORMAT.md §11).
    let manifestKey: SecureBytes
    /// `K_sync`: wraps the key of every sync pack, MACs the keys files, derives conflict-copy ids (FORMAT.md §14).
    let syncKey: SecureBytes
    /// `K_att`: the content tags that recognise an attachment's content again (FORMAT.md §15.4).
    let attachmentKey: SecureBytes

    init(vaultID: UUID, keyVersion: UInt32, masterKey: SecureBytes) throws {
        self.vaultID = vaultID
        self.keyVersion = keyVersion
        self.masterKey = masterKey
        records = RecordCipher(
            recordKey: try SubkeyDerivation.derive(from: masterKey, id: Self.recordSubkey.id, context: Self.recordSubkey.context),
            keyVersion: keyVersion)
        blindIndex = BlindIndex(
            key: try SubkeyDerivation.derive(from: masterKey, id: Self.blindIndexSubkey.id, context: Self.blindIndexSubkey.context))
        manifestKey = try SubkeyDerivation.derive(from: masterKey, id: Self.manifestSubkey.id, context: Self.manifestSubkey.context)
        syncKey = try SubkeyDerivation.derive(from: masterKey, id: Self.syncSubkey.id, context: Self.syncSubkey.context)
        attachmentKey = try SubkeyDerivation.derive(from: masterKey, id: Self.attachmentSubkey.id, context: Self.attachmentSubkey.context)
    }
}
