import Foundation

/// What an encrypted field is bound to: its table, record id, key version and revision, and
/// the row's plaintext columns that carry meaning (created_at first). The associated data of
/// every field is built from this, so a ciphertext copied to another row or field, or a row
/// whose plaintext columns were edited, fails to decrypt.
///
/// Layout (FORMAT.md §Associated data), all integers big-endian:
/// `"JV" ‖ 0x01 ‖ u8 len ‖ table ‖ id[16] ‖ u8 len ‖ field ‖ key_version u32 ‖ revision u32 ‖
///  u8 n ‖ n × bound value`, a bound value being `0x01 ‖ i64` or `0x02 ‖ u32 len ‖ UTF-8` or `0x00` (null).
struct RecordBinding: Sendable {
    enum Value: Sendable, Hashable {
        case integer(Int64)
        case text(String)
        case null
    }

    let table: String
    let id: UUID
    let meta: RecordMeta
    /// The row's plaintext columns, in the order FORMAT.md lists for the table.
    let columns: [Value]

    func associatedData(field: String) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw("JV".utf8)
        writer.u8(RecordMeta.format)
        writer.shortString(table)
        writer.raw(id.bytes)
        writer.shortString(field)
        writer.u32(meta.keyVersion)
        writer.u32(meta.revision)
        writer.u8(UInt8(columns.count))
        for column in columns {
            switch column {
            case .null:
                writer.u8(0)
            case .integer(let value):
                writer.u8(1)
                writer.i64(value)
            case .text(let text):
                writer.u8(2)
                let utf8 = Array(text.utf8)
                writer.u32(UInt32(utf8.count))
                writer.raw(utf8)
            }
        }
        return writer.bytes
    }
}

extension UUID {
    /// The 16 bytes of the UUID, in RFC 4122 order.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    /// Lower-case canonical text, the form stored in `id` columns.
    var storageText: String { uuidString.lowercased() }
}
