import Foundation
import GRDB

/// The result of ``UnlockedVault/check()``.
public struct CheckReport: Sendable {
    /// Records verified, by table.
    public var checked: [String: Int] = [:]
    /// One sentence per problem found; empty when the vault is sound.
    public var problems: [String] = []

    public var isClean: Bool { problems.isEmpty }
}

extension UnlockedVault {
    /// Verifies everything that can be verified with the keys: SQLite's own integrity and
    /// foreign-key checks, every keyslot's form, and every record: it must authenticate, its
    /// local day must match its time of writing, and its tag index must match its tags.
    public func check() throws -> CheckReport {
        var report = CheckReport()
        try database.read { db in
            for line in try String.fetchAll(db, sql: "PRAGMA integrity_check") where line != "ok" {
                report.problems.append("SQLite integrity: \(line)")
            }
            let orphans = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            for orphan in orphans {
                report.problems.append("A row of \((try? orphan.stored(0, table: "") as String) ?? "?") refers to a missing \((try? orphan.stored(2, table: "") as String) ?? "?") record.")
            }
            do {
                _ = try Keyslot.readAll(db)
            } catch let error as VaultError {
                report.problems.append(error.description)
            }
            try checkEntries(db, into: &report)
            try checkRows(AnalysisRow.table, AnalysisRow.selection, db, into: &report) { row in
                _ = try AnalysisRow(row: row).decrypt(keys: keys)
            }
            try checkRows(NodeRow.table, NodeRow.selection, db, into: &report) { row in
                let stored = try NodeRow(row: row)
                let node = try stored.decrypt(keys: keys)
                guard nodeKey(NodeReference(type: node.type, name: node.name)) == stored.nodeKey else {
                    throw VaultError.tamperedRecord(table: NodeRow.table, id: node.id.storageText, detail: "its name index does not match its name")
                }
            }
            try checkRows(ThreadRow.table, ThreadRow.selection, db, into: &report) { row in
                _ = try ThreadRow(row: row).decrypt(keys: keys, db: db)
            }
            try checkRows(MessageRow.table, MessageRow.selection, db, into: &report) { row in
                _ = try MessageRow(row: row).decrypt(keys: keys)
            }
            let badStrengths = try Int.fetchOne(db, sql: "SELECT count(*) FROM knowledge_relation WHERE NOT (strength BETWEEN 0 AND 1)") ?? 0
            if badStrengths > 0 { report.problems.append("\(badStrengths) knowledge relations have a strength outside 0…1.") }
            let activeThreads = try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_thread WHERE is_active = 1") ?? 0
            if activeThreads > 1 { report.problems.append("\(activeThreads) chat threads are marked active; at most one may be.") }
        }
        return report
    }

    /// Verifies every row of `table` with `verify`, recording each failure.
    private func checkRows(_ table: String, _ selection: String, _ db: Database, into report: inout CheckReport,
                           verify: (Row) throws -> Void) throws {
        var count = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT \(selection) FROM \(table)")
        while let row = try rows.next() {
            count += 1
            do {
                try verify(row)
            } catch let error as VaultError {
                report.problems.append(error.description)
            }
        }
        report.checked[table] = count
    }

    /// Every entry decrypted (read and decrypted side by side, ``BatchPipeline``) and its tag
    /// index compared.
    private func checkEntries(_ db: Database, into report: inout CheckReport) throws {
        var storedTags: [Int64: Set<Data>] = [:]
        let tagRows = try Row.fetchCursor(db, sql: "SELECT entry_seq, bidx FROM entry_tag")
        while let row = try tagRows.next() {
            storedTags[try row.stored(0, table: "entry_tag"), default: []].insert(try row.stored(1, table: "entry_tag"))
        }
        let keys = self.keys
        var problems: [String] = []
        let pipeline = BatchPipeline(transform: { [storedTags] (item: (seq: Int64, id: String, row: Result<EncryptedEntryRow, any Error>)) -> String? in
            do {
                let entry = try item.row.get().decrypt(keys: keys)
                let expected = Self.tagIndexes(of: entry, keys: keys)
                return (storedTags[item.seq] ?? []) == expected ? nil : "Entry \(item.id): its tag index does not match its tags."
            } catch let error as VaultError {
                return error.description
            }
        }, deliver: { problems += $0.compactMap { $0 } })
        var entrySeqs: Set<Int64> = []
        // `seq` comes after the selection, so EncryptedEntryRow reads its columns where it expects them.
        let rows = try Row.fetchCursor(db, sql: "SELECT \(EncryptedEntryRow.selection), seq FROM entry ORDER BY created_at")
        let seqColumn = 10
        var batch: [(seq: Int64, id: String, row: Result<EncryptedEntryRow, any Error>)] = []
        while let row = try rows.next() {
            let seq: Int64 = try row.stored(seqColumn, table: EncryptedEntryRow.table)
            entrySeqs.insert(seq)
            batch.append((seq, (try? row.stored(0, table: EncryptedEntryRow.table)) ?? "?", Result { try EncryptedEntryRow(row: row) }))
            if batch.count == 1024 {
                try pipeline.submit(batch)
                batch = []
            }
        }
        try pipeline.submit(batch)
        try pipeline.finish()
        report.problems += problems
        for orphan in storedTags.keys.sorted() where !entrySeqs.contains(orphan) {
            report.problems.append("Tag index rows name entry row \(orphan), which does not exist.")
        }
        report.checked[EncryptedEntryRow.table] = entrySeqs.count
    }
}
