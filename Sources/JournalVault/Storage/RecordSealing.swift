// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension RecordID {
    /// The UUID in a stored `id` column; anything else is reported as tampering.
    static func parse(_ text: String, table: String) throws -> UUID {
        guard let id = UUID(storageText: text) else {
            throw VaultError.tamperedRecord(table: table, id: text, detail: "the id is not a UUID")
        }
        return id
    }

    /// An optional stored id column.
    static func parse(optional text: String?, table: String) throws -> UUID? {
        try text.map { try parse($0, table: table) }
    }
}

extension String {
    /// The UTF-8 of decrypted bytes, or a tampering error (an authenticated field is always UTF-8).
    init(decrypted bytes: [UInt8], table: String, id: UUID) throws {
        self = try bytes.withUnsafeBufferPointer { try String(decrypted: $0, table: table, id: id) }
    }

    init(decrypted bytes: UnsafeBufferPointer<UInt8>, table: String, id: UUID) throws {
        guard let text = UTF8Validation.string(bytes) else {
            throw VaultError.tamperedRecord(table: table, id: id.storageText, detail: "a decrypted field is not UTF-8")
        }
        self = text
    }
}

extension JSONValue {
    /// A decrypted JSON field, or a tampering error.
    init(decrypted bytes: [UInt8], table: String, id: UUID) throws {
        guard let value = JSONValue.parse(stored: bytes) else {
            throw VaultError.tamperedRecord(table: table, id: id.storageText, detail: "a decrypted field is not JSON")
        }
        self = value
    }

    var utf8Bytes: [UInt8] { Array(serialized().utf8) }
}

extension Row {
    /// Column `index` as `Value`. A stored value of another type (the file was edited) is
    /// reported as tampering instead of trapping.
    func stored<Value: DatabaseValueConvertible>(_ index: Int, table: String) throws -> Value {
        do {
            return try decode(Value.self, atIndex: index)
        } catch {
            throw wrongType(index, table: table)
        }
    }

    /// The same for the column types SQLite hands over directly (integers, text, blobs), which
    /// skips GRDB's intermediate `DatabaseValue`: the read path of every listing and search.
    func stored<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int, table: String) throws -> Value {
        do {
            return try decode(Value.self, atIndex: index)
        } catch {
            throw wrongType(index, table: table)
        }
    }

    private func wrongType(_ index: Int, table: String) -> VaultError {
        .wrongType(table: table, id: (try? decode(String.self, atIndex: 0)) ?? "?", column: Array(columnNames)[index])
    }
}

extension VaultError {
    /// A stored value whose type is not its column's: the file was edited.
    static func wrongType(table: String, id: String, column: String) -> VaultError {
        .tamperedRecord(table: table, id: id, detail: "column \(column) holds a value of the wrong type")
    }
}

extension Instant {
    /// The range jv reads and writes: years 1 to 9999, offsets within ±18 hours.
    static let millisRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999
    static let offsetRange: ClosedRange<Int> = -64_800...64_800

    /// A stored moment, checked before any arithmetic on it: an edited value outside the range
    /// is reported as tampering (it could otherwise overflow).
    static func stored(millis: Int64, utcOffsetSeconds: Int = 0, table: String, id: UUID) throws -> Instant {
        guard millisRange.contains(millis), offsetRange.contains(utcOffsetSeconds) else {
            throw VaultError.tamperedRecord(table: table, id: id.storageText, detail: "a timestamp or UTC offset is out of range")
        }
        return Instant(millis: millis, utcOffsetSeconds: utcOffsetSeconds)
    }
}
