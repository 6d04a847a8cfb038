// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// The `vault_header` row: the vault's identity and current key version.
struct VaultHeader: Sendable {
    /// The record-envelope format this binary reads and writes.
    static let formatVersion = 1

    let vaultID: UUID
    let formatVersion: Int
    let keyVersion: UInt32
    let createdAt: Int64

    static func read(_ db: Database, path: String) throws -> VaultHeader {
        guard let row = try Row.fetchOne(db, sql: "SELECT vault_id, format_version, key_version, created_at FROM vault_header") else {
            throw VaultError.notAVault(path: path, reason: "the vault header is missing")
        }
        guard let idBytes = try? row.decode(Data.self, atIndex: 0), idBytes.count == 16,
              let keyVersion = (try? row.decode(Int64.self, atIndex: 2)).flatMap({ UInt32(exactly: $0) }),
              let format = try? row.decode(Int.self, atIndex: 1), let createdAt = try? row.decode(Int64.self, atIndex: 3) else {
            throw VaultError.notAVault(path: path, reason: "the vault header is malformed")
        }
        guard format == formatVersion else {
            throw VaultError.notAVault(path: path, reason: "record format \(format) is not supported by this jv")
        }
        let uuid = idBytes.withUnsafeBytes { raw in
            UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
        }
        return VaultHeader(vaultID: uuid, formatVersion: format, keyVersion: keyVersion, createdAt: createdAt)
    }

    func insert(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO vault_header (singleton, vault_id, format_version, key_version, created_at) VALUES (1, ?, ?, ?, ?)",
                       arguments: [Data(vaultID.bytes), formatVersion, Int64(keyVersion), createdAt])
    }
}

extension Keyslot {
    static func readAll(_ db: Database) throws -> [Keyslot] {
        try Row.fetchAll(db, sql: "SELECT slot, kind, data FROM keyslot ORDER BY slot").map { row in
            let slot = (try? row.decode(Int.self, atIndex: 0)) ?? -1
            guard let data = try? row.decode(Data.self, atIndex: 2), let keyslot = Keyslot(encoded: data), Int(keyslot.slot) == slot,
                  keyslot.kind.name == (try? row.decode(String.self, atIndex: 1)) else {
                throw VaultError.corruptKeyslot(slot: slot)
            }
            return keyslot
        }
    }

    /// Inserts or replaces this slot's row.
    func save(_ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO keyslot (slot, kind, data) VALUES (?, ?, ?)",
                       arguments: [Int(slot), kind.name, encoded])
    }
}
