// SPDX-License-Identifier: Apache-2.0
/// The vault's schema migrations, compiled into the binary from the numbered `.sql` files
/// beside this one (never read from the source tree at run time).
///
/// ```swift
/// for migration in SchemaMigrations.all { print(migration.identifier) }
/// ```
public enum SchemaMigrations {
    /// One numbered migration: its identifier (the file name without `.sql`) and its SQL.
    public struct Migration: Sendable {
        public let identifier: String
        public let sql: String
    }

    /// Every migration, oldest first. The schema version of a vault is the count applied.
    public static let all: [Migration] = [
        Migration(identifier: "0001_entries", sql: String(decoding: PackageResources._001_entries_sql, as: UTF8.self)),
        Migration(identifier: "0002_ai", sql: String(decoding: PackageResources._002_ai_sql, as: UTF8.self)),
        Migration(identifier: "0003_chats", sql: String(decoding: PackageResources._003_chats_sql, as: UTF8.self)),
        Migration(identifier: "0004_entry_seq", sql: String(decoding: PackageResources._004_entry_seq_sql, as: UTF8.self)),
        Migration(identifier: "0005_manifest", sql: String(decoding: PackageResources._005_manifest_sql, as: UTF8.self)),
        Migration(identifier: "0006_sync", sql: String(decoding: PackageResources._006_sync_sql, as: UTF8.self)),
        Migration(identifier: "0007_graph_ids", sql: String(decoding: PackageResources._007_graph_ids_sql, as: UTF8.self)),
        Migration(identifier: "0008_attachments", sql: String(decoding: PackageResources._008_attachments_sql, as: UTF8.self)),
        Migration(identifier: "0009_measures", sql: String(decoding: PackageResources._009_measures_sql, as: UTF8.self)),
    ]
}
