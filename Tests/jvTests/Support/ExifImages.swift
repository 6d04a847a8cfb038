// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// Small real image files, as a camera or phone writes them, for imports of photos: a JPEG with an
/// EXIF block (APP1) and a PNG with the same in its `eXIf` chunk, each giving the time the photo
/// was taken (DateTimeOriginal) and where (GPS latitude and longitude). `seed` varies the pixels,
/// so two photos have different bytes.
enum ExifImages {
    /// An 8×8 grey baseline JPEG, as `vips black x.jpg[strip,Q=20] 8 8 --bands 1` writes it.
    private static let plainJPEG = [UInt8](hex: """
        ffd8ffdb004300281c1e231e19282321232d2b28303c64413c37373c7b585d4964918099968f808c8aa0b4e6c3a0aadaad8a8cc8ffcbdaeef5ffffff9bc1\
        fffffffaffe6fdfff8ffc0000b080008000801011100ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b51000\
        02010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a2526\
        2728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2\
        a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffda00080101\
        00003f00c5afffd9
        """)

    /// The JPEG with an EXIF block right after its start of image; `seed` goes in a comment.
    static func jpeg(taken: String, latitude: Double, longitude: Double, seed: UInt8 = 0) -> Data {
        let exif = Array("Exif\0\0".utf8) + tiff(taken: taken, latitude: latitude, longitude: longitude)
        let comment: [UInt8] = [0xFF, 0xFE, 0x00, 0x03, seed]
        let start: [UInt8] = Array(plainJPEG[0..<2]), rest: [UInt8] = Array(plainJPEG[2...])
        let segment: [UInt8] = [0xFF, 0xE1] + u16(exif.count + 2) + exif
        return Data(start + segment + comment + rest)
    }

    /// A `size`×`size` 8-bit grey PNG (its data one stored zlib block) with an `eXIf` chunk.
    static func png(size: Int = 4, taken: String, latitude: Double, longitude: Double, seed: UInt8 = 0) -> Data {
        var rows: [UInt8] = []
        for y in 0..<size { rows += [0] + (0..<size).map { x in UInt8(truncatingIfNeeded: x * 16 + y * 32) &+ seed } }
        let zlib: [UInt8] = [0x78, 0x01, 0x01] + u16le(rows.count) + u16le(~rows.count & 0xFFFF) + rows + u32(adler32(rows))
        let header = u32(size) + u32(size) + [8, 0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
                    + chunk("eXIf", tiff(taken: taken, latitude: latitude, longitude: longitude)) + chunk("IDAT", zlib) + chunk("IEND", []))
    }

    /// A big-endian TIFF structure: IFD0 pointing to an Exif IFD (DateTimeOriginal, `YYYY:MM:DD
    /// HH:MM:SS`) and a GPS IFD (latitude and longitude in degrees, minutes, seconds).
    private static func tiff(taken: String, latitude: Double, longitude: Double) -> [UInt8] {
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] { u16(tag) + u16(type) + u32(count) + value }
        func degrees(_ value: Double) -> [UInt8] {
            let whole = abs(value), d = Int(whole), m = Int((whole - Double(d)) * 60), s = ((whole - Double(d)) * 60 - Double(m)) * 60
            return u32(d) + u32(1) + u32(m) + u32(1) + u32(Int((s * 1000).rounded())) + u32(1000)
        }
        let exifIFD = 8 + 30, dateOffset = exifIFD + 18, gpsIFD = dateOffset + 20
        let latitudeOffset = gpsIFD + 54, longitudeOffset = latitudeOffset + 24
        var bytes: [UInt8] = Array("MM".utf8) + u16(42) + u32(8)
        bytes += u16(2) + entry(0x8769, 4, 1, u32(exifIFD)) + entry(0x8825, 4, 1, u32(gpsIFD)) + u32(0)
        bytes += u16(1) + entry(0x9003, 2, 20, u32(dateOffset)) + u32(0)
        bytes += Array(taken.utf8.prefix(19)) + [0]
        bytes += u16(4) + entry(1, 2, 2, Array((latitude < 0 ? "S" : "N").utf8) + [0, 0, 0]) + entry(2, 5, 3, u32(latitudeOffset))
            + entry(3, 2, 2, Array((longitude < 0 ? "W" : "E").utf8) + [0, 0, 0]) + entry(4, 5, 3, u32(longitudeOffset)) + u32(0)
        return bytes + degrees(latitude) + degrees(longitude)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return u32(data.count) + body + u32(Int(crc32(body)))
    }

    private static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private static func u16le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func u32(_ value: Int) -> [UInt8] { u16(value >> 16 & 0xFFFF) + u16(value & 0xFFFF) }

    private static func adler32(_ bytes: [UInt8]) -> Int {
        var a = 1, b = 0
        for byte in bytes {
            a = (a + Int(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}
