// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// One wrapping of the vault master key (FORMAT.md §Keyslot), 108 bytes, all integers big-endian:
///
/// `format u8 ‖ slot u8 ‖ kind u8 ‖ kdf u8 ‖ ops u32 ‖ mem u64 ‖ salt[16] ‖ key_version u32 ‖
///  nonce[24] ‖ wrapped[48]`
///
/// `wrapped` = XChaCha20-Poly1305(KEK, master key) with associated data
/// `"JVLT-keyslot" ‖ vault_id[16] ‖ the 36 bytes before the nonce`, so editing any parameter
/// (a KDF downgrade, a key-version change) or moving the slot to another vault fails to unwrap.
///
/// Format 2 is format 1 plus a promise the format byte authenticates: this vault keeps a
/// row-set manifest (FORMAT.md §11), so a reader must find a valid one — deleting the manifest
/// cannot pass for a vault from before it existed. Every slot jv writes now is format 2.
struct Keyslot: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        case passphrase = 1
        case recovery = 2

        var name: String { self == .passphrase ? "passphrase" : "recovery" }
    }

    /// Format 1: written before the manifest existed. Format 2: the vault must have a manifest.
    static let legacyFormat: UInt8 = 1
    static let format: UInt8 = 2
    static let kdfArgon2id13: UInt8 = 1
    static let kdfRecoveryBlake2b: UInt8 = 2
    static let encodedLength = 108
    private static let parametersLength = 36
    private static let recoveryPersonal = Blake2b.personal("JVLT-recov-kek1")

    /// Slot numbers in use: one passphrase slot, and a recovery slot — up to three while a
    /// new recovery key is being handed over (``UnlockedVault/addRecoveryKey()``).
    static let passphraseSlot: UInt8 = 0
    static let recoverySlot: UInt8 = 1
    static let recoverySlots: ClosedRange<UInt8> = 1...3

    var format: UInt8 = Keyslot.format
    var slot: UInt8
    var kind: Kind
    /// Argon2id parameters for a passphrase slot; zero for a recovery slot.
    var kdf: KDFParameters
    var salt: [UInt8]
    var keyVersion: UInt32
    var nonce: [UInt8]
    var wrapped: [UInt8]

    /// Wraps `masterKey` under a passphrase (Argon2id with `parameters`).
    static func wrap(_ masterKey: SecureBytes, passphrase: SecureBytes, parameters: KDFParameters,
                     keyVersion: UInt32, vaultID: UUID) throws -> Keyslot {
        let salt = SecureRandom.bytes(PasswordKDF.saltLength)
        let kek = try PasswordKDF.deriveKey(passphrase: passphrase, salt: salt, parameters: parameters)
        return try seal(masterKey, kek: kek, slot: passphraseSlot, kind: .passphrase, kdf: parameters,
                        salt: salt, keyVersion: keyVersion, vaultID: vaultID)
    }

    /// Wraps `masterKey` under a recovery key (keyed BLAKE2b; the key has full entropy).
    static func wrap(_ masterKey: SecureBytes, recoveryKey: RecoveryKey, keyVersion: UInt32, vaultID: UUID,
                     slot: UInt8 = recoverySlot) throws -> Keyslot {
        let salt = SecureRandom.bytes(Blake2b.saltLength)
        let kek = try recoveryKEK(recoveryKey, salt: salt)
        return try seal(masterKey, kek: kek, slot: slot, kind: .recovery,
                        kdf: KDFParameters(operations: 0, memoryBytes: 0), salt: salt,
                        keyVersion: keyVersion, vaultID: vaultID)
    }

    /// The master key, if `passphrase` is right. The KDF policy is checked before Argon2 runs.
    func unwrap(passphrase: SecureBytes, vaultID: UUID) throws -> SecureBytes {
        try unwrapWithKEK(passphrase: passphrase, vaultID: vaultID).masterKey
    }

    /// The master key and the key-encryption key that opened it (kept to re-wrap this slot).
    /// When the slot does not open, `damageProbe` (if given) is asked whether what it decrypts
    /// to without its tag is the master key after all: then the passphrase was right and the
    /// slot or the vault id was changed, and the vault's key data is reported damaged.
    func unwrapWithKEK(passphrase: SecureBytes, vaultID: UUID,
                       damageProbe: DamageProbe? = nil) throws -> (masterKey: SecureBytes, kek: SecureBytes) {
        guard kind == .passphrase else { throw VaultError.wrongPassphrase }
        try kdf.validatePolicy()
        let kek: SecureBytes
        do {
            kek = try PasswordKDF.deriveKey(passphrase: passphrase, salt: salt, parameters: kdf)
        } catch CryptoError.kdfFailed {
            throw VaultError.storage("Argon2id could not run with \(kdf.memoryBytes >> 20) MiB of memory; is enough memory free?")
        }
        guard let key = try open(kek: kek, vaultID: vaultID) else {
            try reportDamage(kek: kek, probe: damageProbe)
            throw VaultError.wrongPassphrase
        }
        return (key, kek)
    }

    /// Tells whether a candidate master key is the vault's (it opens a record).
    typealias DamageProbe = (SecureBytes) -> Bool

    /// Throws ``VaultError/keyDataDamaged(_:)`` when the slot's contents, decrypted under `kek`
    /// without the tag, are a master key `probe` accepts.
    private func reportDamage(kek: SecureBytes, probe: DamageProbe?) throws {
        guard let probe, wrapped.count - AEAD.tagLength == SubkeyDerivation.keyLength else { return }
        let box = nonce + wrapped
        let candidate = kek.withUnsafeBytes { key in
            try? SecureBytes.filling(count: SubkeyDerivation.keyLength) { output in
                try box.withUnsafeBytes { try AEAD.unverifiedPlaintext(of: $0, key: key, into: output) }
            }
        }
        guard let candidate, probe(candidate) else { return }
        throw VaultError.keyDataDamaged("keyslot \(slot) no longer matches the vault: its bytes or the vault id were changed")
    }

    /// The master key, if `recoveryKey` is right.
    func unwrap(recoveryKey: RecoveryKey, vaultID: UUID) throws -> SecureBytes {
        try unwrapWithKEK(recoveryKey: recoveryKey, vaultID: vaultID).masterKey
    }

    func unwrapWithKEK(recoveryKey: RecoveryKey, vaultID: UUID,
                       damageProbe: DamageProbe? = nil) throws -> (masterKey: SecureBytes, kek: SecureBytes) {
        guard kind == .recovery else { throw VaultError.wrongRecoveryKey }
        let kek = try Self.recoveryKEK(recoveryKey, salt: salt)
        guard let key = try open(kek: kek, vaultID: vaultID) else {
            try reportDamage(kek: kek, probe: damageProbe)
            throw VaultError.wrongRecoveryKey
        }
        return (key, kek)
    }

    /// This slot (same kind, KDF parameters and salt, so the same secret opens it) wrapping
    /// `masterKey` of `keyVersion` in the current format, under the `kek` that opened it.
    /// (`format` is for tests that make a vault of an earlier release.)
    func rewrapped(_ masterKey: SecureBytes, kek: SecureBytes, keyVersion: UInt32, vaultID: UUID,
                   format: UInt8 = Keyslot.format) throws -> Keyslot {
        try Self.seal(masterKey, kek: kek, format: format, slot: slot, kind: kind, kdf: kdf, salt: salt, keyVersion: keyVersion, vaultID: vaultID)
    }

    var encoded: Data { Data(parameterBytes + nonce + wrapped) }

    /// Parses a stored slot; nil if it is not of the documented form.
    init?(encoded data: Data) {
        guard data.count == Self.encodedLength else { return nil }
        var reader = ByteReader(Array(data))
        guard let format = reader.u8(), format == Self.legacyFormat || format == Self.format,
              let slot = reader.u8(), let kindByte = reader.u8(), let kind = Kind(rawValue: kindByte),
              let kdfByte = reader.u8(),
              kdfByte == (kind == .passphrase ? Self.kdfArgon2id13 : Self.kdfRecoveryBlake2b),
              let ops = reader.u32(), let mem = reader.u64(),
              // A recovery slot takes no cost parameters; any but 0 is not a slot jv wrote.
              kind == .passphrase || (ops == 0 && mem == 0),
              let salt = reader.raw(16), let kv = reader.u32(),
              let nonce = reader.raw(AEAD.nonceLength), let wrapped = reader.raw(48)
        else { return nil }
        self.init(format: format, slot: slot, kind: kind, kdf: KDFParameters(operations: ops, memoryBytes: mem),
                  salt: salt, keyVersion: kv, nonce: nonce, wrapped: wrapped)
    }

    private init(format: UInt8 = Keyslot.format, slot: UInt8, kind: Kind, kdf: KDFParameters, salt: [UInt8], keyVersion: UInt32, nonce: [UInt8], wrapped: [UInt8]) {
        self.format = format
        self.slot = slot
        self.kind = kind
        self.kdf = kdf
        self.salt = salt
        self.keyVersion = keyVersion
        self.nonce = nonce
        self.wrapped = wrapped
    }

    private var parameterBytes: [UInt8] {
        var writer = ByteWriter()
        writer.u8(format)
        writer.u8(slot)
        writer.u8(kind.rawValue)
        writer.u8(kind == .passphrase ? Self.kdfArgon2id13 : Self.kdfRecoveryBlake2b)
        writer.u32(kdf.operations)
        writer.u64(kdf.memoryBytes)
        writer.raw(salt)
        writer.u32(keyVersion)
        return writer.bytes
    }

    private func associatedData(vaultID: UUID) -> [UInt8] {
        Array("JVLT-keyslot".utf8) + vaultID.bytes + parameterBytes
    }

    private static func seal(_ masterKey: SecureBytes, kek: SecureBytes, format: UInt8 = Keyslot.format, slot: UInt8, kind: Kind,
                             kdf: KDFParameters, salt: [UInt8], keyVersion: UInt32, vaultID: UUID) throws -> Keyslot {
        var keyslot = Keyslot(format: format, slot: slot, kind: kind, kdf: kdf, salt: salt, keyVersion: keyVersion, nonce: [], wrapped: [])
        let box = try masterKey.withUnsafeBytes { plain in
            try kek.withUnsafeBytes { key in
                try AEAD.seal(plain, key: key, associatedData: keyslot.associatedData(vaultID: vaultID))
            }
        }
        keyslot.nonce = Array(box.prefix(AEAD.nonceLength))
        keyslot.wrapped = Array(box.dropFirst(AEAD.nonceLength))
        return keyslot
    }

    /// The master key, opened with the key-encryption key this slot was opened with before
    /// (a slot re-wrapped since keeps its salt and cost); nil when it does not open.
    func unwrap(kek: SecureBytes, vaultID: UUID) -> SecureBytes? {
        try? open(kek: kek, vaultID: vaultID)
    }

    /// The master key, opened straight into secure memory (no copy of it in an ordinary array).
    private func open(kek: SecureBytes, vaultID: UUID) throws -> SecureBytes? {
        kek.withUnsafeBytes { key in
            try? AEAD.openKey(nonce + wrapped, length: SubkeyDerivation.keyLength, key: key, associatedData: associatedData(vaultID: vaultID))
        }
    }

    private static func recoveryKEK(_ recoveryKey: RecoveryKey, salt: [UInt8]) throws -> SecureBytes {
        try SecureBytes.filling(count: 32) { out in
            try recoveryKey.secret.withUnsafeBytes { key in
                try Blake2b.derive(key: key, salt: salt, personal: recoveryPersonal, message: [], into: out)
            }
        }
    }
}
