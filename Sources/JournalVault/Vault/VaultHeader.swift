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
        let idBytes: Data = row[0]
        guard idBytes.count == 16, let keyVersion = UInt32(exactly: row[2] as Int64) else {
            throw VaultError.notAVault(path: path, reason: "the vault header is malformed")
        }
        let format: Int = row[1]
        guard format == formatVersion else {
            throw VaultError.notAVault(path: path, reason: "record format \(format) is not supported by this jv")
        }
        let uuid = idBytes.withUnsafeBytes { raw in
            UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
        }
        return VaultHeader(vaultID: uuid, formatVersion: format, keyVersion: keyVersion, createdAt: row[3])
    }

    func insert(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO vault_header (singleton, vault_id, format_version, key_version, created_at) VALUES (1, ?, ?, ?, ?)",
                       arguments: [Data(vaultID.bytes), formatVersion, Int64(keyVersion), createdAt])
    }
}

extension Keyslot {
    static func readAll(_ db: Database) throws -> [Keyslot] {
        try Row.fetchAll(db, sql: "SELECT slot, kind, data FROM keyslot ORDER BY slot").map { row in
            let slot: Int = row[0]
            guard let keyslot = Keyslot(encoded: row[2]), Int(keyslot.slot) == slot,
                  keyslot.kind.name == (row[1] as String) else {
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
