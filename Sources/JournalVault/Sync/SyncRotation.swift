// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// `DEVICE-ID/rotation-TO.jvr` in the sync location (FORMAT.md §14.8): written by the device
/// that ran `jv rekey` from key version `from` to `to`, so that the other devices follow. It
/// holds the new master key wrapped under the old sync key (a device still at `from` opens it
/// and re-encrypts its vault under the new key), and the old master key wrapped under the new
/// sync key (a device already at `to` opens packs that others made under `from` before they
/// followed). Anyone who holds either key reads both: what that means for a leaked old key is
/// in SECURITY.md.
struct SyncRotation: Sendable {
    static let magic = Array("JVSYNCR\0".utf8)
    static let format: UInt16 = 1
    static let forwardDomain = Array("JVLT-sync-rotation".utf8)
    static let backDomain = Array("JVLT-sync-retired".utf8)
    private static let boxLength = AEAD.overhead + SubkeyDerivation.keyLength

    let vaultID: UUID
    let device: UUID
    let from: UInt32
    let to: UInt32
    /// The new master key under the sync key of `from`.
    let forward: [UInt8]
    /// The old master key under the sync key of `to`.
    let back: [UInt8]

    /// `magic ‖ format u16 ‖ vault[16] ‖ device[16] ‖ from u32 ‖ to u32`: the associated data of both boxes.
    private var header: [UInt8] { Self.header(vaultID: vaultID, device: device, from: from, to: to) }

    private static func header(vaultID: UUID, device: UUID, from: UInt32, to: UInt32) -> [UInt8] {
        var writer = ByteWriter(capacity: 48)
        writer.raw(magic)
        writer.u16(format)
        writer.raw(vaultID.bytes)
        writer.raw(device.bytes)
        writer.u32(from)
        writer.u32(to)
        return writer.bytes
    }

    var encoded: [UInt8] { header + forward + back }

    /// The rotation from `old` to `new`, made by `device`.
    init(device: UUID, from old: VaultKeys, to new: VaultKeys) throws {
        vaultID = old.vaultID
        self.device = device
        from = old.keyVersion
        to = new.keyVersion
        let header = Self.header(vaultID: old.vaultID, device: device, from: old.keyVersion, to: new.keyVersion)
        forward = try old.syncKey.withUnsafeBytes { key in
            try new.masterKey.withUnsafeBytes { try AEAD.seal($0, key: key, associatedData: Self.forwardDomain + header) }
        }
        back = try new.syncKey.withUnsafeBytes { key in
            try old.masterKey.withUnsafeBytes { try AEAD.seal($0, key: key, associatedData: Self.backDomain + header) }
        }
    }

    init(parsing bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        guard reader.raw(Self.magic.count) == Self.magic, reader.u16() == Self.format, let vault = reader.raw(16), let device = reader.raw(16),
              let from = reader.u32(), let to = reader.u32(), to == from + 1,
              let forward = reader.raw(Self.boxLength), let back = reader.raw(Self.boxLength), reader.remaining == 0 else {
            throw VaultError.syncPackRefused("its key rotation file is malformed")
        }
        vaultID = UUID(bytes: vault)
        self.device = UUID(bytes: device)
        self.from = from
        self.to = to
        self.forward = forward
        self.back = back
    }

    /// The keys of `to`, opened with the keys of `from`.
    func newKeys(opening old: VaultKeys) throws -> VaultKeys {
        guard old.vaultID == vaultID, old.keyVersion == from else { throw VaultError.syncPackRefused("its key rotation file is of another vault or key") }
        let master = try open(forward, domain: Self.forwardDomain, with: old.syncKey)
        return try VaultKeys(vaultID: vaultID, keyVersion: to, masterKey: master)
    }

    /// The keys of `from`, opened with the keys of `to`.
    func oldKeys(opening new: VaultKeys) throws -> VaultKeys {
        guard new.vaultID == vaultID, new.keyVersion == to else { throw VaultError.syncPackRefused("its key rotation file is of another vault or key") }
        let master = try open(back, domain: Self.backDomain, with: new.syncKey)
        return try VaultKeys(vaultID: vaultID, keyVersion: from, masterKey: master)
    }

    private func open(_ box: [UInt8], domain: [UInt8], with syncKey: SecureBytes) throws -> SecureBytes {
        do {
            return try syncKey.withUnsafeBytes { key in
                try AEAD.openKey(box, length: SubkeyDerivation.keyLength, key: key, associatedData: domain + header)
            }
        } catch {
            throw VaultError.syncPackRefused("its key rotation file does not authenticate")
        }
    }

    /// Every rotation file in the vault's part of the location to key version `version`.
    static func files(_ layout: SyncLayout, to version: UInt32) -> [String] {
        layout.devices().map { layout.rotationFile(of: $0, to: version) }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// The first rotation to `version` in the location that `authenticates` accepts.
    static func find(_ layout: SyncLayout, to version: UInt32, _ authenticates: (SyncRotation) throws -> VaultKeys) -> (SyncRotation, VaultKeys)? {
        for path in files(layout, to: version) {
            guard let data = SyncLocationFile.contents(path), let rotation = try? SyncRotation(parsing: Array(data)),
                  let keys = try? authenticates(rotation) else { continue }
            return (rotation, keys)
        }
        return nil
    }

    // MARK: Stored until published

    /// Kept in the vault by the device that rotated, in the rekey's transaction, until its
    /// sync writes it to the location (and after: it is written again if missing).
    func save(_ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO sync_rotation (to_version, file) VALUES (?, ?)", arguments: [Int64(to), Data(encoded)])
    }

    static func stored(_ db: Database) throws -> [(version: UInt32, file: Data)] {
        try Row.fetchAll(db, sql: "SELECT to_version, file FROM sync_rotation ORDER BY to_version").compactMap { row in
            guard let version = row[0] as Int64?, let file = row[1] as Data? else { return nil }
            return (UInt32(clamping: version), file)
        }
    }
}
