// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// What `jv info` shows; readable without the passphrase.
public struct VaultInfo: Sendable, Hashable {
    public let path: String
    public let vaultID: UUID
    /// The record-envelope format (FORMAT.md).
    public let formatVersion: Int
    /// Migrations applied to this file, and how many this binary knows.
    public let schemaVersion: Int
    public let supportedSchemaVersion: Int
    public let keyVersion: UInt32
    public let createdAt: Instant
    /// Argon2id parameters of the passphrase keyslot.
    public let kdf: KDFParameters
    public let hasRecoveryKey: Bool
    /// Record counts by kind (`entries`, …).
    public let counts: [String: Int]
}

extension Vault {
    /// Path, format and schema versions, KDF parameters and record counts. Needs no key.
    public func info() throws -> VaultInfo {
        let migrations = try database.appliedMigrations()
        return try database.read { db in
            let header = try VaultHeader.read(db, path: path)
            let slots = try Keyslot.readAll(db)
            guard let passphraseSlot = slots.first(where: { $0.kind == .passphrase }) else {
                throw VaultError.notAVault(path: path, reason: "it has no passphrase keyslot")
            }
            let rows = try RowCounts.of(SealedTable.all.map(\.name) + ["legacy_relation"], db)
            var counts: [String: Int] = [:]
            for table in SealedTable.all { counts[table.label] = rows[table.name] ?? 0 }
            // Relations of a vault not yet upgraded to sealed relations (FORMAT.md §11.4).
            counts["relations", default: 0] += rows["legacy_relation"] ?? 0
            return VaultInfo(path: path, vaultID: header.vaultID, formatVersion: header.formatVersion,
                             schemaVersion: migrations.count, supportedSchemaVersion: VaultDatabase.supportedSchemaVersion,
                             keyVersion: header.keyVersion, createdAt: Instant(millis: header.createdAt, utcOffsetSeconds: 0),
                             kdf: passphraseSlot.kdf, hasRecoveryKey: slots.contains { $0.kind == .recovery },
                             counts: counts)
        }
    }

    /// What ``VaultInfo/counts`` calls the records of `table` (`threads` for `chat_thread`), for people to
    /// read; nil for a table of no kind of record.
    public static func recordLabel(ofTable table: String) -> String? {
        SealedTable.named(table)?.label ?? (table == ManifestedTable.attachmentChunk.name ? SealedTable.rowsLabel(of: table) : nil)
    }
}
