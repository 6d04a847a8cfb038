import Foundation
import GRDB
import VaultCrypto

/// A vault file, opened but locked: enough for ``info()`` and ``calendar(year:month:)``, which
/// read only plaintext columns. Unlock it with the passphrase or the recovery key to read and
/// write records.
///
/// ```swift
/// let (journal, recoveryKey) = try Vault.create(at: path, passphrase: secret)
/// print(recoveryKey.text)                       // show once
/// let vault = try Vault.open(at: path)
/// let counts = try vault.calendar(year: 2026, month: 11)
/// let unlocked = try vault.unlock(passphrase: secret)
/// ```
public final class Vault: Sendable {
    /// The vault file's path.
    public let path: String
    let database: VaultDatabase

    private init(database: VaultDatabase) {
        self.path = database.path
        self.database = database
    }

    /// Opens the vault at `path` (migrating an older schema forward) without unlocking it.
    public static func open(at path: String) throws -> Vault {
        let vault = Vault(database: try VaultDatabase.open(path: path))
        _ = try vault.header()
        return vault
    }

    /// Creates a vault at `path` (its folder 0700 and the file 0600) with a new random master
    /// key, a passphrase keyslot and a recovery keyslot. The file appears only when complete.
    /// Returns the unlocked vault and the recovery key, which the caller shows once.
    public static func create(at path: String, passphrase: SecureBytes,
                              kdf: KDFParameters = .profile(.moderate)) throws -> (vault: UnlockedVault, recoveryKey: RecoveryKey) {
        guard passphrase.count > 0 else { throw VaultError.emptyPassphrase }
        try kdf.validatePolicy()
        let header = VaultHeader(vaultID: UUID(), formatVersion: VaultHeader.formatVersion, keyVersion: 1,
                                 createdAt: Instant.now().millis)
        let masterKey = try SecureBytes.random(count: SubkeyDerivation.keyLength)
        let recoveryKey = try RecoveryKey.generate()
        let passphraseSlot = try Keyslot.wrap(masterKey, passphrase: try Passphrase.normalized(passphrase), parameters: kdf,
                                              keyVersion: header.keyVersion, vaultID: header.vaultID)
        let recoverySlot = try Keyslot.wrap(masterKey, recoveryKey: recoveryKey,
                                            keyVersion: header.keyVersion, vaultID: header.vaultID)
        let database = try VaultDatabase.create(path: path) { db in
            try header.insert(db)
            try passphraseSlot.save(db)
            try recoverySlot.save(db)
        }
        let keys = try VaultKeys(vaultID: header.vaultID, keyVersion: header.keyVersion, masterKey: masterKey)
        return (UnlockedVault(vault: Vault(database: database), keys: keys), recoveryKey)
    }

    /// Unlocks with the passphrase. Throws ``VaultError/wrongPassphrase`` (nothing changes) or
    /// ``VaultError/kdfParametersRefused(_:)`` before any Argon2 work if the stored cost is outside policy.
    public func unlock(passphrase: SecureBytes) throws -> UnlockedVault {
        guard passphrase.count > 0 else { throw VaultError.wrongPassphrase }
        let (header, slots) = try headerAndSlots()
        let normalized = try Passphrase.normalized(passphrase)
        for slot in slots where slot.kind == .passphrase {
            do {
                return try unlocked(header: header, slot: slot, masterKey: slot.unwrap(passphrase: normalized, vaultID: header.vaultID))
            } catch VaultError.wrongPassphrase {
                continue
            }
        }
        throw VaultError.wrongPassphrase
    }

    /// Unlocks with the recovery key shown at `jv init` or by `jv recovery-key`.
    public func unlock(recoveryKey: RecoveryKey) throws -> UnlockedVault {
        let (header, slots) = try headerAndSlots()
        for slot in slots where slot.kind == .recovery {
            do {
                return try unlocked(header: header, slot: slot, masterKey: slot.unwrap(recoveryKey: recoveryKey, vaultID: header.vaultID))
            } catch VaultError.wrongRecoveryKey {
                continue
            }
        }
        throw VaultError.wrongRecoveryKey
    }

    func header() throws -> VaultHeader {
        try database.read { db in try VaultHeader.read(db, path: path) }
    }

    private func headerAndSlots() throws -> (VaultHeader, [Keyslot]) {
        try database.read { db in (try VaultHeader.read(db, path: path), try Keyslot.readAll(db)) }
    }

    private func unlocked(header: VaultHeader, slot: Keyslot, masterKey: SecureBytes) throws -> UnlockedVault {
        guard slot.keyVersion == header.keyVersion else { throw VaultError.corruptKeyslot(slot: Int(slot.slot)) }
        return UnlockedVault(vault: self, keys: try VaultKeys(vaultID: header.vaultID, keyVersion: header.keyVersion, masterKey: masterKey))
    }
}

extension KDFParameters {
    /// The KDF policy as a ``VaultError``: readers check it before any Argon2 work, and writers
    /// hold themselves to the same bounds.
    func validatePolicy() throws {
        do {
            try validate()
        } catch CryptoError.kdfParametersRefused(let reason) {
            throw VaultError.kdfParametersRefused(reason)
        }
    }
}
