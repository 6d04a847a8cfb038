// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// `DEVICE-ID/acks.jva` in the sync location (FORMAT.md §14.9): how far a device has applied
/// every other device's packs. A device removes its own old packs only once every device's
/// acks show them applied (and a snapshot holds what they said). Rewritten, through a temporary
/// name, when it changes; a MAC under the sync key of its key version makes it the device's.
struct SyncAcks: Equatable, Sendable {
    static let magic = Array("JVSYNCA\0".utf8)
    static let format: UInt16 = 1
    static let macDomain = Array("JVLT-sync-acks".utf8)

    let vaultID: UUID
    let device: UUID
    let keyVersion: UInt32
    let applied: [UUID: UInt64]

    /// `magic ‖ format u16 ‖ vault[16] ‖ device[16] ‖ key_version u32 ‖ n u16 ‖ n × (device[16] ‖ applied u64)`,
    /// devices in byte order.
    private var body: [UInt8] {
        var writer = ByteWriter(capacity: 64 + applied.count * 24)
        writer.raw(Self.magic)
        writer.u16(Self.format)
        writer.raw(vaultID.bytes)
        writer.raw(device.bytes)
        writer.u32(keyVersion)
        writer.u16(UInt16(clamping: applied.count))
        for (other, number) in applied.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }).prefix(Int(UInt16.max)) {
            writer.raw(other.bytes)
            writer.u64(number)
        }
        return writer.bytes
    }

    /// The body and its MAC (keyed BLAKE2b-256 under the sync key).
    func encoded(syncKey: SecureBytes) -> [UInt8] {
        let body = self.body
        return body + syncKey.withUnsafeBytes { Blake2b.hash(Self.macDomain + body, key: $0) }
    }

    init(vaultID: UUID, device: UUID, keyVersion: UInt32, applied: [UUID: UInt64]) {
        self.vaultID = vaultID
        self.device = device
        self.keyVersion = keyVersion
        self.applied = applied
    }

    /// Reads and authenticates an acks file; `keys` gives the keys of the version it names.
    init(parsing bytes: [UInt8], keys: (UInt32) throws -> VaultKeys) throws {
        var reader = ByteReader(bytes)
        func malformed() -> VaultError { VaultError.syncPackRefused("its acks file is malformed") }
        guard reader.raw(Self.magic.count) == Self.magic, reader.u16() == Self.format, let vault = reader.raw(16), let device = reader.raw(16),
              let keyVersion = reader.u32(), let count = reader.u16() else { throw malformed() }
        var applied: [UUID: UInt64] = [:]
        for _ in 0..<count {
            guard let other = reader.raw(16), let number = reader.u64() else { throw malformed() }
            applied[UUID(bytes: other)] = number
        }
        guard reader.remaining == 32 else { throw malformed() }
        self.init(vaultID: UUID(bytes: vault), device: UUID(bytes: device), keyVersion: keyVersion, applied: applied)
        let expected = try keys(keyVersion).syncKey.withUnsafeBytes { Blake2b.hash(Self.macDomain + Array(bytes.dropLast(32)), key: $0) }
        guard try SecureBytes(copying: expected).constantTimeEquals(try SecureBytes(copying: Array(bytes.suffix(32)))) else {
            throw VaultError.syncPackRefused("its acks file does not authenticate")
        }
    }
}
