// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// The records `request` finds: kind by kind (entries, chat messages, analyses), each
    /// newest first or, ranked, by bm25. Without a session's index this scans: every record of
    /// the kinds asked is decrypted on all cores and its document evaluated (``SearchScan``),
    /// which gives the hits, order and ranks the index would. Only ids and times come back: a
    /// command reads the records it shows with ``forEachSearchResult(_:transform:_:)``.
    ///
    /// ```swift
    /// let hits = try journal.search(SearchRequest(query: try SearchQuery.parse("tea -coffee"), kinds: [.entry]))
    /// ```
    public func search(_ request: SearchRequest) throws -> [SearchHit] {
        // A session's index, current with the file as it answers; else (no session, its index
        // not built yet) the scan, which gives the same hits.
        request.withinDates(try session?.search(request.query, kinds: request.kinds, ranked: request.ranked)
            ?? scanSearch(request.query, kinds: request.kinds, ranked: request.ranked))
    }

    /// The records `request` finds, read and decrypted, in the order of ``search(_:)``, each
    /// turned into what `body` takes by `transform` (on every core) as its batch is done. What
    /// is shown is authenticated by this process whichever path found it. Unranked and without a
    /// session's index, entries are scanned newest first and given as they are found, the rest
    /// of each decrypted only when its text matches: the first results show while the scan
    /// goes on. A record that fails verification ends the walk with
    /// ``VaultError/tamperedRecord(table:id:detail:)``.
    ///
    /// ```swift
    /// try journal.forEachSearchMatch(SearchRequest(query: try SearchQuery.parse("tea")), transform: { $0 }) { result in
    ///     if case .entry(let entry) = result { print(entry.content) }
    /// }
    /// ```
    public func forEachSearchMatch<Item: Sendable>(_ request: SearchRequest, transform: @escaping @Sendable (SearchResult) throws -> Item,
                                                   _ body: (Item) throws -> Void) throws {
        if let hits = try session?.search(request.query, kinds: request.kinds, ranked: request.ranked) {
            return try forEachSearchResult(request.withinDates(hits), transform: transform, body)
        }
        var kinds = request.kinds
        if !request.ranked, kinds.remove(.entry) != nil {
            let scan = SearchScan(request.query)
            let matches: EntryContentFilter = { text in scan.matches(utf8: text) }
            var range = EntryQuery()
            range.from = request.from
            range.to = request.to
            try forEachNewestEntry(matching: range, content: matches, transform: { try transform(.entry($0)) }, body)
        }
        guard !kinds.isEmpty else { return }
        try forEachSearchResult(request.withinDates(try scanSearch(request.query, kinds: kinds, ranked: request.ranked)),
                                transform: transform, body)
    }

    /// The scan: every document of `kinds` evaluated, whatever the dates (the statistics bm25
    /// ranks by are those of all documents of a kind, as in the index); unranked, each is only
    /// matched, its token list never built.
    func scanSearch(_ query: SearchQuery, kinds: Set<SearchKind>, ranked: Bool) throws -> [SearchHit] {
        var scan = SearchScan(query)
        let evaluator = scan
        for kind in SearchKind.allCases where kinds.contains(kind) {
            let pipeline = BatchPipeline(transform: { (stored: Result<StoredSearchRow, any Error>) -> SearchScan.Evaluated in
                try stored.get().withDocument(keys: self.keys) { document, text in
                    ranked ? evaluator.evaluate(document, utf8: text) : evaluator.evaluateUnranked(document, utf8: text)
                }
            }, deliver: { batch in
                for evaluated in batch { scan.add(evaluated) }
            })
            try database.read { db in
                try StoredSearchRow.forEachBatch(of: kind, ids: nil, db) { try pipeline.submit($0) }
                try pipeline.finish()
            }
        }
        return scan.hits(ranked: ranked)
    }

    /// The documents of `kind` (those with these `ids` when given), each turned into what
    /// `deliver` takes by `transform` on the threads that decrypt, delivered a batch at a time
    /// in the file's order: memory stays within two batches however many records there are.
    /// The one reader of search documents, for the scan and for building an index. `inBackground`:
    /// nobody waits for the documents (an index built ahead of its queries), so the threads that
    /// decrypt them run at the lowest priority and stay there.
    ///
    /// ```swift
    /// let index = try SearchIndex()
    /// try index.change { changes in
    ///     try journal.forEachSearchDocument(of: .entry, transform: SearchIndex.prepare) { try changes.upsert($0) }
    /// }
    /// ```
    public func forEachSearchDocument<Item: Sendable>(of kind: SearchKind, ids: [String]? = nil, inBackground: Bool = false,
                                               transform: @escaping @Sendable (SearchDocument) throws -> Item,
                                               _ deliver: @escaping ([Item]) throws -> Void) throws {
        let pipeline = BatchPipeline(urgency: inBackground ? .background : .waitedFor, transform: { (stored: Result<StoredSearchRow, any Error>) -> Item in
            try transform(try stored.get().document(keys: self.keys))
        }, deliver: deliver)
        try database.read { db in
            try StoredSearchRow.forEachBatch(of: kind, ids: ids, db) { try pipeline.submit($0) }
            try pipeline.finish()
        }
    }

    /// Each stored key of `kind` with the fingerprint of its sealed text, read without
    /// decrypting anything: what an index compares with its own ``SearchIndex/fingerprints(kind:)``.
    func storedSearchFingerprints(of kind: SearchKind) throws -> [String: [UInt8]] {
        try database.read { db in try StoredSearchRow.fingerprints(of: kind, db) }
    }

    /// Reads and decrypts the records of `hits`, in their order, and calls `body` with each
    /// (turned into what `body` takes by `transform`, on every core) as its batch is done. A
    /// record deleted since the search is left out; one that fails verification ends the walk
    /// with ``VaultError/tamperedRecord(table:id:detail:)``.
    ///
    /// ```swift
    /// try journal.forEachSearchResult(hits, transform: { $0 }) { result in
    ///     if case .entry(let entry) = result { print(entry.title) }
    /// }
    /// ```
    public func forEachSearchResult<Item: Sendable>(_ hits: [SearchHit], transform: @escaping @Sendable (SearchResult) throws -> Item,
                                                    _ body: (Item) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            let pipeline = BatchPipeline(transform: { (stored: Result<StoredSearchRow, any Error>) -> Item in
                try transform(try stored.get().record(keys: self.keys))
            }, deliver: { items in for item in items { try body(item) } })
            // One read: the records as they were when the walk began. Batches start small, so
            // the first results show at once, double up to 2,048 rows and end at the pipeline's
            // byte bound too, so memory stays within two batches however long the records are.
            try database.read { db in
                var batch: [Result<StoredSearchRow, any Error>] = []
                var bytes = 0, size = 64
                for hit in hits {
                    guard let (stored, sealedBytes) = try StoredSearchRow.fetch(hit, db) else { continue }
                    batch.append(stored)
                    bytes += sealedBytes
                    guard batch.count == size || bytes >= type(of: pipeline).batchBytes else { continue }
                    try pipeline.submit(batch)
                    batch = []
                    bytes = 0
                    size = min(size * 2, 2048)
                }
                try pipeline.submit(batch)
                try pipeline.finish()
            }
        }
    }
}

/// What a search asks: the query, the kinds of record, the dates and whether to rank.
///
/// ```swift
/// var request = SearchRequest(query: try SearchQuery.parse("\"green tea\""))
/// request.kinds = [.entry]
/// request.from = .day(CivilDay(year: 2026, month: 1, day: 1)!)
/// request.ranked = true
/// ```
public struct SearchRequest: Sendable {
    public var query: SearchQuery
    public var kinds: Set<SearchKind>
    /// Records from this day or moment on; a day compares the writer's local day.
    public var from: DateExpression?
    /// Records up to this day (inclusive) or moment.
    public var to: DateExpression?
    /// Order each kind by relevance (bm25) instead of newest first.
    public var ranked: Bool

    public init(query: SearchQuery, kinds: Set<SearchKind> = Set(SearchKind.allCases), from: DateExpression? = nil,
                to: DateExpression? = nil, ranked: Bool = false) {
        self.query = query
        self.kinds = kinds
        self.from = from
        self.to = to
        self.ranked = ranked
    }

    /// The hits within the request's dates, by the rules of listings (``TimeBounds``): both
    /// paths bound their hits here.
    public func withinDates(_ hits: [SearchHit]) -> [SearchHit] {
        let bounds = TimeBounds(from: from, to: to)
        return hits.filter { bounds.includes($0.time) }
    }
}

/// A record a search found, decrypted.
public enum SearchResult: Sendable {
    case entry(Entry)
    case chatMessage(ChatMessage)
    case analysis(Analysis)
}

/// The stored row of a record a search reads: how its document is made and its record opened.
enum StoredSearchRow: Sendable {
    case entry(EncryptedEntryRow)
    case message(MessageRow)
    case analysis(AnalysisRow)

    /// The document of the record (for an index, which keeps its text).
    func document(keys: VaultKeys) throws -> SearchDocument {
        try withDocument(keys: keys) { document, text in
            var document = document
            document.text = String(decoding: text, as: UTF8.self)
            return document
        }
    }

    /// Calls `body` with the record's document — one constructor per kind (``SearchDocument``),
    /// its fingerprint the start of the nonce of its sealed text field — and its text as UTF-8
    /// in temporary memory, wiped when `body` returns (the document's own `text` is empty). The
    /// scan matches entries and messages there: the many records a search rejects leave none
    /// of their text behind in freed memory. An analysis's text is made from its JSON.
    func withDocument<Result>(keys: VaultKeys, _ body: (SearchDocument, UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result {
        switch self {
        case .entry(let row):
            let document = SearchDocument(entryID: row.id, created: Instant(millis: row.createdAt, utcOffsetSeconds: row.utcOffset),
                                          content: "", fingerprint: SearchDocument.fingerprint(ofSealed: row.content))
            return try Self.withField(row.content, named: "content", binding: try row.binding(meta: try row.parsedMeta()), table: row.id,
                                      keys: keys) { try body(document, $0) }
        case .message(let row):
            let content = try row.row.blob("content")
            let document = SearchDocument(kind: .chatMessage, key: row.id.storageText, time: try row.row.instant("timestamp", offset: "utc_offset"),
                                          fingerprint: SearchDocument.fingerprint(ofSealed: content), text: "")
            // Every field is opened (and so authenticated), as reading the message would: the
            // content is matched in place, the metadata only checked.
            var result: Result?
            try row.row.open(keys: keys) { field, plaintext in
                guard field == 0 else { return }
                result = try Self.checkedUTF8(plaintext, table: MessageRow.table, id: row.id) { try body(document, $0) }
            }
            return result!
        case .analysis(let row):
            var document = SearchDocument(analysis: try row.decrypt(keys: keys), fingerprint: SearchDocument.fingerprint(ofSealed: try row.row.blob("payload")))
            var text = document.text
            document.text = ""
            return try text.withUTF8 { try body(document, $0) }
        }
    }

    /// Opens one sealed text field into temporary memory (wiped afterwards), checked to be UTF-8.
    private static func withField<Result>(_ box: Data, named field: String, binding: RecordBinding, table id: UUID, keys: VaultKeys,
                                          _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result {
        var result: Result?
        try keys.records.open([(field, box)], binding: binding) { _, plaintext in
            result = try checkedUTF8(plaintext, table: binding.table, id: id, body)
        }
        return result!
    }

    /// `body` of decrypted text, or a tampering error when it is not UTF-8.
    private static func checkedUTF8<Result>(_ plaintext: UnsafeBufferPointer<UInt8>, table: String, id: UUID,
                                            _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result {
        guard UTF8Validation.check(plaintext).valid else {
            throw VaultError.tamperedRecord(table: table, id: id.storageText, detail: "a decrypted field is not UTF-8")
        }
        return try body(plaintext)
    }

    func record(keys: VaultKeys) throws -> SearchResult {
        switch self {
        case .entry(let row): .entry(try row.decrypt(keys: keys))
        case .message(let row): .chatMessage(try row.decrypt(keys: keys))
        case .analysis(let row): .analysis(try row.decrypt(keys: keys))
        }
    }

    private static func table(_ kind: SearchKind) -> (name: String, sealed: SealedTable, selection: String, field: String) {
        switch kind {
        case .entry: (EncryptedEntryRow.table, EncryptedEntryRow.sealed, EncryptedEntryRow.selection, "content")
        case .chatMessage: (MessageRow.table, MessageRow.sealed, MessageRow.selection, "content")
        case .analysis: (AnalysisRow.table, AnalysisRow.sealed, AnalysisRow.selection, "payload")
        }
    }

    /// The sealed table the documents of `kind` are read from.
    static func sealedTable(of kind: SearchKind) -> SealedTable {
        table(kind).sealed
    }

    private static func read(_ kind: SearchKind, _ row: Row) -> Result<StoredSearchRow, any Error> {
        Result {
            switch kind {
            case .entry: .entry(try EncryptedEntryRow(row: row))
            case .chatMessage: .message(try MessageRow(row: row))
            case .analysis: .analysis(try AnalysisRow(row: row))
            }
        }
    }

    /// The rows of `kind` (those of `ids` when given) in batches of at most 2,048 rows or the
    /// pipeline's byte bound. A row that cannot be read is an error of its batch, in row order.
    static func forEachBatch(of kind: SearchKind, ids: [String]?, _ db: Database,
                             _ body: ([Result<StoredSearchRow, any Error>]) throws -> Void) throws {
        let table = table(kind)
        var batch: [Result<StoredSearchRow, any Error>] = []
        var bytes = 0
        func walk(_ rows: RowCursor) throws {
            while let row = try rows.next() {
                bytes += (row[table.field] as Data?)?.count ?? 0
                batch.append(read(kind, row))
                guard batch.count == 2048 || bytes >= BatchPipeline<Int, Int>.batchBytes else { continue }
                try body(batch)
                batch = []
                bytes = 0
            }
        }
        if let ids {
            try RowsByID.forEachCursor(table: table.name, selection: table.selection, ids: ids, db, walk)
        } else {
            try walk(try Row.fetchCursor(db, sql: "SELECT \(table.selection) FROM \(table.name)"))
        }
        try body(batch)
    }

    /// The stored row of `hit` and the bytes of its sealed text; nil when it is no longer stored.
    static func fetch(_ hit: SearchHit, _ db: Database) throws -> (Result<StoredSearchRow, any Error>, Int)? {
        let table = table(hit.kind)
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(table.selection) FROM \(table.name) WHERE id = ?"),
                                         arguments: [hit.key]) else { return nil }
        return (read(hit.kind, row), (row[table.field] as Data?)?.count ?? 0)
    }

    static func fingerprints(of kind: SearchKind, _ db: Database) throws -> [String: [UInt8]] {
        let table = table(kind)
        return try SearchDocument.fingerprints(table: table.name, field: table.field, db)
    }
}

extension JSONValue {
    /// The strings and numbers inside, joined, so a search finds entity names, not JSON syntax.
    var searchableText: String {
        switch self {
        case .null: ""
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .string(let text): text
        case .array(let items): items.map(\.searchableText).joined(separator: " ")
        case .object(let members): members.map { $0.0 + " " + $0.1.searchableText }.joined(separator: " ")
        }
    }
}
