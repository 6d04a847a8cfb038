// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// The stored form of an entry: plaintext columns, `enc_meta`, and the encrypted `content` and
/// `tags` fields (FORMAT.md §entry). Encryption and decryption happen here and nowhere else.
struct EncryptedEntryRow: Sendable {
    static let table = "entry"
    private static let noTags = Array("[]".utf8)
    static let selection = SealedTable.entry.selection
    /// Where `seq` is when selected as `selection, seq` (after the columns this type reads).
    static let seqColumn = SealedTable.entry.columns.count

    var id: UUID
    var createdAt: Int64
    var modifiedAt: Int64
    var utcOffset: Int
    var localDay: String
    var version: Int
    var starred: Bool
    var encMeta: Data
    var content: Data
    var tags: Data

    /// Reads a row selected with ``selection``; a malformed id is reported as tampering.
    init(row: Row) throws {
        id = try RecordID.parse(try row.stored(0, table: Self.table), table: Self.table)
        createdAt = try row.stored(1, table: Self.table)
        modifiedAt = try row.stored(2, table: Self.table)
        utcOffset = try row.stored(3, table: Self.table)
        localDay = try row.stored(4, table: Self.table)
        version = try row.stored(5, table: Self.table)
        starred = try row.stored(6, table: Self.table)
        encMeta = try row.stored(7, table: Self.table)
        content = try row.stored(8, table: Self.table)
        tags = try row.stored(9, table: Self.table)
        _ = try Instant.stored(millis: createdAt, utcOffsetSeconds: utcOffset, table: Self.table, id: id)
        _ = try Instant.stored(millis: modifiedAt, table: Self.table, id: id)
    }

    /// Encrypts `entry` with fresh metadata `meta`.
    init(_ entry: Entry, meta: RecordMeta, keys: VaultKeys) throws {
        id = entry.id
        createdAt = entry.created.millis
        modifiedAt = entry.modifiedAt
        utcOffset = entry.created.utcOffsetSeconds
        localDay = entry.localDay.description
        version = entry.version
        starred = entry.starred
        encMeta = meta.encoded
        content = Data()
        tags = Data()
        let sealed = try keys.seal([
            ("content", Array(entry.content.utf8)),
            ("tags", JSONValue.strings(entry.explicitTags).utf8Bytes),
        ], table: Self.table, id: id, meta: meta, columns: boundColumns)
        content = sealed[0]
        tags = sealed[1]
    }

    /// Authenticates and decrypts; any mismatch is ``VaultError/tamperedRecord(table:id:detail:)``.
    func decrypt(keys: VaultKeys) throws -> Entry {
        guard CivilDay(iso: localDay) == Instant(millis: createdAt, utcOffsetSeconds: utcOffset).localDay else {
            throw tampered("local_day does not match created_at")
        }
        var text = ""
        var explicitTags: [String]?
        try keys.open([("content", content), ("tags", tags)], table: Self.table, id: id, encMeta: encMeta,
                      columns: boundColumns) { field, plaintext in
            if field == 0 {
                text = try String(decrypted: plaintext, table: Self.table, id: id)
            } else {
                // Most entries have no explicit tags; their field is `[]`, not worth a JSON parser.
                explicitTags = plaintext.elementsEqual(Self.noTags) ? []
                    : try JSONValue(decrypted: Array(plaintext), table: Self.table, id: id).arrayValue?.compactMap(\.stringValue)
            }
        }
        guard let explicitTags else { throw tampered("the tags field is not a list") }
        return Entry(id: id, content: text, created: Instant(millis: createdAt, utcOffsetSeconds: utcOffset),
                     modifiedAt: modifiedAt, starred: starred, explicitTags: explicitTags, version: version)
    }

    /// Whether the decrypted content matches, without decrypting the rest of the row or making
    /// a `String` of it: the search path for the many rows that do not match.
    func contentMatches(_ matcher: TextMatcher, keys: VaultKeys) throws -> Bool {
        var matches = false
        try keys.open([("content", content)], table: Self.table, id: id, encMeta: encMeta, columns: boundColumns) { _, plaintext in
            matches = matcher.matches(utf8: plaintext)
        }
        return matches
    }

    func parsedMeta() throws -> RecordMeta {
        guard let meta = RecordMeta(encoded: encMeta) else { throw tampered("enc_meta is malformed") }
        return meta
    }

    func insert(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO entry (\(Self.selection)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: arguments)
    }

    /// Replaces the stored row with the same id.
    func update(_ db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE entry SET created_at = ?2, modified_at = ?3, utc_offset = ?4, local_day = ?5, version = ?6,
            starred = ?7, enc_meta = ?8, content = ?9, tags = ?10 WHERE id = ?1
            """).execute(arguments: arguments)
    }

    /// Inserts the row under a row key chosen by the caller (who digests it before it is stored).
    func insert(_ db: Database, seq: Int64) throws {
        try db.cachedStatement(sql: """
            INSERT INTO entry (seq, \(Self.selection)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: StatementArguments([seq.databaseValue] + values))
    }

    /// The row as the manifest digests it (FORMAT.md §11.1): `seq`, then every column as stored.
    func manifestValues(seq: Int64) -> [DatabaseValue] {
        [seq.databaseValue] + values
    }

    private var arguments: StatementArguments { StatementArguments(values) }

    /// The columns of ``selection``, as SQLite stores them.
    private var values: [DatabaseValue] {
        [id.storageText.databaseValue, createdAt.databaseValue, modifiedAt.databaseValue, utcOffset.databaseValue,
         localDay.databaseValue, version.databaseValue, starred.databaseValue, encMeta.databaseValue, content.databaseValue,
         tags.databaseValue]
    }

    /// The plaintext columns bound into every field's associated data, in FORMAT.md's order:
    /// created_at, modified_at, utc_offset, version, starred.
    private var boundColumns: [RecordBinding.Value] {
        [.integer(createdAt), .integer(modifiedAt), .integer(Int64(utcOffset)), .integer(Int64(version)), .integer(starred ? 1 : 0)]
    }

    private func tampered(_ detail: String) -> VaultError {
        VaultError.tamperedRecord(table: Self.table, id: id.storageText, detail: detail)
    }
}
