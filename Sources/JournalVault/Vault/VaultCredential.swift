// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// What unlocks a vault or a backup: the passphrase or the recovery key.
public enum VaultCredential: Sendable {
    case passphrase(SecureBytes)
    case recoveryKey(RecoveryKey)
}

extension Vault {
    /// Unlocks with either credential.
    public func unlock(_ credential: VaultCredential) throws -> UnlockedVault {
        switch credential {
        case .passphrase(let secret): try unlock(passphrase: secret)
        case .recoveryKey(let key): try unlock(recoveryKey: key)
        }
    }
}

extension Keyslot {
    /// The master key from whichever of `slots` `credential` opens, with that slot and the
    /// key-encryption key that opened it.
    /// `damageProbe`: see ``unwrapWithKEK(passphrase:vaultID:damageProbe:)``.
    static func unwrap(_ slots: [Keyslot], with credential: VaultCredential, vaultID: UUID,
                       damageProbe: DamageProbe? = nil) throws -> UnlockedSlot {
        switch credential {
        case .passphrase(let secret):
            guard secret.count > 0 else { throw VaultError.wrongPassphrase }
            guard slots.contains(where: { $0.kind == .passphrase }) else { throw VaultError.keyDataDamaged("it has no passphrase keyslot") }
            let normalized = try Passphrase.normalized(secret)
            for slot in slots where slot.kind == .passphrase {
                do {
                    let (masterKey, kek) = try slot.unwrapWithKEK(passphrase: normalized, vaultID: vaultID, damageProbe: damageProbe)
                    return UnlockedSlot(slot: slot, masterKey: masterKey, kek: kek)
                } catch VaultError.wrongPassphrase {
                    continue
                }
            }
            throw VaultError.wrongPassphrase
        case .recoveryKey(let key):
            guard slots.contains(where: { $0.kind == .recovery }) else { throw VaultError.keyDataDamaged("it has no recovery keyslot") }
            for slot in slots where slot.kind == .recovery {
                do {
                    let (masterKey, kek) = try slot.unwrapWithKEK(recoveryKey: key, vaultID: vaultID, damageProbe: damageProbe)
                    return UnlockedSlot(slot: slot, masterKey: masterKey, kek: kek)
                } catch VaultError.wrongRecoveryKey {
                    continue
                }
            }
            throw VaultError.wrongRecoveryKey
        }
    }
}

/// The keyslot a credential opened: with its key-encryption key the slot can be re-wrapped
/// (manifest upgrade, rekey) without asking for the secret again.
struct UnlockedSlot: Sendable {
    let slot: Keyslot
    let masterKey: SecureBytes
    let kek: SecureBytes
}
