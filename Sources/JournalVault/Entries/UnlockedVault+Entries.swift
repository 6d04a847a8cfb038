// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

extension UnlockedVault {
    /// Adds an entry written at `at` (default: now, in the process's time zone). `content` is
    /// trimmed and must be non-blank, at most ``Entry/maximumCharacters`` characters and
    /// ``Entry/maximumBytes`` bytes. `measures` are stored with it, in the same transaction.
    ///
    /// ```swift
    /// let entry = try journal.addEntry("First day of #spring.", tags: ["garden"], measures: Measures.assignments(["mood=7"]))
    /// ```
    @discardableResult
    public func addEntry(_ content: String, at: Instant? = nil, starred: Bool = false, tags: [String] = [],
                         measures: Measures = Measures()) throws -> Entry {
        let entry = try newEntry(content, at: at, starred: starred, tags: tags)
        try write { db in
            try store(entry, replacing: nil, db)
            try storeMeasures(measures, of: entry.id, replacing: nil, db)
        }
        return entry
    }

    /// A new entry of `content` (validated), not yet stored.
    func newEntry(_ content: String, at: Instant?, starred: Bool, tags: [String]) throws -> Entry {
        let now = Instant.now()
        return Entry(content: try ContentRules.validated(content), created: at ?? now, modifiedAt: now.millis,
                     starred: starred, explicitTags: try ContentRules.tags(tags))
    }

    /// Adds many entries in one transaction (imports, benchmarks); they are stored as given.
    public func addEntries(_ entries: [Entry]) throws {
        try write { db in try insertNew(entries, db) }
    }

    /// The entry `text` names: a full id or a unique prefix of at least 4 characters.
    public func resolveEntryID(_ text: String) throws -> UUID {
        try database.read { db in try RecordID.resolve(text, table: EncryptedEntryRow.table, kind: "entry", db: db) }
    }

    /// The entry with this id, decrypted and verified.
    public func entry(id: UUID) throws -> Entry {
        try database.read { db in try fetchEntry(id: id, db) }
    }

    /// Changes an entry's text, time of writing, star or explicit tags (`addingTags` joined,
    /// `removingTags` taken away; tags in the text stay), re-encrypting it under new metadata;
    /// and its measures (the fields named in `removingMeasures` removed, then those of
    /// `settingMeasures` set), in the same transaction. `nil` and empty lists leave a property
    /// as it is. Measures are a record of their own: a change of them alone leaves the entry,
    /// and its time of change, as they are.
    ///
    /// ```swift
    /// try journal.updateEntry(id: entry.id, starred: true, settingMeasures: Measures.assignments(["mood=8"]))
    /// ```
    @discardableResult
    public func updateEntry(id: UUID, content: String? = nil, created: Instant? = nil, starred: Bool? = nil,
                            addingTags: [String] = [], removingTags: [String] = [],
                            settingMeasures: Measures = Measures(), removingMeasures: [String] = []) throws -> Entry {
        let newContent = try content.map { try ContentRules.validated($0) }
        let added = try ContentRules.tags(addingTags), removed = Set(try ContentRules.tags(removingTags))
        let unfielded = try removingMeasures.map(Measures.normalizedName)
        let measuresOnly = newContent == nil && created == nil && starred == nil && added.isEmpty && removed.isEmpty
            && !(settingMeasures.isEmpty && unfielded.isEmpty)
        return try write { db in
            let entry = measuresOnly ? try fetchEntry(id: id, db)
                : try revise(id: id, content: newContent, created: created, starred: starred, addingTags: added, removingTags: removed, db)
            try reviseMeasures(of: id, setting: settingMeasures, removing: unfielded, db)
            return entry
        }
    }

    /// Deletes an entry and its tag index (the file's freed pages are zeroed: secure_delete).
    public func deleteEntry(id: UUID) throws {
        try write { db in try deleteStoredEntry(id: id, db) }
    }

    /// Updates, adds and deletes entries in one transaction (``EntryChanges``): everything is
    /// written or, when any part fails (an id not found, a blank text), nothing. A revision
    /// keeps the entry's star and explicit tags, as ``updateEntry(id:content:created:starred:addingTags:removingTags:settingMeasures:removingMeasures:)`` does.
    ///
    /// ```swift
    /// let edit = try EntryBatchEdit(journal.entries(query))
    /// try journal.applyEntryChanges(edit.changes(in: textFromTheEditor, zone: .current))
    /// ```
    public func applyEntryChanges(_ changes: EntryChanges) throws {
        let revisions = try changes.updated.map { revision in
            EntryChanges.Revision(id: revision.id, content: try ContentRules.validated(revision.content), created: revision.created)
        }
        let added = try changes.added.map { entry in
            var entry = entry
            entry.content = try ContentRules.validated(entry.content)
            entry.explicitTags = try ContentRules.tags(entry.explicitTags)
            return entry
        }
        try write { db in
            for revision in revisions {
                try revise(id: revision.id, content: revision.content, created: revision.created, starred: nil, addingTags: [], removingTags: [], db)
            }
            for id in changes.deleted { try deleteStoredEntry(id: id, db) }
            for entry in added { try store(entry, replacing: nil, db) }
        }
    }

    /// Entries matching `query`, oldest first. Stops with ``VaultError/tamperedRecord(table:id:detail:)``
    /// at the first record that fails verification.
    public func entries(_ query: EntryQuery = EntryQuery()) throws -> [Entry] {
        var result: [Entry] = []
        try forEachEntry(matching: query) { result.append($0) }
        return result
    }

    /// Calls `body` with each entry matching `query`, in `order`, as soon as its batch is
    /// decrypted: a listing of the whole vault starts at once and holds two batches in memory,
    /// however many entries it gives. With a `limit` and ``EntryOrder/oldestFirst``, the
    /// `limit` newest matches are gathered first (they come newest first from the file).
    /// An error thrown by `body` ends the walk and is rethrown; a record that fails
    /// verification ends it with ``VaultError/tamperedRecord(table:id:detail:)`` after the
    /// entries before it were given.
    ///
    /// ```swift
    /// try journal.forEachEntry(matching: query, order: .newestFirst) { entry in print(entry.title) }
    /// ```
    public func forEachEntry(matching query: EntryQuery = EntryQuery(), order: EntryOrder = .oldestFirst,
                             _ body: (Entry) throws -> Void) throws {
        try forEachEntry(matching: query, order: order, transform: { $0 }, body)
    }

    /// ``forEachEntry(matching:order:_:)`` with each entry first turned into what `body` takes by
    /// `transform`, on the threads that decrypt: a listing formats its entries there, on every
    /// core, rather than on the one thread that prints them.
    ///
    /// ```swift
    /// try journal.forEachEntry(matching: query, transform: { $0.title }) { title in print(title) }
    /// ```
    public func forEachEntry<Item: Sendable>(matching query: EntryQuery = EntryQuery(), order: EntryOrder = .oldestFirst,
                                             transform: @escaping @Sendable (Entry) throws -> Item,
                                             _ body: (Item) throws -> Void) throws {
        let limit = query.limit ?? Int.max
        guard limit > 0 else { return }
        // With a limit, walk newest first so only the needed rows are decrypted; oldest first,
        // they are then given in reverse.
        guard query.limit == nil || order == .newestFirst else {
            var newest: [Item] = []
            try walkEntries(query, descending: true, transform: transform) { newest.append($0) }
            for item in newest.reversed() { try body(item) }
            return
        }
        try walkEntries(query, descending: order == .newestFirst, transform: transform, body)
    }

    /// `query`'s SQL condition over the plaintext columns, its tags through this vault's blind index.
    func condition(of query: EntryQuery, byTime: Bool = false) throws -> (sql: String, arguments: StatementArguments) {
        try query.condition(blindIndex: { keys.blindIndex.value(domain: "tag", parts: [$0]) }, byTime: byTime)
    }

    /// Whether `query`'s tags are on at least one entry in 16 (counted in the tag index): a
    /// listing of them then walks the time index (``EntryQuery/condition(blindIndex:byTime:)``),
    /// which streams and costs a pass over the index; a rarer tag's few rows are cheaper fetched
    /// by key and sorted.
    private func tagsAreCommon(_ query: EntryQuery) throws -> Bool {
        let tags = try ContentRules.tags(query.tags), anyTags = try ContentRules.tags(query.anyTags)
        guard !tags.isEmpty || !anyTags.isEmpty else { return false }
        let blindIndex = { (tag: String) in Data(self.keys.blindIndex.value(domain: "tag", parts: [tag])) }
        return try database.read { db in
            let count = { (tag: String) in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry_tag WHERE bidx = ?", arguments: [blindIndex(tag)]) ?? 0 }
            let tagged = try tags.isEmpty ? anyTags.map(count).reduce(0, +) : tags.map(count).min() ?? 0
            let rowKeys = try Int.fetchOne(db, sql: "SELECT max(seq) FROM entry") ?? 0
            return tagged * 16 >= rowKeys
        }
    }

    /// The entries `query` selects whose decrypted content passes `filter`, newest first, each
    /// turned into what `body` takes by `transform` as its batch is decrypted: a search's scan,
    /// which decrypts the rest of an entry only when its content matches. `query.contains`
    /// applies as well.
    func forEachNewestEntry<Item: Sendable>(matching query: EntryQuery, content filter: @escaping EntryContentFilter,
                                            transform: @escaping @Sendable (Entry) throws -> Item, _ body: (Item) throws -> Void) throws {
        try walkEntries(query, descending: true, content: filter, transform: transform, body)
    }

    /// Gives the entries matching `query` (at most its `limit`), their content also passing
    /// `filter` when given, in file order, ascending or descending by time of writing, each as
    /// its batch is decrypted.
    private func walkEntries<Item: Sendable>(_ query: EntryQuery, descending: Bool, content filter: EntryContentFilter? = nil,
                                             transform: @escaping @Sendable (Entry) throws -> Item,
                                             _ body: (Item) throws -> Void) throws {
        let byTime = try tagsAreCommon(query)
        let matcher = query.contains.map(TextMatcher.init)
        let filters: [EntryContentFilter] = (matcher.map { matcher in [{ matcher.matches(utf8: $0) }] } ?? []) + (filter.map { [$0] } ?? [])
        let passes: EntryContentFilter? = filters.isEmpty ? nil : { @Sendable plaintext in try filters.allSatisfy { try $0(plaintext) } }
        // The tag index is not what decides: each tag is confirmed from the decrypted entry, so a
        // tag-index row added to the file cannot put an entry into a listing it does not belong in.
        let wantedTags = Set(query.tags.compactMap(Tags.normalize))
        let anyTags = Set(query.anyTags.compactMap(Tags.normalize))
        let unwantedTags = Set(query.withoutTags.compactMap(Tags.normalize))
        let order = descending ? "DESC" : "ASC"
        let limit = query.limit ?? Int.max
        // The measures are few and small: opened first, they leave out the entries they fail
        // before those are decrypted.
        let measured = query.measureConditions.isEmpty ? nil : try measures(matching: query)
        var given = 0
        try withoutActuallyEscaping(body) { body in
            // A row that cannot be read is an error of its batch, so errors still come in row order.
            let pipeline = BatchPipeline(transform: { (stored: Result<EncryptedEntryRow, any Error>) -> Item? in
                // The keys of the read's snapshot (another process's rekey is followed as it starts).
                let keys = self.keys
                guard let entry = try stored.get().decrypt(keys: keys, ifContentPasses: passes) else { return nil }
                // Tags are stored normalised; only explicit tags of an older normal form need it again.
                var gathered: Set<String>?
                let has = { (tag: String) in entry.hasTag(tag, gathered: &gathered) }
                guard wantedTags.allSatisfy(has), anyTags.isEmpty || anyTags.contains(where: has) else {
                    throw VaultError.tamperedRecord(table: EncryptedEntryRow.table, id: entry.id.storageText,
                                                    detail: "the tag index lists a tag the entry does not have")
                }
                return unwantedTags.contains(where: has) ? nil : try transform(entry)
            }, deliver: { items in
                for case let item? in items where given < limit {
                    try body(item)
                    given += 1
                }
            })
            try database.read { db in
                let condition = try condition(of: query, byTime: byTime)
                let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                    SELECT \(EncryptedEntryRow.selection) FROM entry WHERE \(condition.sql)
                    ORDER BY created_at \(order), id \(order)
                    """), arguments: condition.arguments)
                // Rows are read in order, a batch at a time, and decrypted on all cores while the
                // next batch is read; memory stays bounded by two batches.
                // Batches start small, so even a month's listing overlaps reading with decryption
                // (and a long listing's first entries come at once), and double up to 2,048 rows,
                // so a search over everything pays little per batch; and they end sooner when
                // their texts reach the pipeline's byte bound, so long entries take no more memory.
                var batchSize = query.limit.map { min($0, 512) } ?? 128
                var batch: [Result<EncryptedEntryRow, any Error>] = []
                var batchBytes = 0
                batch.reserveCapacity(batchSize)
                while given < limit, let row = try rows.next() {
                    let stored = Result { try EncryptedEntryRow(row: row) }
                    if let measured, let id = try? stored.get().id, !query.meetsMeasureConditions(measured[id]) { continue }
                    batchBytes += (try? stored.get().content.count) ?? 0
                    batch.append(stored)
                    guard batch.count == batchSize || batchBytes >= type(of: pipeline).batchBytes else { continue }
                    try pipeline.submit(batch)
                    batchSize = min(batchSize * 2, 2048)
                    batch = []
                    batchBytes = 0
                    batch.reserveCapacity(batchSize)
                    // With a limit, this batch may complete the result: do not read ahead of it.
                    if query.limit != nil { try pipeline.finish() }
                }
                try pipeline.submit(batch)
                try pipeline.finish()
            }
        }
    }

    /// Whether the entries `query` selects by its plaintext columns (dates, day, star, tags and
    /// `limit`) were written at more than one UTC offset, answered without decrypting: a
    /// listing then shows each time with its offset. `contains`, `withoutTags` and measure
    /// conditions need decrypted records, so with any of them the whole selection before them
    /// (and before `limit`) is looked at. In a session, a query of dates only is answered by
    /// the agent from its figures: without it, a period whose entries share one offset is read
    /// whole, every entry's row and text.
    public func entriesSpanZones(_ query: EntryQuery) throws -> Bool {
        if query.selectsByDatesOnly, let spans = session?.spansZones(SessionWire.Period(from: query.from, to: query.to)) { return spans }
        let condition = try condition(of: query)
        let decidedInSQL = query.contains == nil && query.withoutTags.isEmpty && query.measureConditions.isEmpty
        return try database.read { db in
            if decidedInSQL, let limit = query.limit {
                return try Bool.fetchOne(db, sql: """
                    SELECT count(DISTINCT utc_offset) > 1 FROM (
                        SELECT utc_offset FROM entry WHERE \(condition.sql) ORDER BY created_at DESC, id DESC LIMIT \(limit))
                    """, arguments: condition.arguments) ?? false
            }
            // Stops at the first entry of another offset than the first one's.
            return try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM entry WHERE \(condition.sql)
                               AND utc_offset <> (SELECT utc_offset FROM entry WHERE \(condition.sql) LIMIT 1))
                """, arguments: condition.arguments + condition.arguments) ?? false
        }
    }

    /// Entries whose text contains `text` (case- and diacritic-insensitive), within `query`.
    public func searchEntries(_ text: String, in query: EntryQuery = EntryQuery()) throws -> [Entry] {
        var query = query
        query.contains = text
        return try entries(query)
    }

    func fetchEntry(id: UUID, _ db: Database) throws -> Entry {
        try storedRow(id: id, db).decrypt(keys: keys)
    }

    /// Writes `entry` as a new row, or as the next revision of `stored`, with its tag index, in
    /// the caller's transaction.
    func store(_ entry: Entry, replacing stored: EncryptedEntryRow?, _ db: Database) throws {
        let meta = try stored?.parsedMeta().next(keyVersion: keys.keyVersion) ?? .fresh(keyVersion: keys.keyVersion)
        let row = try EncryptedEntryRow(entry, meta: meta, keys: keys)
        let seq: Int64
        if stored == nil {
            try row.insert(db)
            seq = db.lastInsertedRowID
        } else {
            try row.update(db)
            guard let storedSeq = try Int64.fetchOne(db, sql: "SELECT seq FROM entry WHERE id = ?", arguments: [entry.id.storageText]) else {
                throw VaultError.notFound(kind: "entry", id: entry.id.storageText)
            }
            seq = storedSeq
            try db.execute(sql: "DELETE FROM entry_tag WHERE entry_seq = ?", arguments: [seq])
        }
        try Self.insertTagIndexes(tagIndexes(of: entry), entrySeq: seq, db)
    }

    /// Inserts entries whose ids are not in the vault, in the caller's transaction: each batch
    /// is encrypted on the other cores while the batch before is written (``BatchPipeline``).
    /// `inserted` is told after each entry.
    ///
    /// The helpers also compute each row's manifest digest, for which the row key is chosen here
    /// (the next free `seq`, as SQLite would choose it): the writer then only stores the rows,
    /// and the triggers skip them (``ManifestRecorder/precomputed(_:)``).
    func insertNew(_ entries: [Entry], _ db: Database, inserted: (() -> Void)? = nil) throws {
        let keys = self.keys
        let recorder = database.manifestRecorder
        let firstSeq = (try Int64.fetchOne(db, sql: "SELECT max(seq) FROM entry") ?? 0) + 1
        typealias Prepared = (row: EncryptedEntryRow, seq: Int64, tags: Set<Data>, digests: [(ManifestedTable, DigestSum)])
        let pipeline = BatchPipeline(transform: { (item: (offset: Int, element: Entry)) -> Prepared in
            let row = try EncryptedEntryRow(item.element, meta: .fresh(keyVersion: keys.keyVersion), keys: keys)
            let seq = firstSeq + Int64(item.offset)
            let tags = Self.tagIndexes(of: item.element, keys: keys)
            var digests = [(ManifestedTable.entry, try RowDigest.of(row.manifestValues(seq: seq), in: .entry, key: keys.manifestKey))]
            for bidx in tags {
                digests.append((.entryTag, try RowDigest.of([bidx.databaseValue, seq.databaseValue], in: .entryTag, key: keys.manifestKey)))
            }
            return (row, seq, tags, digests)
        }, deliver: { prepared in
            try recorder.precomputed {
                for item in prepared {
                    try item.row.insert(db, seq: item.seq)
                    try Self.insertTagIndexes(item.tags, entrySeq: item.seq, db)
                    for (table, digest) in item.digests { recorder.add(digest, to: table) }
                    inserted?()
                }
            }
        })
        let batchSize = 512
        let numbered = Array(entries.enumerated())
        try Self.withoutInsertTriggers(on: entries.count >= batchSize ? [.entry, .entryTag] : [], db) {
            for start in stride(from: 0, to: numbered.count, by: batchSize) {
                try pipeline.submit(Array(numbered[start..<min(start + batchSize, numbered.count)]))
            }
            try pipeline.finish()
        }
    }

    /// Runs `body` with the manifest's insert triggers of `tables` taken away, in the caller's
    /// transaction, and puts them back exactly as they were before it returns (a rollback puts
    /// them back too). Even with its WHEN clause false, a trigger makes SQLite build each new
    /// row's image for it: a fifth of a bulk import's time, for rows whose digests are already
    /// counted (``ManifestRecorder/precomputed(_:)``).
    private static func withoutInsertTriggers<Result>(on tables: [ManifestedTable], _ db: Database,
                                                      _ body: () throws -> Result) throws -> Result {
        let names = tables.map { "\($0.name)_manifest_insert" }
        var definitions: [String] = []
        for name in names {
            guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", arguments: [name]) else {
                throw VaultError.manifestDamaged("the triggers that keep it up to date were removed from the file")
            }
            definitions.append(sql)
            try db.execute(sql: "DROP TRIGGER \(name)")
        }
        let result = try body()
        for sql in definitions { try db.execute(sql: sql) }
        return result
    }

    /// Writes the next revision of the stored entry `id`, in the caller's transaction: `nil`
    /// and empty sets leave a property as it is; the tags are normalised already.
    @discardableResult
    private func revise(id: UUID, content: String?, created: Instant?, starred: Bool?, addingTags added: [String],
                        removingTags removed: Set<String>, _ db: Database) throws -> Entry {
        let stored = try storedRow(id: id, db)
        var entry = try stored.decrypt(keys: keys)
        if let content { entry.content = content }
        if let created { entry.created = created }
        if let starred { entry.starred = starred }
        if !added.isEmpty || !removed.isEmpty {
            entry.explicitTags = (entry.explicitTags + added.filter { !entry.explicitTags.contains($0) }).filter { !removed.contains($0) }
        }
        entry.modifiedAt = max(Instant.now().millis, entry.modifiedAt + 1)
        entry.version = Entry.currentVersion
        try store(entry, replacing: stored, db)
        return entry
    }

    /// Deletes the entry `id` and its tag index, in the caller's transaction.
    private func deleteStoredEntry(id: UUID, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM entry WHERE id = ?", arguments: [id.storageText])
        guard db.changesCount == 1 else { throw VaultError.notFound(kind: "entry", id: id.storageText) }
    }

    private func storedRow(id: UUID, _ db: Database) throws -> EncryptedEntryRow {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(EncryptedEntryRow.selection) FROM entry WHERE id = ?"),
                                         arguments: [id.storageText]) else {
            throw VaultError.notFound(kind: "entry", id: id.storageText)
        }
        return try EncryptedEntryRow(row: row)
    }

    /// The blind indexes of every tag of `entry` (inline and explicit).
    func tagIndexes(of entry: Entry) -> Set<Data> {
        Self.tagIndexes(of: entry, keys: keys)
    }

    /// Explicit tags are normalised again: they were stored in the normal form of the release
    /// that wrote them, which may be older than today's (FORMAT.md §5).
    static func tagIndexes(of entry: Entry, keys: VaultKeys) -> Set<Data> {
        tagIndexes(content: entry.content, explicitTags: entry.explicitTags, keys: keys)
    }

    static func tagIndexes(content: String, explicitTags: [String], keys: VaultKeys) -> Set<Data> {
        let explicit = explicitTags.compactMap(Tags.normalize)
        return Set(Tags.all(inline: content, explicit: explicit).map { Data(keys.blindIndex.value(domain: "tag", parts: [$0])) })
    }

    /// Recomputes the tag index of every entry from its decrypted tags, in the caller's
    /// transaction: after a change of the tags' normal form (rekey makes its own, beside re-sealing).
    func reindexAllTags(_ db: Database) throws {
        let keys = self.keys
        var indexes: [(seq: Int64, tags: Set<Data>)] = []
        let pipeline = BatchPipeline(transform: { (item: (seq: Int64, row: EncryptedEntryRow)) in
            (item.seq, Self.tagIndexes(of: try item.row.decrypt(keys: keys), keys: keys))
        }, deliver: { indexes += $0 })
        let rows = try Row.fetchCursor(db, sql: "SELECT \(EncryptedEntryRow.selection), seq FROM entry")
        var batch: [(seq: Int64, row: EncryptedEntryRow)] = []
        while let row = try rows.next() {
            batch.append((try row.stored(EncryptedEntryRow.seqColumn, table: EncryptedEntryRow.table), try EncryptedEntryRow(row: row)))
            if batch.count == 1024 {
                try pipeline.submit(batch)
                batch = []
            }
        }
        try pipeline.submit(batch)
        try pipeline.finish()
        try db.execute(sql: "DELETE FROM entry_tag")
        for (seq, tags) in indexes { try Self.insertTagIndexes(tags, entrySeq: seq, db) }
    }

    /// `entrySeq` is the entry's row key (`entry.seq`, FORMAT.md §1.3), not its UUID.
    static func insertTagIndexes(_ indexes: Set<Data>, entrySeq: Int64, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO entry_tag (bidx, entry_seq) VALUES (?, ?)")
        for bidx in indexes { try statement.execute(arguments: [bidx, entrySeq]) }
    }
}
