import Foundation
import GRDB
import VaultCrypto

/// An unlocked vault: reads and writes records. Get one from ``Vault/unlock(passphrase:)``,
/// ``Vault/unlock(recoveryKey:)`` or ``Vault/create(at:passphrase:kdf:)``. Keys live in secure
/// memory until the last reference is released.
///
/// ```swift
/// let journal = try Vault.open(at: path).unlock(passphrase: secret)
/// let entry = try journal.addEntry("Walked to the lake. #outside")
/// try journal.changePassphrase(to: newSecret)
/// ```
public final class UnlockedVault: Sendable {
    /// The locked handle (path, info, calendar).
    public let vault: Vault
    let keys: VaultKeys
    /// The keyslot this vault was unlocked through, when it was (so it can be re-wrapped).
    let unlockedSlot: UnlockedSlot?

    init(vault: Vault, keys: VaultKeys, unlockedSlot: UnlockedSlot?) {
        self.vault = vault
        self.keys = keys
        self.unlockedSlot = unlockedSlot
    }

    var database: VaultDatabase { vault.database }

    /// Re-wraps the master key under a new passphrase (and optionally new Argon2id costs).
    /// Records are not touched.
    public func changePassphrase(to passphrase: SecureBytes, kdf: KDFParameters? = nil) throws {
        guard passphrase.count > 0 else { throw VaultError.emptyPassphrase }
        let parameters = try kdf ?? currentPassphraseKDF()
        try parameters.validatePolicy()
        let slot = try Keyslot.wrap(keys.masterKey, passphrase: try Passphrase.normalized(passphrase),
                                    parameters: parameters, keyVersion: keys.keyVersion, vaultID: keys.vaultID)
        try write { db in try slot.save(db) }
    }

    /// The Argon2id cost of the current passphrase keyslot (kept when none is asked for).
    private func currentPassphraseKDF() throws -> KDFParameters {
        guard let slot = try vault.headerAndSlots().1.first(where: { $0.kind == .passphrase }) else {
            throw VaultError.notAVault(path: vault.path, reason: "it has no passphrase keyslot")
        }
        return slot.kdf
    }

    /// Replaces the recovery keyslot with one for a new recovery key, which the caller shows
    /// once; the old recovery key stops working.
    public func replaceRecoveryKey() throws -> RecoveryKey {
        let recoveryKey = try RecoveryKey.generate()
        let slot = try Keyslot.wrap(keys.masterKey, recoveryKey: recoveryKey, keyVersion: keys.keyVersion, vaultID: keys.vaultID)
        try write { db in try slot.save(db) }
        return recoveryKey
    }
}
