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
                report.problems.append("A row of \(orphan[0] as String) refers to a missing \(orphan[2] as String) record.")
            }
            do {
                _ = try Keyslot.readAll(db)
            } catch let error as VaultError {
                report.problems.append(error.description)
            }
            try checkEntries(db, into: &report)
        }
        return report
    }

    private func checkEntries(_ db: Database, into report: inout CheckReport) throws {
        var storedTags: [String: Set<Data>] = [:]
        let tagRows = try Row.fetchCursor(db, sql: "SELECT entry_id, bidx FROM entry_tag")
        while let row = try tagRows.next() {
            storedTags[row[0], default: []].insert(row[1])
        }
        var count = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT \(EncryptedEntryRow.selection) FROM entry ORDER BY created_at")
        while let row = try rows.next() {
            count += 1
            do {
                let entry = try EncryptedEntryRow(row: row).decrypt(keys: keys)
                if storedTags.removeValue(forKey: entry.id.storageText) ?? [] != tagIndexes(of: entry) {
                    report.problems.append("Entry \(entry.id.storageText): its tag index does not match its tags.")
                }
            } catch let error as VaultError {
                report.problems.append(error.description)
                storedTags.removeValue(forKey: row[0])
            }
        }
        for orphan in storedTags.keys.sorted() {
            report.problems.append("Tag index rows name entry \(orphan), which does not exist.")
        }
        report.checked[EncryptedEntryRow.table] = count
    }
}
