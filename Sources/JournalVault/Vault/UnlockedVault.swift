// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Synchronization
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
    /// The keys, and the keyslot they came through when they did (so it can be re-wrapped);
    /// replaced when another process's `jv rekey` is followed (``followKeyRotation(_:)``).
    private let unlocked: Mutex<(keys: VaultKeys, slot: UnlockedSlot?)>
    /// The session this vault was unlocked through, whose agent answers searches from its index
    /// and is told of this vault's writes; nil when it was unlocked otherwise.
    let session: SessionEndpoint?

    init(vault: Vault, keys: VaultKeys, unlockedSlot: UnlockedSlot?, session: SessionEndpoint? = nil) {
        self.vault = vault
        unlocked = Mutex((keys, unlockedSlot))
        self.session = session
    }

    /// The keys of the vault as the current transaction sees it.
    var keys: VaultKeys { unlocked.withLock { $0.keys } }
    var unlockedSlot: UnlockedSlot? { unlocked.withLock { $0.slot } }

    /// The vault's file, each of whose transactions first follows a rotation of the master key
    /// committed since this vault was unlocked.
    var database: KeyFollowingDatabase { KeyFollowingDatabase(base: vault.database, journal: self) }

    /// Brings the keys up to the key version the vault has in the transaction `db`, so that keys
    /// and records always come from one snapshot: a `jv rekey` of another process that committed
    /// after this vault was unlocked re-encrypted every record under a new key. The keyslot this
    /// vault was unlocked through is opened again, in the same snapshot, with the key-encryption
    /// key it was opened with (a rekey keeps the passphrase's salt and cost, and re-wraps a kept
    /// recovery key under its own); a vault unlocked otherwise (through a session, which the
    /// rekey ended, or with a recovery key it replaced) cannot follow, and says so.
    func followKeyRotation(_ db: Database) throws {
        let (keys, held) = unlocked.withLock { ($0.keys, $0.slot) }
        guard let stored = try Int64.fetchOne(db.cachedStatement(sql: "SELECT key_version FROM vault_header")),
              stored != Int64(keys.keyVersion) else { return }
        guard let held, let version = UInt32(exactly: stored),
              let rewrapped = try Keyslot.readAll(db).first(where: { $0.slot == held.slot.slot && $0.kind == held.slot.kind }),
              rewrapped.keyVersion == version, let masterKey = rewrapped.unwrap(kek: held.kek, vaultID: keys.vaultID) else {
            throw VaultError.keyRotatedMeanwhile
        }
        let followed = try VaultKeys(vaultID: keys.vaultID, keyVersion: version, masterKey: masterKey)
        unlocked.withLock { $0 = (followed, UnlockedSlot(slot: rewrapped, masterKey: masterKey, kek: held.kek)) }
    }

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

    /// Replaces the recovery key in one step: ``addRecoveryKey()`` then
    /// ``retireRecoveryKeys(keeping:)``. A program that shows the key to a person should call the
    /// two itself and show the key in between, so that a crash never leaves a key nobody saw.
    public func replaceRecoveryKey() throws -> RecoveryKey {
        let added = try addRecoveryKey()
        try retireRecoveryKeys(keeping: added)
        return added.key
    }

    /// Adds a keyslot for a new recovery key beside the current one, which keeps working until
    /// ``retireRecoveryKeys(keeping:)``: show the new key between the two calls.
    ///
    /// ```swift
    /// let added = try journal.addRecoveryKey()
    /// print(added.key.text)
    /// try journal.retireRecoveryKeys(keeping: added)
    /// ```
    ///
    /// Interrupted hand-overs leave more than one recovery key; at most three are kept. Past
    /// that jv cannot tell which one the person holds, so it asks to be unlocked with one of
    /// them (which it then keeps) and refuses otherwise.
    public func addRecoveryKey() throws -> AddedRecoveryKey {
        let recoveryKey = try RecoveryKey.generate()
        let slot: UInt8 = try write { db in
            var used = Set(try Keyslot.readAll(db).filter { $0.kind == .recovery }.map(\.slot))
            if !Keyslot.recoverySlots.contains(where: { !used.contains($0) }) {
                guard let held = unlockedSlot?.slot, held.kind == .recovery else { throw VaultError.tooManyRecoveryKeys }
                try db.execute(sql: "DELETE FROM keyslot WHERE kind = 'recovery' AND slot <> ?", arguments: [Int(held.slot)])
                used = [held.slot]
            }
            let free = Keyslot.recoverySlots.first { !used.contains($0) } ?? Keyslot.recoverySlot
            try Keyslot.wrap(keys.masterKey, recoveryKey: recoveryKey, keyVersion: keys.keyVersion, vaultID: keys.vaultID, slot: free).save(db)
            return free
        }
        return AddedRecoveryKey(key: recoveryKey, slot: slot)
    }

    /// Removes every recovery keyslot but the one ``addRecoveryKey()`` added: the earlier
    /// recovery keys stop working.
    public func retireRecoveryKeys(keeping added: AddedRecoveryKey) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM keyslot WHERE kind = 'recovery' AND slot <> ?", arguments: [Int(added.slot)])
        }
    }
}

/// A recovery key ``UnlockedVault/addRecoveryKey()`` added: it opens the vault already.
public struct AddedRecoveryKey: Sendable {
    /// The key, to show once.
    public let key: RecoveryKey
    let slot: UInt8
}
