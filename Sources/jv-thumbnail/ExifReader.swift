// SPDX-License-Identifier: Apache-2.0

/// The two things jv keeps from a photo's EXIF block: when it was taken and where. The block is
/// the file's own bytes (hostile as any), read here with every offset and count checked against
/// its length; a field that is missing, malformed or out of range is simply absent.
///
/// ```swift
/// let exif = ExifReader(block)          // "Exif\0\0" + TIFF header + IFDs, as libvips gives it
/// exif?.takenAt                          // "2024-05-01T12:00:00+02:00", or without the offset
/// exif?.location                         // (latitude: 46.5, longitude: -7.25)
/// ```
struct ExifReader {
    /// `YYYY-MM-DDTHH:MM:SS`, followed by `±HH:MM` when the file gives OffsetTimeOriginal (EXIF
    /// 2.31); without it, the camera's local time, as it was shown on the camera.
    private(set) var takenAt: String?
    /// Signed decimal degrees: north and east positive.
    private(set) var location: (latitude: Double, longitude: Double)?

    private let tiff: ArraySlice<UInt8>
    private let bigEndian: Bool

    private enum Tag {
        static let exifIFD = 0x8769, gpsIFD = 0x8825
        static let dateTimeOriginal = 0x9003, offsetTimeOriginal = 0x9011
        static let latitudeRef = 1, latitude = 2, longitudeRef = 3, longitude = 4
    }

    private enum FieldType {
        static let ascii = 2, long = 4, rational = 5

        /// Bytes per value of each TIFF type (SHORT and SSHORT 2, LONG, SLONG and FLOAT 4,
        /// RATIONAL, SRATIONAL and DOUBLE 8, the byte types 1).
        static func size(_ type: Int) -> Int {
            switch type {
            case 3, 8: 2
            case 4, 9, 11: 4
            case 5, 10, 12: 8
            default: 1
            }
        }
    }

    /// One IFD entry: its type, count, and where its value is (in the entry when it fits in 4 bytes).
    private struct Field {
        let type: Int
        let count: Int
        let valueOffset: Int
    }

    /// Reads `block` (with or without the `Exif\0\0` prefix of a JPEG's APP1 segment); nil when
    /// it does not start with a TIFF header.
    init?(_ block: [UInt8]) {
        var start = block.startIndex
        if block.starts(with: Array("Exif\0\0".utf8)) { start += 6 }
        tiff = block[start...]
        guard tiff.count >= 8 else { return nil }
        switch (tiff[start], tiff[start + 1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        guard unsigned(at: 2, size: 2) == 42, let first = unsigned(at: 4, size: 4) else { return nil }
        let main = fields(ofDirectoryAt: first)
        if let exif = main[Tag.exifIFD].flatMap(long) {
            let fields = fields(ofDirectoryAt: exif)
            takenAt = fields[Tag.dateTimeOriginal].flatMap(ascii).flatMap { ExifReader.isoDateTime($0, offset: fields[Tag.offsetTimeOriginal].flatMap(ascii)) }
        }
        if let gps = main[Tag.gpsIFD].flatMap(long) {
            let fields = fields(ofDirectoryAt: gps)
            if let latitude = coordinate(fields[Tag.latitude], reference: fields[Tag.latitudeRef], negative: "S", limit: 90),
               let longitude = coordinate(fields[Tag.longitude], reference: fields[Tag.longitudeRef], negative: "W", limit: 180) {
                location = (latitude, longitude)
            }
        }
    }

    /// The fields of the IFD at `offset`, by tag (a lying count reads no further than the block).
    private func fields(ofDirectoryAt offset: Int) -> [Int: Field] {
        guard let count = unsigned(at: offset, size: 2) else { return [:] }
        var fields: [Int: Field] = [:]
        for index in 0..<min(count, 1024) {
            let entry = offset + 2 + 12 * index
            guard let tag = unsigned(at: entry, size: 2), let type = unsigned(at: entry + 2, size: 2),
                  let count = unsigned(at: entry + 4, size: 4) else { break }
            let size = count * FieldType.size(type)
            guard let valueOffset = size <= 4 ? entry + 8 : unsigned(at: entry + 8, size: 4) else { break }
            fields[tag] = Field(type: type, count: count, valueOffset: valueOffset)
        }
        return fields
    }

    private func long(_ field: Field) -> Int? {
        field.type == FieldType.long && field.count == 1 ? unsigned(at: field.valueOffset, size: 4) : nil
    }

    /// An ASCII field's text up to its first NUL.
    private func ascii(_ field: Field) -> String? {
        guard field.type == FieldType.ascii, field.count <= 64, let bytes = bytes(at: field.valueOffset, count: field.count) else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Degrees, minutes and seconds as three rationals, signed by the reference letter.
    private func coordinate(_ field: Field?, reference: Field?, negative: String, limit: Double) -> Double? {
        guard let field, field.type == FieldType.rational, field.count == 3,
              let letter = reference.flatMap(ascii), letter == "N" || letter == "S" || letter == "E" || letter == "W" else { return nil }
        var parts: [Double] = []
        for index in 0..<3 {
            guard let numerator = unsigned(at: field.valueOffset + 8 * index, size: 4),
                  let denominator = unsigned(at: field.valueOffset + 8 * index + 4, size: 4), denominator != 0 else { return nil }
            parts.append(Double(numerator) / Double(denominator))
        }
        let degrees = parts[0] + parts[1] / 60 + parts[2] / 3600
        guard degrees <= limit else { return nil }
        return letter == negative ? -degrees : degrees
    }

    private func bytes(at offset: Int, count: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, count >= 0, offset <= tiff.count - count else { return nil }
        return tiff[(tiff.startIndex + offset)..<(tiff.startIndex + offset + count)]
    }

    private func unsigned(at offset: Int, size: Int) -> Int? {
        guard let bytes = bytes(at: offset, count: size) else { return nil }
        let ordered: [UInt8] = bigEndian ? Array(bytes) : Array(bytes.reversed())
        return ordered.reduce(0) { $0 << 8 | Int($1) }
    }

    /// EXIF's `YYYY:MM:DD HH:MM:SS` (and an offset `±HH:MM`) as ISO 8601; nil for anything else,
    /// including the all-zero date cameras write when their clock was never set.
    static func isoDateTime(_ text: String, offset: String?) -> String? {
        let bytes = Array(text.utf8)
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard bytes.count == 19, digits.allSatisfy({ (0x30...0x39).contains(bytes[$0]) }),
              bytes[4] == 0x3A, bytes[7] == 0x3A, bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A else { return nil }
        func number(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        guard number(0..<4) >= 1, (1...12).contains(number(5..<7)), (1...31).contains(number(8..<10)),
              number(11..<13) <= 23, number(14..<16) <= 59, number(17..<19) <= 60 else { return nil }
        let date = String(decoding: bytes[0..<4], as: UTF8.self) + "-" + String(decoding: bytes[5..<7], as: UTF8.self) + "-"
            + String(decoding: bytes[8..<10], as: UTF8.self) + "T" + String(decoding: bytes[11..<19], as: UTF8.self)
        return date + (offset.flatMap(isoOffset) ?? "")
    }

    /// `+HH:MM` or `-HH:MM` within ±14 hours; nil otherwise (EXIF writes blanks when unknown).
    private static func isoOffset(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 6, bytes[0] == 0x2B || bytes[0] == 0x2D, bytes[3] == 0x3A,
              [1, 2, 4, 5].allSatisfy({ (0x30...0x39).contains(bytes[$0]) }) else { return nil }
        let hours = Int(bytes[1] - 0x30) * 10 + Int(bytes[2] - 0x30), minutes = Int(bytes[4] - 0x30) * 10 + Int(bytes[5] - 0x30)
        guard hours * 60 + minutes <= 14 * 60, minutes < 60 else { return nil }
        return text
    }
}
