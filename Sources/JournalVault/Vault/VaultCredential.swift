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
    /// The master key from whichever of `slots` `credential` opens.
    static func unwrap(_ slots: [Keyslot], with credential: VaultCredential, vaultID: UUID) throws -> (Keyslot, SecureBytes) {
        switch credential {
        case .passphrase(let secret):
            guard secret.count > 0 else { throw VaultError.wrongPassphrase }
            let normalized = try Passphrase.normalized(secret)
            for slot in slots where slot.kind == .passphrase {
                do {
                    return (slot, try slot.unwrap(passphrase: normalized, vaultID: vaultID))
                } catch VaultError.wrongPassphrase {
                    continue
                }
            }
            throw VaultError.wrongPassphrase
        case .recoveryKey(let key):
            for slot in slots where slot.kind == .recovery {
                do {
                    return (slot, try slot.unwrap(recoveryKey: key, vaultID: vaultID))
                } catch VaultError.wrongRecoveryKey {
                    continue
                }
            }
            throw VaultError.wrongRecoveryKey
        }
    }
}
