// SPDX-License-Identifier: Apache-2.0
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

    init(database: VaultDatabase) {
        self.path = database.path
        self.database = database
    }

    /// How a vault is opened.
    public enum Access: Sendable {
        /// Reads and writes (the default). Needs write access to the file and to its folder, where
        /// SQLite keeps its `-wal` and `-shm` files; without it, opening fails at once with
        /// ``VaultError/readOnly(path:detail:)``, before any passphrase is asked for.
        case readWrite
        /// Reads only: no byte of the file changes, nothing is left beside it that was not there,
        /// and a vault on read-only media or without write permission (a file chmod 0400, a
        /// folder chmod 0500) opens. Writes fail with ``VaultError/readOnly(path:detail:)``.
        /// Changes another writer left in the write-ahead log are read, never folded in. A vault
        /// from an older jv is upgraded first where it can be written (the one write), and
        /// refused with ``VaultError/readOnly(path:detail:)`` where it cannot.
        case readOnly
    }

    /// Opens the vault at `path` without unlocking it: `.readWrite` (the default) migrates an
    /// older schema forward; `.readOnly` writes nothing (see ``Access``).
    ///
    /// ```swift
    /// let vault = try Vault.open(at: "/media/backup/journal.vault", access: .readOnly)
    /// let counts = try vault.calendar(year: 2026)            // no passphrase
    /// for entry in try vault.unlock(passphrase: secret).entries() { print(entry.title) }
    /// ```
    public static func open(at path: String, access: Access = .readWrite) throws -> Vault {
        let vault = Vault(database: try VaultDatabase.open(path: path, access: access))
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
        let keys = try VaultKeys(vaultID: header.vaultID, keyVersion: header.keyVersion, masterKey: masterKey)
        let database = try VaultDatabase.create(path: path) { db in
            try header.insert(db)
            try passphraseSlot.save(db)
            try recoverySlot.save(db)
            try Manifest.empty(keyVersion: header.keyVersion, instance: UUID()).save(db, keys: keys)
            // No node or relation yet: every one is written under its derived id.
            try DerivedGraphIDs.markInForce(db)
        }
        return (UnlockedVault(vault: Vault(database: database), keys: keys, unlockedSlot: nil), recoveryKey)
    }

    /// Unlocks with the passphrase. Throws ``VaultError/wrongPassphrase`` (nothing changes) or
    /// ``VaultError/kdfParametersRefused(_:)`` before any Argon2 work if the stored cost is outside policy.
    public func unlock(passphrase: SecureBytes) throws -> UnlockedVault {
        try unlock(verifying: .passphrase(passphrase))
    }

    /// Unlocks with the recovery key shown at `jv init` or by `jv recovery-key`.
    public func unlock(recoveryKey: RecoveryKey) throws -> UnlockedVault {
        try unlock(verifying: .recoveryKey(recoveryKey))
    }

    private func unlock(verifying credential: VaultCredential) throws -> UnlockedVault {
        let (header, slots) = try headerAndSlots()
        let unlocked = try Keyslot.unwrap(slots, with: credential, vaultID: header.vaultID) { candidate in
            self.opensARecord(masterKey: candidate, keyVersion: header.keyVersion)
        }
        guard unlocked.slot.keyVersion == header.keyVersion else { throw VaultError.corruptKeyslot(slot: Int(unlocked.slot.slot)) }
        // The key version of the snapshot the keyslot came from: a `jv rekey` may commit during
        // the Argon2 work, and the header read again would name the new version for the old key.
        return UnlockedVault(vault: self, keys: try VaultKeys(vaultID: header.vaultID, keyVersion: header.keyVersion, masterKey: unlocked.masterKey),
                             unlockedSlot: unlocked)
    }

    /// Whether `masterKey` opens a stored record (the first row of the first sealed table that
    /// has one): proof that it is this vault's master key, whatever its keyslots say. Record
    /// keys do not depend on the vault id, so a changed id cannot hide it.
    func opensARecord(masterKey: SecureBytes, keyVersion: UInt32) -> Bool {
        guard let header = try? header(),
              let keys = try? VaultKeys(vaultID: header.vaultID, keyVersion: keyVersion, masterKey: masterKey) else { return false }
        let opened = try? database.read { db -> Bool in
            for table in SealedTable.all {
                guard let row = try Row.fetchOne(db, sql: "SELECT \(table.selection) FROM \(table.name) LIMIT 1") else { continue }
                return (try? SealedRow(table, row: row).open(keys: keys)) != nil
            }
            return false
        }
        return opened ?? false
    }

    /// Unlocks with a master key obtained elsewhere (a backup's keyslots), or from `slot`.
    func unlock(masterKey: SecureBytes, slot: UnlockedSlot? = nil) throws -> UnlockedVault {
        let header = try header()
        return UnlockedVault(vault: self, keys: try VaultKeys(vaultID: header.vaultID, keyVersion: header.keyVersion, masterKey: masterKey),
                             unlockedSlot: slot)
    }

    /// Closes the file: the write-ahead log is folded in and removed.
    func close() throws {
        try VaultDatabase.translatingErrors(path: path) { try database.pool.close() }
    }

    func header() throws -> VaultHeader {
        try database.read { db in try VaultHeader.read(db, path: path) }
    }

    func headerAndSlots() throws -> (VaultHeader, [Keyslot]) {
        try database.read { db in (try VaultHeader.read(db, path: path), try Keyslot.readAll(db)) }
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
