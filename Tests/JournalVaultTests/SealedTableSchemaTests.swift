// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
@testable import JournalVault

/// `SealedTable` is the one description of every sealed table: these tests hold each description
/// against the schema the migrations make (columns, types, foreign keys, unique indexes) and
/// against the manifest and sync triggers' argument lists, and fail when a table or a column is
/// added to the schema without its description.
@Suite struct SealedTableSchemaTests {
    /// The tables that are no sealed table and derive from none: the vault's own bookkeeping.
    static let infrastructure: Set<String> = [
        "grdb_migrations", "vault_header", "keyslot", "manifest", "legacy_relation", "graph_ids_derived",
        "sync_device", "sync_peer", "sync_pending", "sync_record", "sync_parked", "sync_rotation",
    ]

    /// The schema of a vault made by this release, and of one upgraded from the first release's
    /// file: both must be what the descriptions say.
    static func schemas() throws -> [(String, DatabaseQueue, TemporaryFolder)] {
        let fresh = try TemporaryVault()
        let folder = try TemporaryFolder()
        let upgraded = folder.file("version1.vault")
        try FileManager.default.copyItem(atPath: MigrationUpgradeTests.fixtures.appendingPathComponent("version1.vault").path, toPath: upgraded)
        _ = try Vault.open(at: upgraded)
        return [("new vault", try DatabaseQueue(path: fresh.path), fresh.folder), ("upgraded vault", try DatabaseQueue(path: upgraded), folder)]
    }

    @Test func wireIDsAndManifestOrderAreTheFormats() {
        // FORMAT.md §14.3 names tables by these bytes, §11 digests tables in this order.
        #expect(SealedTable.all.map(\.wireID) == [0, 1, 2, 3, 4, 5, 7, 6, 8])
        #expect(SealedTable.all.map(\.name) == ["entry", "analysis", "knowledge_node", "knowledge_relation", "chat_thread", "chat_message",
                                                "attachment_blob", "attachment", "measure"])
        // Schema 8 appended the attachments' tables after the tag index, so that a manifest of the
        // tables before them is a prefix (FORMAT.md §11.2).
        // Schema 9 appended the measures after them, likewise.
        #expect(ManifestedTable.all.map(\.name) == ["entry", "analysis", "knowledge_node", "knowledge_relation", "chat_thread", "chat_message",
                                                    "entry_tag", "attachment_blob", "attachment", "attachment_chunk", "measure"])
        #expect(ManifestedTable.beforeAttachments.count == 7)
        #expect(ManifestedTable.listings.map(\.count) == [7, 10, 11])
        #expect(ManifestedTable.entry.columns.first == "seq")
        for table in SealedTable.all {
            #expect(SealedTable.wire(table.wireID) == table)
            #expect(SealedTable.named(table.name) == table)
        }
        #expect(SealedTable.wire(9) == nil)
    }

    @Test func columnsAndTypesAreTheSchemas() throws {
        for (vault, queue, _) in try Self.schemas() {
            try queue.read { db in
                for table in SealedTable.all {
                    let info = try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\" FROM pragma_table_info(?) ORDER BY cid", arguments: [table.name])
                    let stored = info.map { "\($0[0] as String) \($0[1] as String)\(($0[2] as Int) == 1 ? " NOT NULL" : "")" }
                    let described = (table.rowKey.map { ["\($0) INTEGER"] } ?? [])
                        + table.schema.map { "\($0.name) \($0.type.rawValue)\($0.nullable ? "" : " NOT NULL")" }
                    #expect(stored == described, "\(vault): \(table.name)")
                    #expect(ManifestedTable(table).columns == info.map { $0[0] as String }, "\(vault): \(table.name) manifest columns")
                }
            }
        }
    }

    @Test func parentsAndIdentitiesAreTheSchemas() throws {
        for (vault, queue, _) in try Self.schemas() {
            try queue.read { db in
                for table in SealedTable.all {
                    let keys = try Row.fetchAll(db, sql: "SELECT \"from\", \"table\", on_delete FROM pragma_foreign_key_list(?)", arguments: [table.name])
                        .map { "\($0[0] as String) → \($0[1] as String) \($0[2] as String)" }
                    #expect(Set(keys) == Set(table.parents.map { "\($0.column) → \($0.tableName) \($0.onDelete.rawValue)" }), "\(vault): \(table.name)")

                    // Unique indexes besides the id's: the identity, and the one active thread
                    // (`is_active`, the device-local column).
                    var identities: [[String]] = []
                    for index in try Row.fetchAll(db, sql: "SELECT name, partial FROM pragma_index_list(?) WHERE \"unique\" = 1", arguments: [table.name]) {
                        let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [index[0] as String])
                        if columns == ["id"] { continue }
                        if (index[1] as Int) == 1 {
                            #expect(columns == table.deviceLocal.map(\.column), "\(vault): \(table.name) partial unique index")
                        } else {
                            identities.append(columns)
                        }
                    }
                    // A blob's `stream_id` is unique for its chunks' foreign key, and random: no identity.
                    let streamKey: [[String]] = table == .attachmentBlob ? [["stream_id"]] : []
                    #expect(Set(identities) == Set((table.identity.isEmpty ? [] : [table.identity]) + streamKey), "\(vault): \(table.name)")
                }
            }
        }
    }

    @Test func triggersPassTheDescribedColumns() throws {
        for (vault, queue, _) in try Self.schemas() {
            try queue.read { db in
                for table in ManifestedTable.all {
                    for (event, expected) in [("insert", table.columns.map { "NEW.\($0)" }), ("delete", table.columns.map { "OLD.\($0)" }),
                                              ("update", table.columns.map { "OLD.\($0)" } + table.columns.map { "NEW.\($0)" })] {
                        let sql = try #require(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                                    arguments: ["\(table.name)_manifest_\(event)"]), "\(vault): \(table.name) \(event)")
                        #expect(sql.contains("'\(table.name)'"), "\(vault): \(table.name)_manifest_\(event)")
                        #expect(Self.columnArguments(of: sql) == expected, "\(vault): \(table.name)_manifest_\(event)")
                    }
                }
                for table in SealedTable.all {
                    for event in ["insert", "delete", "update"] {
                        let sql = try #require(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                                    arguments: ["\(table.name)_sync_\(event)"]), "\(vault): \(table.name) sync \(event)")
                        #expect(sql.contains("tbl = '\(table.name)'"), "\(vault): \(table.name)_sync_\(event)")
                        if event == "update" {
                            // A change of a device-local column alone is no change to send.
                            let local = Set(table.deviceLocal.map(\.column))
                            let watched = table.columns.filter { $0 != "id" && !local.contains($0) }
                            if local.isEmpty {
                                #expect(!sql.contains("UPDATE OF"), "\(vault): \(table.name)_sync_update")
                            } else {
                                #expect(sql.contains("UPDATE OF \(watched.joined(separator: ", ")) ON"), "\(vault): \(table.name)_sync_update")
                            }
                        }
                    }
                }
            }
        }
    }

    /// A content goes with the last attachment naming it, in its table or parked by sync (FORMAT.md
    /// §1.12): both release triggers ask both, and sync_parked names a parked attachment's blob.
    @Test func contentIsReleasedOnlyWhenNoAttachmentNamesItTableOrParked() throws {
        let column = try #require(SealedTable.attachment.parents.first { $0.table == .attachmentBlob }?.column)
        for (vault, queue, _) in try Self.schemas() {
            try queue.read { db in
                #expect(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('sync_parked') ORDER BY cid") == ["tbl", "id", "change", "blob_id"],
                        "\(vault)")
                for trigger in ["attachment_release", "attachment_parked_release"] {
                    let sql = try #require(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                               arguments: [trigger]), "\(vault): \(trigger)")
                    #expect(sql.contains("FROM attachment WHERE \(column) = OLD.blob_id") && sql.contains("FROM sync_parked WHERE blob_id = OLD.blob_id"),
                            "\(vault): \(trigger)")
                }
            }
        }
    }

    @Test func everyTableIsDescribed() throws {
        let derived = Set(SealedTable.all.flatMap(\.derived).compactMap { derived -> String? in
            if case .tagIndex(let table) = derived { return table }
            return nil
        })
        for (vault, queue, _) in try Self.schemas() {
            let tables = try queue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            }
            // The attachments' chunks are neither sealed nor derived: covered by the manifest.
            let described = Set(SealedTable.all.map(\.name)).union(derived).union([ManifestedTable.attachmentChunk.name])
            #expect(Set(tables).subtracting(Self.infrastructure) == described, "\(vault): a table without its description")
            #expect(derived == [ManifestedTable.entryTag.name])
        }
    }

    @Test func childrenFollowFromParents() {
        func children(_ table: SealedTable) -> [String] { table.children.map { "\($0.table.name).\($0.column)" } }
        #expect(children(.entry) == ["analysis.entry_id", "knowledge_relation.entry_id", "chat_message.entry_id", "attachment.entry_id",
                                     "measure.entry_id"])
        #expect(children(.attachmentBlob) == ["attachment.blob_id"])
        #expect(children(.knowledgeNode) == ["knowledge_relation.from_node", "knowledge_relation.to_node"])
        #expect(children(.chatThread) == ["chat_message.thread_id"])
        #expect(children(.analysis).isEmpty && children(.knowledgeRelation).isEmpty && children(.chatMessage).isEmpty && children(.attachment).isEmpty)
    }

    /// The `NEW.x` / `OLD.x` arguments of a trigger's body, in order.
    static func columnArguments(of sql: String) -> [String] {
        sql.matches(of: #/\b(?:NEW|OLD)\.\w+/#).map { String($0.output) }
    }
}
