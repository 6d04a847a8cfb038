// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import JournalVault

/// The same journal in plain SQLite: the vault's schema and queries, with the content and tags
/// stored as text and no encryption. Run beside the vault so every ratio compares like with like.
final class PlainBaseline {
    let pool: DatabasePool
    /// The columns ``entry(_:)`` reads, in its order.
    private static let columns = "id, created_at, modified_at, utc_offset, local_day, version, starred, content, tags"

    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -32768;")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        // As the vault does: durable commits (GRDB sets NORMAL for WAL pools).
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS entry (
                    seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL,
                    utc_offset INTEGER NOT NULL, local_day TEXT NOT NULL, version INTEGER NOT NULL, starred INTEGER NOT NULL,
                    content TEXT NOT NULL, tags TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS entry_by_day ON entry (local_day, created_at);
                CREATE INDEX IF NOT EXISTS entry_by_time ON entry (created_at);
                CREATE TABLE IF NOT EXISTS entry_tag (tag TEXT NOT NULL,
                    entry_seq INTEGER NOT NULL REFERENCES entry (seq) ON DELETE CASCADE, PRIMARY KEY (tag, entry_seq)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS entry_tag_by_entry ON entry_tag (entry_seq);
                """)
        }
    }

    func add(_ entries: [Entry]) throws {
        try pool.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO entry VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            let tag = try db.cachedStatement(sql: "INSERT OR IGNORE INTO entry_tag VALUES (?, ?)")
            for entry in entries {
                try insert.execute(arguments: [entry.id.uuidString.lowercased(), entry.created.millis, entry.modifiedAt,
                                               entry.created.utcOffsetSeconds, entry.localDay.description, entry.version,
                                               entry.starred, entry.content, JSONValue.strings(entry.explicitTags).serialized()])
                let seq = db.lastInsertedRowID
                for name in entry.tags { try tag.execute(arguments: [name, seq]) }
            }
        }
    }

    /// Rows as entries, as the vault returns them (minus decryption).
    private static func entry(_ row: Row) throws -> Entry {
        let tags = (try JSONParser.parse(Array((row[8] as String).utf8))).arrayValue?.compactMap(\.stringValue) ?? []
        return Entry(id: UUID(uuidString: row[0])!, content: row[7],
                     created: Instant(millis: row[1], utcOffsetSeconds: row[3]), modifiedAt: row[2],
                     starred: row[6], explicitTags: tags, version: row[5])
    }

    func entries(where condition: String, _ arguments: StatementArguments = [], order: String = "ASC", limit: Int? = nil) throws -> [Entry] {
        try pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.columns) FROM entry WHERE \(condition) ORDER BY created_at \(order), id \(order)\(limit.map { " LIMIT \($0)" } ?? "")"),
                             arguments: arguments).map(Self.entry)
        }
    }

    func tagged(_ tag: String) throws -> [Entry] {
        try entries(where: "seq IN (SELECT entry_seq FROM entry_tag WHERE tag = ?)", [tag])
    }

    func calendar(year: Int) throws -> [String: Int] {
        try pool.read { db in
            var days: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT local_day, count(*) FROM entry WHERE local_day BETWEEN ? AND ? GROUP BY local_day",
                                        arguments: ["\(year)-01-01", "\(year)-12-31"]) {
                days[row[0]] = row[1]
            }
            return days
        }
    }

    /// The vault's search without the decryption: the stored text's bytes matched on all cores
    /// a batch at a time, and whole rows read only for the hits.
    func search(_ text: String) throws -> [Entry] {
        let matcher = TextMatcher(text)
        var hits: [Int64] = []
        try pool.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT seq, content FROM entry ORDER BY created_at, id")
            var batch: [(seq: Int64, content: Data)] = []
            func flush() {
                hits += Self.parallelFilter(batch) { row in
                    row.content.withUnsafeBytes { matcher.matches(utf8: $0.bindMemory(to: UInt8.self)) }
                }.map(\.seq)
                batch.removeAll(keepingCapacity: true)
            }
            while let row = try rows.next() {
                batch.append((row[0], row[1]))
                if batch.count == 2048 { flush() }
            }
            flush()
        }
        return try entries(where: "seq IN (\(hits.map(String.init).joined(separator: ",")))")
    }

    /// Integrity check and every row read back.
    func check() throws -> Int {
        try pool.read { db in
            _ = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM entry").map(Self.entry).count
        }
    }

    /// Every row read and written back in one transaction: the SQLite work of a rekey, without its crypto.
    func rewriteAll() throws -> Int {
        try pool.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT seq, content FROM entry")
            let statement = try db.makeStatement(sql: "UPDATE entry SET content = ? WHERE seq = ?")
            for row in rows { try statement.execute(arguments: [row[1] as String, row[0] as Int64]) }
            return rows.count
        }
    }

    func backup(to path: String) throws {
        try pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
    }

    /// Every entry written to one file and synced to disk: the plain counterpart of `jv sync`'s
    /// first pack (each row read and written out as a change, without the encryption, the
    /// stamps and the padding). Returns the file's size and the rows in it.
    func dump(to path: String) throws -> (bytes: Int, rows: Int) {
        var bytes: [UInt8] = []
        var rows = 0
        func integer(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func text(_ value: String) { integer(Int64(value.utf8.count)); bytes += value.utf8 }
        // Not the rows the `sqlite3` shell added for "process: jv add" (ids without dashes).
        for entry in try entries(where: "length(id) = 36") {
            text(entry.id.uuidString.lowercased())
            integer(entry.created.millis)
            integer(Int64(entry.created.utcOffsetSeconds))
            integer(entry.modifiedAt)
            integer(Int64(entry.version))
            integer(entry.starred ? 1 : 0)
            text(entry.content)
            text(JSONValue.strings(entry.explicitTags).serialized())
            rows += 1
        }
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw BenchError.wrongResult("cannot create \(path)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: bytes)
        try handle.synchronize()
        try handle.close()
        return (bytes.count, rows)
    }

    /// The entries of a ``dump(to:)`` file, inserted into this (new) database in one
    /// transaction with their tag index: the plain counterpart of applying a first pack.
    /// Returns the entries inserted.
    func load(dump path: String) throws -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchError.wrongResult("cannot read \(path)") }
        let bytes = [UInt8](data)
        var offset = 0
        func integer() -> Int64 {
            defer { offset += 8 }
            return bytes.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self)) }
        }
        func text() -> String {
            let count = Int(integer())
            defer { offset += count }
            return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
        }
        var entries: [Entry] = []
        while offset < bytes.count {
            let id = text()
            let created = Instant(millis: integer(), utcOffsetSeconds: Int(integer()))
            let modifiedAt = integer(), version = Int(integer()), starred = integer() != 0
            let content = text()
            let tags = (try JSONParser.parse(Array(text().utf8))).arrayValue?.compactMap(\.stringValue) ?? []
            guard let uuid = UUID(uuidString: id) else { throw BenchError.wrongResult("dump: malformed id") }
            entries.append(Entry(id: uuid, content: content, created: created, modifiedAt: modifiedAt, starred: starred,
                                 explicitTags: tags, version: version))
        }
        try add(entries)
        return entries.count
    }

    static func parallelFilter<Item: Sendable>(_ items: [Item], _ keep: (Item) -> Bool) -> [Item] {
        let workers = ProcessInfo.processInfo.activeProcessorCount
        let slice = (items.count + workers - 1) / max(workers, 1)
        let results = UnsafeMutableBufferPointer<Bool>.allocate(capacity: items.count)
        defer { results.deallocate() }
        withoutActuallyEscaping(keep) { keep in
            nonisolated(unsafe) let keep = keep
            nonisolated(unsafe) let results = results
            DispatchQueue.concurrentPerform(iterations: max(workers, 1)) { worker in
                for index in (worker * slice)..<min(items.count, (worker + 1) * slice) { results[index] = keep(items[index]) }
            }
        }
        return items.indices.filter { results[$0] }.map { items[$0] }
    }
}
