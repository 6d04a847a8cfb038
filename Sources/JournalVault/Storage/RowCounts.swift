// SPDX-License-Identifier: Apache-2.0
import GRDB

/// How many rows tables hold, counted as every command that unlocks counts them (and `jv info`).
///
/// A count reads each page of the table's smallest index once: some 2,000 pages at 100,000
/// entries. Through a small page cache they reuse a few buffers, instead of each taking a fresh
/// page of the connection's own cache (a page fault apiece, on every command); the
/// connection's cache size is restored afterwards.
///
/// ```swift
/// let counts = try RowCounts.of(["entry", "measure"], db)   // ["entry": 100000, "measure": 100000]
/// ```
enum RowCounts {
    static func of(_ tables: [String], _ db: Database) throws -> [String: Int] {
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -256")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        var counts: [String: Int] = [:]
        for table in tables { counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
        return counts
    }
}
