// SPDX-License-Identifier: Apache-2.0
/// Big-endian encoders and decoders for the binary layouts of FORMAT.md.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { append(UInt64(value), width: 2) }
    mutating func u32(_ value: UInt32) { append(UInt64(value), width: 4) }
    mutating func u64(_ value: UInt64) { append(value, width: 8) }
    mutating func i64(_ value: Int64) { append(UInt64(bitPattern: value), width: 8) }
    mutating func raw<Bytes: Sequence>(_ value: Bytes) where Bytes.Element == UInt8 { bytes.append(contentsOf: value) }

    /// A u8 length then the bytes; for short names (table, field) only.
    mutating func shortString(_ text: String) {
        u8(UInt8(truncatingIfNeeded: text.utf8.count))
        raw(text.utf8)
    }

    private mutating func append(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}

/// Reads what ``ByteWriter`` wrote; every read returns nil past the end instead of trapping.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func u8() -> UInt8? { read(1).map { UInt8($0) } }
    mutating func u16() -> UInt16? { read(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { read(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { read(8) }
    mutating func i64() -> Int64? { read(8).map { Int64(bitPattern: $0) } }

    mutating func raw(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    private mutating func read(_ width: Int) -> UInt64? {
        guard remaining >= width else { return nil }
        defer { offset += width }
        return bytes[offset..<offset + width].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
