// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// One change a pack carries (FORMAT.md §14.3): a record of a ``SealedTable`` as it is stored
/// (plaintext columns and sealed fields unchanged: their associated data still binds table, id,
/// key version, revision and times), or a tombstone — with the revision's stamp and the stamp
/// of the revision it was made from (`base`, nil for a new record).
struct SyncChange: Sendable {
    enum Body: Sendable {
        /// Every column, in ``SealedTable/columns`` order.
        case row([DatabaseValue])
        case tombstone
    }

    let table: SealedTable
    let id: UUID
    let stamp: SyncStamp
    let base: SyncStamp?
    let body: Body

    var isTombstone: Bool {
        if case .tombstone = body { return true }
        return false
    }

    private enum Kind: UInt8 {
        case row = 1
        case tombstone = 2
    }

    private enum ValueType: UInt8 {
        case null = 0, integer = 1, text = 2, blob = 3, real = 4
    }

    /// `kind u8 ‖ table u8 ‖ id[16] ‖ stamp ‖ has_base u8 ‖ [base] ‖ (row: n u8 ‖ n × value)`;
    /// a value is `0` (null), `1 ‖ i64`, `2 ‖ u32 len ‖ UTF-8`, `3 ‖ u32 len ‖ bytes` or `4 ‖ f64 bits`.
    func encode(into writer: inout ByteWriter) {
        writer.u8(isTombstone ? Kind.tombstone.rawValue : Kind.row.rawValue)
        writer.u8(table.wireID)
        writer.raw(id.bytes)
        stamp.encode(into: &writer)
        writer.u8(base == nil ? 0 : 1)
        base?.encode(into: &writer)
        guard case .row(let values) = body else { return }
        writer.u8(UInt8(values.count))
        for value in values {
            switch value.storage {
            case .null:
                writer.u8(ValueType.null.rawValue)
            case .int64(let integer):
                writer.u8(ValueType.integer.rawValue)
                writer.i64(integer)
            case .double(let real):
                writer.u8(ValueType.real.rawValue)
                writer.u64(real.bitPattern)
            case .string(let text):
                writer.u8(ValueType.text.rawValue)
                writer.u32(UInt32(text.utf8.count))
                writer.raw(text.utf8)
            case .blob(let data):
                writer.u8(ValueType.blob.rawValue)
                writer.u32(UInt32(data.count))
                writer.raw(data)
            }
        }
    }

    /// Parses one change; a malformed one is refused (the pack authenticated, so it was made so).
    static func decode(_ bytes: [UInt8]) throws -> SyncChange {
        var reader = ByteReader(bytes)
        func malformed() -> VaultError { VaultError.syncPackRefused("a change in it is malformed") }
        guard let kindByte = reader.u8(), let kind = Kind(rawValue: kindByte), let tableByte = reader.u8(),
              let table = SealedTable.wire(tableByte), let id = reader.raw(16), let stamp = SyncStamp.decode(from: &reader),
              let hasBase = reader.u8(), hasBase <= 1 else { throw malformed() }
        var base: SyncStamp?
        if hasBase == 1 {
            guard let decoded = SyncStamp.decode(from: &reader) else { throw malformed() }
            base = decoded
        }
        var body = Body.tombstone
        if kind == .row {
            guard let count = reader.u8(), Int(count) == table.columns.count else { throw malformed() }
            var values: [DatabaseValue] = []
            values.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let typeByte = reader.u8(), let type = ValueType(rawValue: typeByte) else { throw malformed() }
                switch type {
                case .null:
                    values.append(.null)
                case .integer:
                    guard let integer = reader.i64() else { throw malformed() }
                    values.append(integer.databaseValue)
                case .real:
                    guard let bits = reader.u64() else { throw malformed() }
                    values.append(Double(bitPattern: bits).databaseValue)
                case .text:
                    guard let length = reader.u32(), let utf8 = reader.raw(Int(length)), let text = String(validating: utf8, as: UTF8.self) else {
                        throw malformed()
                    }
                    values.append(text.databaseValue)
                case .blob:
                    guard let length = reader.u32(), let data = reader.raw(Int(length)) else { throw malformed() }
                    values.append(Data(data).databaseValue)
                }
            }
            body = .row(values)
        }
        guard reader.remaining == 0 else { throw malformed() }
        let change = SyncChange(table: table, id: UUID(bytes: id), stamp: stamp, base: base, body: body)
        if case .row(let values) = body, String.fromDatabaseValue(values[table.idIndex]) != change.id.storageText { throw malformed() }
        return change
    }
}
