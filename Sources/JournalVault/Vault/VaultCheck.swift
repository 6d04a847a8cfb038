// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite

/// The result of ``UnlockedVault/check()``.
public struct CheckReport: Sendable {
    /// Records verified, by table.
    public var checked: [String: Int] = [:]
    /// One sentence per problem found; empty when the vault is sound.
    public var problems: [String] = []
    /// Things worth knowing that are not problems (e.g. a vault not yet upgraded).
    public var notes: [String] = []

    public var isClean: Bool { problems.isEmpty }
}

extension UnlockedVault {
    /// Verifies everything that can be verified with the keys: SQLite's own integrity and
    /// foreign-key checks, every keyslot's form, every record — it must authenticate, its local
    /// day must match its time of writing, its tag index must match its tags —, every attachment's
    /// chunk stream read through (FORMAT.md §15), and, in the same pass, the row-set manifest: no
    /// record missing, rolled back or added (FORMAT.md §11).
    /// A knowledge node's or relation's id is not held to its derivation (FORMAT.md §1.6): it was
    /// derived under the key of its time, and a rekey keeps it.
    /// Reads only: nothing is written, even to a vault that has no manifest yet.
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
            var requiresManifest = false
            do {
                requiresManifest = try Keyslot.readAll(db).contains { $0.format >= Keyslot.format }
            } catch let error as VaultError {
                report.problems.append(error.description)
            }
            var found = Manifest(keyVersion: keys.keyVersion, counter: 0, tables: [:])
            try checkEntries(db, into: &report, manifest: &found)
            // Entries, the hot path, go through their own pipeline above; every other table
            // through its typed row's checks.
            for table in SealedTable.all where table.rowKey == nil {
                try checkRows(table, db, into: &report, manifest: &found) { row in
                    try table.rowType.init(SealedRow(table, row: row)).verify(keys: keys)
                }
            }
            try checkAttachmentChunks(db, into: &report, manifest: &found)
            let activeThreads = try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_thread WHERE is_active = 1") ?? 0
            if activeThreads > 1 { report.problems.append("\(activeThreads) chat threads are marked active; at most one may be.") }
            if try WriteTriggers.read(db).syncIncomplete {
                report.problems.append("The triggers that note changes for jv sync were removed: changes made since would not reach the other devices.")
            }
            try compareManifest(found, requiresManifest: requiresManifest, db, into: &report)
        }
        return report
    }

    /// What every command that unlocks the vault checks of the row-set manifest, in one read and
    /// in a few milliseconds even at 100,000 entries (an index count per table): that it
    /// authenticates, and that every table it covers holds as many rows as it lists (but the
    /// attachments' content, ``ManifestedTable/countedAtOpen``) — so a row
    /// deleted, or put back after its deletion, is refused as the vault opens
    /// (``VaultError/manifestDamaged(_:)``). A row rolled back to an older revision, or replaced,
    /// keeps the count: only ``check()``, which digests every row, sees those. A vault without a
    /// manifest yet (made before it, FORMAT.md §11.4) has nothing to compare.
    public func verifyRowCounts() throws {
        try database.read { db in
            guard let manifest = try Manifest.load(db, keys: keys) else { return }
            let counts = try RowCounts.of(ManifestedTable.countedAtOpen.map(\.name), db)
            for table in ManifestedTable.countedAtOpen {
                let listed = manifest.tables[table.name]?.count ?? 0
                let found = counts[table.name] ?? 0
                guard UInt64(found) != listed else { continue }
                let what = SealedTable.rowsLabel(of: table.name)
                throw VaultError.manifestDamaged("it lists \(listed) \(what), the file holds \(found)")
            }
        }
    }

    /// Compares the manifest of the rows found with the stored one, naming per table what differs.
    private func compareManifest(_ found: Manifest, requiresManifest: Bool, _ db: Database, into report: inout CheckReport) throws {
        let stored: Manifest?
        do {
            stored = try Manifest.load(db, keys: keys)
        } catch let error as VaultError {
            report.problems.append(error.description)
            return
        }
        let legacyRelations = try Int.fetchOne(db, sql: "SELECT count(*) FROM legacy_relation") ?? 0
        guard let stored else {
            if requiresManifest {
                report.problems.append("The row-set manifest is missing: records may have been deleted, rolled back or added.")
            } else {
                report.notes.append("This vault was made before the row-set manifest; the next change to it builds one.")
            }
            return
        }
        if legacyRelations > 0 {
            report.problems.append("\(legacyRelations) unsealed knowledge relations were added to the file after its upgrade.")
        }
        for table in ManifestedTable.all {
            let expected = stored.tables[table.name] ?? Manifest.TableState()
            let actual = found.tables[table.name] ?? Manifest.TableState()
            guard expected != actual else { continue }
            let what = SealedTable.rowsLabel(of: table.name)
            if actual.count < expected.count {
                report.problems.append("\(expected.count - actual.count) \(what) are missing (the manifest lists \(expected.count), the file holds \(actual.count)).")
            } else if actual.count > expected.count {
                report.problems.append("\(actual.count - expected.count) \(what) should not exist (the manifest lists \(expected.count), the file holds \(actual.count)).")
            } else {
                report.problems.append("Some \(what) are not the ones the manifest lists: an older revision was put back, or rows were replaced.")
            }
        }
    }

    /// Verifies every row of `table` with `verify` and holds its derived columns against its
    /// fields, recording each failure, and adds each row's digest to `manifest`.
    private func checkRows(_ table: SealedTable, _ db: Database, into report: inout CheckReport, manifest: inout Manifest,
                           verify: (Row) throws -> Void) throws {
        var state = Manifest.TableState()
        let manifested = ManifestedTable(table)
        let statement = try db.makeStatement(sql: "SELECT \(table.selection) FROM \(table.name)")
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            state.add(try Manifest.digest(ofCurrentRowOf: statement, in: manifested, key: keys.manifestKey))
            do {
                try verify(row)
                try checkDerivedColumns(of: row, in: table)
            } catch let error as VaultError {
                report.problems.append(error.description)
            }
        }
        manifest.tables[table.name] = state
        report.checked[table.name] = Int(state.count)
    }

    /// Throws where a derived column of `row` (``SealedTable/Derived``) is not the one its fields
    /// give under the vault's key. Derived rows are held against their row in ``checkEntries(_:into:manifest:)``.
    private func checkDerivedColumns(of row: Row, in table: SealedTable) throws {
        guard !table.derived.isEmpty else { return }
        let sealed = try SealedRow(table, row: row)
        let plaintexts = try sealed.openedFields(keys: keys)
        for derived in table.derived {
            guard case .column(let column, let value) = try derived.value(of: sealed, plaintexts: plaintexts, keys: keys) else { continue }
            guard Data.fromDatabaseValue(sealed[column]) == value else { throw sealed.tampered(derived.mismatch) }
        }
    }

    /// Every entry decrypted (read and decrypted side by side, ``BatchPipeline``), its tag index
    /// (the rows derived from it) compared, and the digests of entries and tag rows added to `manifest`.
    private func checkEntries(_ db: Database, into report: inout CheckReport, manifest: inout Manifest) throws {
        let keys = self.keys
        guard let (tagIndex, tagTable) = SealedTable.entry.derived.lazy.compactMap({ derived in derived.derivedTable.map { (derived, $0.name) } }).first else {
            preconditionFailure("entries derive no tag index")
        }
        var storedTags: [Int64: Set<Data>] = [:]
        var tagState = Manifest.TableState()
        // Tag rows of a value type other than blob and integer are digested as stored, here; the
        // others with their entry, on the helpers.
        let tagStatement = try db.makeStatement(sql: "SELECT bidx, entry_seq, typeof(bidx) = 'blob' AND typeof(entry_seq) = 'integer' FROM \(tagTable)")
        let tagRows = try Row.fetchCursor(tagStatement)
        while let row = try tagRows.next() {
            guard try row.stored(2, table: tagTable) as Bool else {
                tagState.add(try Manifest.digest(ofCurrentRowOf: tagStatement, in: .entryTag, key: keys.manifestKey))
                continue
            }
            storedTags[try row.stored(1, table: tagTable), default: []].insert(try row.stored(0, table: tagTable))
        }
        var problems: [String] = []
        var staleIndexes = 0
        // A vault not yet upgraded (FORMAT.md §11.4) keeps the tag index of its release's normal
        // form until its first write re-indexes it: a difference there is expected, not tampering.
        let indexMayBeStale = try !Manifest.isStored(db)
        let staleMarker = "stale tag index"
        var entryState = Manifest.TableState()
        typealias Item = (seq: Int64, id: String, digest: DigestSum?, row: Result<EncryptedEntryRow, any Error>)
        let pipeline = BatchPipeline(transform: { [storedTags] (item: Item) -> (DigestSum, Manifest.TableState, String?) in
            // A row read whole is digested here, on the helpers; one that could not be read, where it was.
            guard let digest = try item.digest ?? (try? item.row.get()).map({
                try RowDigest.of($0.manifestValues(seq: item.seq), in: .entry, key: keys.manifestKey)
            }) else { throw VaultError.storage("an entry row could not be digested") }
            var tags = Manifest.TableState()
            for bidx in storedTags[item.seq] ?? [] {
                tags.add(try RowDigest.of([bidx.databaseValue, item.seq.databaseValue], in: .entryTag, key: keys.manifestKey))
            }
            do {
                let entry = try item.row.get().decrypt(keys: keys)
                let expected = Self.tagIndexes(of: entry, keys: keys)
                guard (storedTags[item.seq] ?? []) != expected else { return (digest, tags, nil) }
                return (digest, tags, indexMayBeStale ? staleMarker : "Entry \(item.id): \(tagIndex.mismatch).")
            } catch let error as VaultError {
                return (digest, tags, error.description)
            }
        }, deliver: { results in
            for (digest, tags, problem) in results {
                entryState.add(digest)
                tagState.absorb(tags)
                if problem == staleMarker { staleIndexes += 1 } else if let problem { problems.append(problem) }
            }
        })
        var entrySeqs: Set<Int64> = []
        let statement = try db.makeStatement(sql: "SELECT \(EncryptedEntryRow.selection), seq FROM entry ORDER BY created_at")
        let rows = try Row.fetchCursor(statement)
        let entryTable = ManifestedTable(.entry)
        // The manifest lists `seq` first; this selection has it last.
        let positions = [Int32(EncryptedEntryRow.seqColumn)] + (0..<Int32(EncryptedEntryRow.seqColumn))
        var batch: [Item] = []
        let digestInPlace = { try Manifest.digest(ofCurrentRowOf: statement, in: entryTable, positions: positions, key: keys.manifestKey) }
        while let row = try rows.next() {
            // The helpers digest the parsed row, which is the row as stored only where every value
            // is of the type jv writes and parses back to its very bytes (a value stored as another
            // type, or text that reads the same, is not): the others are digested as stored, here.
            // The types are looked at before the parser reads the row, which converts a value read
            // as another type in place.
            var digest = StoredEntry.hasWrittenTypes(statement, at: positions) ? nil : try digestInPlace()
            let seq: Int64 = try row.stored(EncryptedEntryRow.seqColumn, table: EncryptedEntryRow.table)
            entrySeqs.insert(seq)
            let parsed = Result { try EncryptedEntryRow(row: row) }
            if digest == nil, !((try? parsed.get()).map { StoredEntry.holds($0.manifestValues(seq: seq), statement, at: positions) } ?? false) {
                digest = try digestInPlace()
            }
            batch.append((seq, (try? row.stored(0, table: EncryptedEntryRow.table)) ?? "?", digest, parsed))
            if batch.count == 1024 {
                try pipeline.submit(batch)
                batch = []
            }
        }
        try pipeline.submit(batch)
        try pipeline.finish()
        // Tag rows that name no entry were not digested with one.
        for (seq, bidxs) in storedTags where !entrySeqs.contains(seq) {
            for bidx in bidxs {
                tagState.add(try RowDigest.of([bidx.databaseValue, seq.databaseValue], in: .entryTag, key: keys.manifestKey))
            }
        }
        manifest.tables["entry"] = entryState
        manifest.tables[tagTable] = tagState
        report.problems += problems
        if staleIndexes > 0 {
            report.notes.append("\(staleIndexes) entries have a tag index of an earlier normal form; the next change to the vault re-indexes them.")
        }
        for orphan in storedTags.keys.sorted() where !entrySeqs.contains(orphan) {
            report.problems.append("Tag index rows name entry row \(orphan), which does not exist.")
        }
        report.checked[EncryptedEntryRow.table] = entrySeqs.count
    }
}


/// An entry row as the statement of ``UnlockedVault/check()`` stands on it, compared with what
/// jv writes, so that only a row stored exactly as jv would write it is digested from its parsed
/// form (FORMAT.md §11.1: the digest is of the values as stored, type included).
private enum StoredEntry {
    /// The SQLite types of an entry's columns as jv writes them, in the manifest's order (`seq` first).
    private static let writtenTypes: [Int32] = [SQLITE_INTEGER, SQLITE_TEXT, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER,
                                                SQLITE_TEXT, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_BLOB, SQLITE_BLOB, SQLITE_BLOB]

    /// Whether the columns `positions` hold values of the types jv writes.
    static func hasWrittenTypes(_ statement: Statement, at positions: [Int32]) -> Bool {
        zip(positions, writtenTypes).allSatisfy { sqlite3_column_type(statement.sqliteStatement, $0) == $1 }
    }

    /// Whether the columns `positions`, of the types jv writes, hold exactly `values`, byte for byte.
    static func holds(_ values: [DatabaseValue], _ statement: Statement, at positions: [Int32]) -> Bool {
        let sqlite = statement.sqliteStatement
        return zip(positions, values).allSatisfy { position, value in
            switch value.storage {
            case .int64(let integer):
                return sqlite3_column_type(sqlite, position) == SQLITE_INTEGER && sqlite3_column_int64(sqlite, position) == integer
            case .string(let text):
                guard sqlite3_column_type(sqlite, position) == SQLITE_TEXT else { return false }
                let stored = UnsafeRawBufferPointer(start: sqlite3_column_text(sqlite, position), count: Int(sqlite3_column_bytes(sqlite, position)))
                var text = text
                return text.withUTF8 { same(UnsafeRawBufferPointer($0), stored) }
            case .blob(let data):
                guard sqlite3_column_type(sqlite, position) == SQLITE_BLOB else { return false }
                let stored = UnsafeRawBufferPointer(start: sqlite3_column_blob(sqlite, position), count: Int(sqlite3_column_bytes(sqlite, position)))
                return data.withUnsafeBytes { same($0, stored) }
            case .null, .double:
                return false
            }
        }
    }

    private static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let first = a.baseAddress, let second = b.baseAddress else { return a.count == 0 }
        return memcmp(first, second, a.count) == 0
    }
}
