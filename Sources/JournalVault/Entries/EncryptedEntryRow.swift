// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// A test of an entry's decrypted content (valid UTF-8: decryption checks it first), made on
/// the threads that decrypt: a listing's `contains`, a search's query.
typealias EntryContentFilter = @Sendable (UnsafeBufferPointer<UInt8>) throws -> Bool

/// The stored form of an entry: plaintext columns, `enc_meta`, and the encrypted `content` and
/// `tags` fields (FORMAT.md §1.3). Encryption and decryption happen here and nowhere else.
///
/// Entries are read and written by the hundred thousand (listing, search, check, import), so
/// unlike the other ``SealedRecordRow`` types this one keeps its columns as typed properties
/// rather than a ``SealedRow``; where each is, and what is bound, still comes from the description.
struct EncryptedEntryRow: SealedRecordRow {
    static let sealed = SealedTable.entry
    private static let noTags = Array("[]".utf8)
    /// Where `seq` is when selected as `selection, seq` (after the columns this type reads).
    static let seqColumn = sealed.columns.count
    private static let insertWithSeqSQL = "INSERT INTO entry (seq, \(selection)) VALUES (?, \(sealed.columns.map { _ in "?" }.joined(separator: ", ")))"

    /// Where each column is in the description's ``SealedTable/columns``.
    private enum Position {
        static let id = sealed.index(of: "id"), createdAt = sealed.index(of: "created_at")
        static let modifiedAt = sealed.index(of: "modified_at"), utcOffset = sealed.index(of: "utc_offset")
        static let localDay = sealed.index(of: "local_day"), version = sealed.index(of: "version")
        static let starred = sealed.index(of: "starred"), encMeta = sealed.index(of: "enc_meta")
        static let content = sealed.index(of: "content"), tags = sealed.index(of: "tags")
    }

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
        id = try RecordID.parse(try row.stored(Position.id, table: Self.table), table: Self.table)
        createdAt = try row.stored(Position.createdAt, table: Self.table)
        modifiedAt = try row.stored(Position.modifiedAt, table: Self.table)
        utcOffset = try row.stored(Position.utcOffset, table: Self.table)
        localDay = try row.stored(Position.localDay, table: Self.table)
        version = try row.stored(Position.version, table: Self.table)
        starred = try row.stored(Position.starred, table: Self.table)
        encMeta = try row.stored(Position.encMeta, table: Self.table)
        content = try row.stored(Position.content, table: Self.table)
        tags = try row.stored(Position.tags, table: Self.table)
        try checkInstants()
    }

    /// The same from the generic form of the row.
    init(_ row: SealedRow) throws {
        id = row.id
        createdAt = try row.integer("created_at")
        modifiedAt = try row.integer("modified_at")
        utcOffset = Int(try row.integer("utc_offset"))
        localDay = try row.text("local_day")
        version = Int(try row.integer("version"))
        starred = try row.integer("starred") != 0
        encMeta = try row.blob("enc_meta")
        content = try row.blob("content")
        tags = try row.blob("tags")
        try checkInstants()
    }

    private func checkInstants() throws {
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
        let sealed = try keys.records.seal([
            ("content", Array(entry.content.utf8)),
            ("tags", JSONValue.strings(entry.explicitTags).utf8Bytes),
        ], binding: try binding(meta: meta))
        content = sealed[0]
        tags = sealed[1]
    }

    /// Authenticates and decrypts; any mismatch is ``VaultError/tamperedRecord(table:id:detail:)``.
    func decrypt(keys: VaultKeys) throws -> Entry {
        guard let entry = try decrypt(keys: keys, ifContentPasses: nil) else { throw tampered("the content field did not open") }
        return entry
    }

    /// The entry when its decrypted content passes `filter` (all of them when nil), else nil: the
    /// search path, where most rows are rejected or, for a common word, most are kept. The
    /// content is opened and checked as UTF-8 once, for the filter and the entry's text alike;
    /// the tags are opened only for a row that passes. Any mismatch is
    /// ``VaultError/tamperedRecord(table:id:detail:)``.
    func decrypt(keys: VaultKeys, ifContentPasses filter: EntryContentFilter?) throws -> Entry? {
        var text: String?
        var explicitTags: [String]?
        try keys.records.open([("content", content), ("tags", tags)], binding: try binding(meta: try parsedMeta()), while: { field, plaintext in
            guard field == 0 else {
                // Most entries have no explicit tags; their field is `[]`, not worth a JSON parser.
                explicitTags = plaintext.elementsEqual(Self.noTags) ? []
                    : try JSONValue(decrypted: Array(plaintext), table: Self.table, id: id).arrayValue?.compactMap(\.stringValue)
                return true
            }
            let (valid, isASCII) = UTF8Validation.check(plaintext)
            guard valid else { throw tampered("a decrypted field is not UTF-8") }
            guard try filter?(plaintext) ?? true else { return false }
            text = UTF8Validation.string(checked: plaintext, isASCII: isASCII)
            return true
        })
        guard let text else { return nil }
        guard CivilDay(iso: localDay) == Instant(millis: createdAt, utcOffsetSeconds: utcOffset).localDay else {
            throw tampered("local_day does not match created_at")
        }
        guard let explicitTags else { throw tampered("the tags field is not a list") }
        return Entry(id: id, content: text, created: Instant(millis: createdAt, utcOffsetSeconds: utcOffset),
                     modifiedAt: modifiedAt, starred: starred, explicitTags: explicitTags, version: version)
    }

    func parsedMeta() throws -> RecordMeta {
        guard let meta = RecordMeta(encoded: encMeta) else { throw tampered("enc_meta is malformed") }
        return meta
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }

    func insert(_ db: Database) throws {
        try db.cachedStatement(sql: Self.sealed.insertSQL).execute(arguments: StatementArguments(values))
    }

    /// Replaces the stored row with the same id.
    func update(_ db: Database) throws {
        try db.cachedStatement(sql: Self.sealed.updateSQL).execute(arguments: Self.sealed.updateArguments(values))
    }

    /// Inserts the row under a row key chosen by the caller (who digests it before it is stored).
    func insert(_ db: Database, seq: Int64) throws {
        try db.cachedStatement(sql: Self.insertWithSeqSQL).execute(arguments: StatementArguments(manifestValues(seq: seq)))
    }

    /// The row as the manifest digests it (FORMAT.md §11.1): `seq`, then every column as stored.
    func manifestValues(seq: Int64) -> [DatabaseValue] {
        [seq.databaseValue] + values
    }

    /// The generic form of the row, for the code that reads every table alike.
    var row: SealedRow { SealedRow(Self.sealed, id: id, values: values) }

    /// The columns of ``selection``, as SQLite stores them.
    private var values: [DatabaseValue] { Self.sealed.columns.indices.map { value(at: $0) } }

    /// The column at `position` of ``selection``, as SQLite stores it.
    private func value(at position: Int) -> DatabaseValue {
        switch position {
        case Position.id: id.storageText.databaseValue
        case Position.createdAt: createdAt.databaseValue
        case Position.modifiedAt: modifiedAt.databaseValue
        case Position.utcOffset: utcOffset.databaseValue
        case Position.localDay: localDay.databaseValue
        case Position.version: version.databaseValue
        case Position.starred: starred.databaseValue
        case Position.encMeta: encMeta.databaseValue
        case Position.content: content.databaseValue
        case Position.tags: tags.databaseValue
        default: preconditionFailure("entry has no column \(position)")
        }
    }

    /// What every field's associated data binds: the description's bound columns, read in place.
    func binding(meta: RecordMeta) throws -> RecordBinding {
        RecordBinding(table: Self.table, id: id, meta: meta, columns: try Self.sealed.boundColumns(id: id) { value(at: $0) })
    }

    private func tampered(_ detail: String) -> VaultError {
        VaultError.tamperedRecord(table: Self.table, id: id.storageText, detail: detail)
    }
}
