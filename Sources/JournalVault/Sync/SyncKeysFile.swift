// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// `keys/DEVICE-ID` in the sync location (FORMAT.md §14.5): a device's keyslots as they stand,
/// so that a new device joins with that device's passphrase or the recovery key. The keyslots
/// are the vault's own (each wraps the master key under Argon2id or the recovery key); a MAC
/// under the sync key makes the file the vault's.
struct SyncKeysFile: Sendable {
    static let magic = Array("JVSYNCK\0".utf8)
    static let format: UInt16 = 1
    static let macDomain = Array("JVLT-sync-keys".utf8)
    static let maximumSlots = 4

    let vaultID: UUID
    let device: UUID
    let keyVersion: UInt32
    let slots: [Keyslot]

    /// `magic ‖ format u16 ‖ vault[16] ‖ device[16] ‖ key_version u32 ‖ n u8 ‖ n × keyslot`.
    private var body: [UInt8] {
        var writer = ByteWriter(capacity: 64 + slots.count * Keyslot.encodedLength)
        writer.raw(Self.magic)
        writer.u16(Self.format)
        writer.raw(vaultID.bytes)
        writer.raw(device.bytes)
        writer.u32(keyVersion)
        writer.u8(UInt8(slots.count))
        for slot in slots { writer.raw(slot.encoded) }
        return writer.bytes
    }

    /// The body and its MAC (keyed BLAKE2b-256 under the sync key).
    func encoded(syncKey: SecureBytes) -> [UInt8] {
        let body = self.body
        return body + syncKey.withUnsafeBytes { Blake2b.hash(Self.macDomain + body, key: $0) }
    }

    /// Parses a keys file; its MAC is checked by ``unlock(with:)`` once the key is known.
    init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        func malformed() -> VaultError { VaultError.syncPackRefused("its keys file is malformed") }
        guard reader.raw(Self.magic.count) == Self.magic, reader.u16() == Self.format, let vault = reader.raw(16), let device = reader.raw(16),
              let keyVersion = reader.u32(), let count = reader.u8(), (1...Self.maximumSlots).contains(Int(count)) else { throw malformed() }
        var slots: [Keyslot] = []
        for _ in 0..<count {
            guard let bytes = reader.raw(Keyslot.encodedLength), let slot = Keyslot(encoded: Data(bytes)) else { throw malformed() }
            slots.append(slot)
        }
        guard reader.remaining == 32 else { throw malformed() }
        self.init(vaultID: UUID(bytes: vault), device: UUID(bytes: device), keyVersion: keyVersion, slots: slots)
        mac = Array(bytes.suffix(32))
    }

    init(vaultID: UUID, device: UUID, keyVersion: UInt32, slots: [Keyslot]) {
        self.vaultID = vaultID
        self.device = device
        self.keyVersion = keyVersion
        self.slots = slots
    }

    private var mac: [UInt8] = []

    /// The master key, from the passphrase or recovery key; the file's MAC is checked with it.
    func unlock(with credential: VaultCredential) throws -> UnlockedSlot {
        let unlocked = try Keyslot.unwrap(slots, with: credential, vaultID: vaultID)
        guard try authenticates(with: VaultKeys(vaultID: vaultID, keyVersion: keyVersion, masterKey: unlocked.masterKey)) else {
            throw VaultError.syncPackRefused("its keys file does not authenticate")
        }
        return unlocked
    }

    /// Whether the file's MAC is right under `keys` (of its vault and key version).
    func authenticates(with keys: VaultKeys) throws -> Bool {
        guard keys.vaultID == vaultID, keys.keyVersion == keyVersion else { return false }
        let expected = keys.syncKey.withUnsafeBytes { Blake2b.hash(Self.macDomain + body, key: $0) }
        return try SecureBytes(copying: expected).constantTimeEquals(try SecureBytes(copying: mac))
    }
}
