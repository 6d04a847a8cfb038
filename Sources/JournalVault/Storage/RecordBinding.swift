// SPDX-License-Identifier: Apache-2.0
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
        var writer = ByteWriter(capacity: 128)
        writer.raw("JV".utf8)
        writer.u8(RecordMeta.format)
        writer.shortString(table)
        withUnsafeBytes(of: id.uuid) { writer.raw($0) }
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
                writer.u32(UInt32(text.utf8.count))
                writer.raw(text.utf8)
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

    /// The UUID whose ``bytes`` are the first 16 of `bytes` (zeros where fewer are given).
    init(bytes: [UInt8]) {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes.prefix(16)) }
        self.init(uuid: value)
    }

    /// The RFC 9562 version-8 UUID made of the first 16 bytes of `digest` (a hash), with the
    /// version nibble set to 8 and the variant bits to `10`: for ids derived alike from the same
    /// content (knowledge nodes and relations, FORMAT.md §1.6; imported records, conflict copies).
    init(version8From digest: [UInt8]) {
        var bytes = UUID(bytes: digest).bytes
        bytes[6] = bytes[6] & 0x0F | 0x80
        bytes[8] = bytes[8] & 0x3F | 0x80
        self.init(bytes: bytes)
    }

    /// Lower-case canonical text, the form stored in `id` columns and printed. Written out by
    /// hand: rows are read and written by the hundred thousand, and Foundation's formatter goes
    /// through printf.
    ///
    /// ```swift
    /// entry.id.storageText   // "0f8fad5b-d9cb-469f-a165-70867728950e"
    /// ```
    public var storageText: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var end = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[end] = UInt8(ascii: "-")
                        end += 1
                    }
                    text[end] = Hex.digit(byte >> 4)
                    text[end + 1] = Hex.digit(byte)
                    end += 2
                }
                return end
            }
        }
    }

    /// Parses exactly the ``storageText`` form (36 characters, lower-case hex); nil for anything else.
    init?(storageText text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { utf8 -> uuid_t? in
            guard utf8.count == 36 else { return nil }
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let valid = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard utf8[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = Hex.value(utf8[position]), let low = Hex.value(utf8[position + 1]) else { return false }
                    output[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return valid ? bytes : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }
}
