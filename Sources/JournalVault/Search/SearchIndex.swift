// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// A full-text index of search documents in an in-memory SQLite database (FTS5), never a file.
///
/// One FTS5 table per kind holds each document's tokens (``SearchTokenizer``) joined by single
/// spaces under FTS5's `ascii` tokenizer, which splits exactly there: the Swift tokenizer stays
/// the one definition of a token, and FTS5's statistics per kind are the ones ``SearchScan``
/// computes. A `document` table maps each FTS5 row to the record's kind, id, time and
/// fingerprint. Queries reach FTS5 with every token double-quoted, so no text of the user's is
/// read as FTS5 syntax. The database keeps its temporary storage in memory and zeroes what it
/// frees (`secure_delete`).
///
/// Not `Sendable`: one owner (the session agent's index thread) uses it.
///
/// ```swift
/// let index = try SearchIndex()
/// try index.upsert([SearchDocument(entryID: entry.id, created: entry.created, content: entry.content, fingerprint: nonce)])
/// let hits = try index.hits(try SearchQuery.parse("tea"), kinds: [.entry], ranked: false)
/// ```
public final class SearchIndex {
    private let database: DatabaseQueue

    public init() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = MEMORY; PRAGMA secure_delete = ON")
        }
        database = try DatabaseQueue(configuration: configuration)
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE document (
                    rowid INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL,
                    millis INTEGER NOT NULL, utc_offset INTEGER NOT NULL, fingerprint BLOB NOT NULL,
                    UNIQUE (kind, key))
                """)
            for kind in SearchKind.allCases {
                let table = Self.table(kind)
                try db.execute(sql: "CREATE VIRTUAL TABLE \(table) USING fts5(tokens, tokenize = 'ascii', detail = full)")
                try db.execute(sql: "INSERT INTO \(table) (\(table), rank) VALUES ('hashsize', ?)", arguments: [Self.pendingTermBytes])
            }
        }
    }

    private static func table(_ kind: SearchKind) -> String { "fts_\(kind.rawValue)" }

    /// How many bytes of a transaction's terms FTS5 holds before writing them out as a segment
    /// (its `hashsize`; 1 MiB by default): fewer segments to merge, for at most this much more
    /// memory per table while a build's transaction is open.
    static let pendingTermBytes = 16 << 20

    /// A document with its tokens: what the index stores of it. Made by ``prepare(_:)`` where
    /// the documents are decrypted, on every core, so that the one thread that owns the index
    /// only inserts.
    public struct Prepared: Sendable {
        public let document: SearchDocument
        /// The document's tokens joined by single spaces, as the FTS5 table holds them.
        let tokens: String
    }

    /// Tokenizes a document for ``upsert(_:)-(Prepared)``.
    ///
    /// ```swift
    /// try index.change { changes in
    ///     try journal.forEachSearchDocument(of: .entry, transform: SearchIndex.prepare) { try changes.upsert($0) }
    /// }
    /// ```
    @Sendable public static func prepare(_ document: SearchDocument) -> Prepared {
        Prepared(document: document, tokens: SearchTokenizer.joinedTokens(document.text))
    }

    /// Adds documents, replacing any of the same kind and key; tokenized here, on the caller's thread.
    public func upsert(_ documents: [SearchDocument]) throws {
        try upsert(documents.map(Self.prepare))
    }

    /// Adds documents tokenized beforehand, replacing any of the same kind and key.
    public func upsert(_ prepared: [Prepared]) throws {
        try change { try $0.upsert(prepared) }
    }

    /// Removes the documents of `kind` with these keys (keys not in the index are ignored).
    public func remove(kind: SearchKind, keys: [String]) throws {
        try change { try $0.remove(kind: kind, keys: keys) }
    }

    /// Each indexed key of `kind` with its fingerprint, for a refresh to compare with the vault's.
    public func fingerprints(kind: SearchKind) throws -> [String: [UInt8]] {
        try database.read { db in try Changes(db: db).fingerprints(kind: kind) }
    }

    /// Makes `changes` in one transaction: all of them or, when one throws, none.
    ///
    /// A build or refresh goes through here as a whole: FTS5 writes a transaction's terms out as
    /// few large segments (up to ``pendingTermBytes`` each), where a transaction per batch wrote
    /// a small segment per batch and spent most of a build merging them; and a refresh that
    /// fails part-way leaves the index as it was.
    ///
    /// ```swift
    /// try index.change { changes in
    ///     try journal.forEachSearchDocument(of: .entry, transform: SearchIndex.prepare) { try changes.upsert($0) }
    /// }
    /// ```
    public func change<T>(_ changes: (Changes) throws -> T) throws -> T {
        try database.write { db in try changes(Changes(db: db)) }
    }

    /// The index's tables as one transaction (``SearchIndex/change(_:)``) changes them.
    public struct Changes {
        fileprivate let db: Database

        /// Adds documents tokenized beforehand, replacing any of the same kind and key.
        public func upsert(_ prepared: [Prepared]) throws {
            let update = try db.cachedStatement(sql: "UPDATE document SET millis = ?, utc_offset = ?, fingerprint = ? WHERE rowid = ?")
            let add = try db.cachedStatement(sql: "INSERT INTO document (kind, key, millis, utc_offset, fingerprint) VALUES (?, ?, ?, ?, ?)")
            for (document, text) in prepared.lazy.map({ ($0.document, $0.tokens) }) {
                let table = SearchIndex.table(document.kind)
                if let rowid = try rowid(document.kind, document.key) {
                    try db.cachedStatement(sql: "DELETE FROM \(table) WHERE rowid = ?").execute(arguments: [rowid])
                    try update.execute(arguments: [document.time.millis, document.time.utcOffsetSeconds, Data(document.fingerprint), rowid])
                    try db.cachedStatement(sql: "INSERT INTO \(table) (rowid, tokens) VALUES (?, ?)").execute(arguments: [rowid, text])
                } else {
                    try add.execute(arguments: [document.kind.rawValue, document.key, document.time.millis,
                                                document.time.utcOffsetSeconds, Data(document.fingerprint)])
                    try db.cachedStatement(sql: "INSERT INTO \(table) (rowid, tokens) VALUES (?, ?)").execute(arguments: [db.lastInsertedRowID, text])
                }
            }
        }

        /// Removes the documents of `kind` with these keys (keys not in the index are ignored).
        public func remove(kind: SearchKind, keys: [String]) throws {
            for key in keys {
                guard let rowid = try rowid(kind, key) else { continue }
                try db.cachedStatement(sql: "DELETE FROM \(SearchIndex.table(kind)) WHERE rowid = ?").execute(arguments: [rowid])
                try db.cachedStatement(sql: "DELETE FROM document WHERE rowid = ?").execute(arguments: [rowid])
            }
        }

        /// The row of the document of `kind` and `key`, if the index holds it.
        private func rowid(_ kind: SearchKind, _ key: String) throws -> Int64? {
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT rowid FROM document WHERE kind = ? AND key = ?"), arguments: [kind.rawValue, key])
        }

        /// Each indexed key of `kind` with its fingerprint.
        public func fingerprints(kind: SearchKind) throws -> [String: [UInt8]] {
            var result: [String: [UInt8]] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT key, fingerprint FROM document WHERE kind = ?", arguments: [kind.rawValue])
            while let row = try rows.next() { result[row[0]] = [UInt8](row[1] as Data) }
            return result
        }
    }

    /// The documents of `kinds` matching `query`, kind by kind (``SearchKind/allCases`` order),
    /// each kind newest first or, `ranked`, by FTS5's bm25 (best first, ties newest first):
    /// the same hits, order and ranks as the scan over the same documents.
    public func hits(_ query: SearchQuery, kinds: Set<SearchKind>, ranked: Bool) throws -> [SearchHit] {
        try database.read { db in
            try SearchKind.allCases.filter(kinds.contains).flatMap { kind in
                SearchHit.sorted(try hits(query, kind: kind, ranked: ranked, db))
            }
        }
    }

    private func hits(_ query: SearchQuery, kind: SearchKind, ranked: Bool, _ db: Database) throws -> [SearchHit] {
        let table = Self.table(kind)
        let sql: String
        var arguments: StatementArguments
        if query.isExclusionOnly {
            // FTS5 has no query of exclusions alone: every document but those matching any of them.
            sql = """
                SELECT key, millis, utc_offset, \(ranked ? "0.0" : "NULL") FROM document
                WHERE kind = ? AND rowid NOT IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)
                """
            arguments = [kind.rawValue, Self.any(query.excluded)]
        } else {
            // CROSS JOIN keeps the FTS5 table the outer loop: its query runs once, and each
            // match looks its document up by rowid (the other way round would run it per document).
            sql = """
                SELECT d.key, d.millis, d.utc_offset, \(ranked ? "-bm25(\(table))" : "NULL")
                FROM \(table) CROSS JOIN document d ON d.rowid = \(table).rowid WHERE \(table) MATCH ?
                """
            arguments = [Self.expression(query)]
        }
        // Through a cursor, which reads each row in place: a query may have most of the index's documents as hits.
        var hits: [SearchHit] = []
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try rows.next() {
            hits.append(SearchHit(kind: kind, key: row[0], time: Instant(millis: row[1], utcOffsetSeconds: row[2]), rank: row[3]))
        }
        return hits
    }

    /// The FTS5 expression of `query`: its groups ANDed (each an OR of phrases), then NOT any
    /// exclusion. Phrases come in ``SearchQuery/rankedPhrases`` order, the order bm25 sums them.
    static func expression(_ query: SearchQuery) -> String {
        let required = query.required.map { "(" + $0.map(phrase).joined(separator: " OR ") + ")" }.joined(separator: " AND ")
        return query.excluded.isEmpty ? required : "(\(required)) NOT \(any(query.excluded))"
    }

    private static func any(_ phrases: [SearchQuery.Phrase]) -> String {
        "(" + phrases.map(phrase).joined(separator: " OR ") + ")"
    }

    /// A phrase as an FTS5 string: tokens hold no ASCII punctuation, but a quote is still doubled.
    private static func phrase(_ phrase: SearchQuery.Phrase) -> String {
        "\"" + phrase.tokens.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (phrase.prefix ? " *" : "")
    }

    /// How many documents the index holds.
    public var documentCount: Int {
        (try? database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM document") }) ?? 0
    }

    /// The bytes of the index's database (its pages, all in memory).
    public var memoryBytes: Int {
        (try? database.read { db in
            try Int.fetchOne(db, sql: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
        }) ?? 0
    }
}
