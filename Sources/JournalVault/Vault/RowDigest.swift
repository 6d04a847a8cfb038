// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite
import VaultCrypto

/// The keyed digest of one row of the row-set manifest (FORMAT.md §11.1), fed value by value:
/// `BLAKE2b-256(key = K_man, "JVLT-row" ‖ u8 len ‖ table ‖ u8 n ‖ n × value)`. Values can come
/// straight from SQLite's own buffers (a trigger's arguments, a statement's columns), so that
/// digesting every row of a write or of `jv check` copies none of them.
struct RowDigest: ~Copyable {
    private static let domain = Array("JVLT-row".utf8)
    private var stream: Blake2bStream

    init(table: String, columnCount: Int, key: SecureBytes) throws {
        stream = try Blake2bStream(key: key)
        stream.update(Self.header(table: table, columnCount: columnCount))
    }

    /// A row of `table`, whose header is made once per table.
    init(_ table: ManifestedTable, key: SecureBytes) throws {
        stream = try Blake2bStream(key: key)
        stream.update(table.digestHeader)
    }

    /// `"JVLT-row" ‖ u8 len ‖ table ‖ u8 n`.
    static func header(table: String, columnCount: Int) -> [UInt8] {
        var header = ByteWriter(capacity: 32)
        header.raw(domain)
        header.shortString(table)
        header.u8(UInt8(truncatingIfNeeded: columnCount))
        return header.bytes
    }

    /// The digest of a row given as values (the path of rows already read).
    static func of(_ values: some Collection<DatabaseValue>, in table: String, key: SecureBytes) throws -> DigestSum {
        try of(values, digest: try RowDigest(table: table, columnCount: values.count, key: key))
    }

    /// The same for a row of `table` with all its columns.
    static func of(_ values: some Collection<DatabaseValue>, in table: ManifestedTable, key: SecureBytes) throws -> DigestSum {
        precondition(values.count == table.columns.count)
        return try of(values, digest: try RowDigest(table, key: key))
    }

    private static func of(_ values: some Collection<DatabaseValue>, digest: consuming RowDigest) throws -> DigestSum {
        for value in values {
            switch value.storage {
            case .null: digest.null()
            case .int64(let integer): digest.integer(integer)
            case .double(let double): digest.real(double)
            case .string(let text): text.utf8.withContiguousStorageIfAvailable { digest.bytes(.text, UnsafeRawBufferPointer($0)) }
                ?? digest.bytes(.text, Array(text.utf8))
            case .blob(let data): data.withUnsafeBytes { digest.bytes(.blob, $0) }
            }
        }
        return try digest.finish()
    }

    /// The digest of an `attachment_chunk` row — `stream_id` as text, `idx`, `data` — as its
    /// trigger would give it, from the chunk's bytes where they are: for a writer that digests its
    /// chunks on the thread that seals them (``ManifestRecorder/precomputed(_:)``).
    static func ofChunk(stream: String, index: Int64, data: UnsafeRawBufferPointer, key: SecureBytes) throws -> DigestSum {
        var digest = try RowDigest(.attachmentChunk, key: key)
        var text = stream
        text.withUTF8 { digest.bytes(.text, UnsafeRawBufferPointer($0)) }
        digest.integer(index)
        digest.bytes(.blob, data)
        return try digest.finish()
    }

    /// A value handed to an SQL function (a trigger's argument).
    mutating func append(_ value: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let text = sqlite3_value_text(value)
            bytes(.text, UnsafeRawBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
        case SQLITE_BLOB:
            let blob = sqlite3_value_blob(value)
            bytes(.blob, UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_value_bytes(value))))
        default: null()
        }
    }

    /// Column `index` of the row a statement stands on.
    mutating func append(column index: Int32, of statement: OpaquePointer) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let text = sqlite3_column_text(statement, index)
            bytes(.text, UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index))))
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(statement, index)
            bytes(.blob, UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(statement, index))))
        default: null()
        }
    }

    consuming func finish() throws -> DigestSum {
        DigestSum(bytes: try stream.finalize())
    }

    /// The type tags of FORMAT.md §11.1.
    enum Kind: UInt8 {
        case null = 0, integer = 1, text = 2, blob = 3, real = 4
    }

    private mutating func null() {
        stream.update([Kind.null.rawValue])
    }

    private mutating func integer(_ value: Int64) {
        fixed(.integer, UInt64(bitPattern: value))
    }

    private mutating func real(_ value: Double) {
        fixed(.real, value.bitPattern)
    }

    private mutating func fixed(_ kind: Kind, _ value: UInt64) {
        var encoded = (kind.rawValue, value.bigEndian)
        // The tuple has padding between its members: hash the tag, then the 8 bytes.
        withUnsafeBytes(of: &encoded.0) { stream.update($0) }
        withUnsafeBytes(of: &encoded.1) { stream.update($0) }
    }

    private mutating func bytes(_ kind: Kind, _ bytes: UnsafeRawBufferPointer) {
        var length = (kind.rawValue, UInt32(truncatingIfNeeded: bytes.count).bigEndian)
        withUnsafeBytes(of: &length.0) { stream.update($0) }
        withUnsafeBytes(of: &length.1) { stream.update($0) }
        stream.update(bytes)
    }

    private mutating func bytes(_ kind: Kind, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { self.bytes(kind, $0) }
    }
}
