// SPDX-License-Identifier: Apache-2.0

/// The CRC-32 of PNG chunks and zip files (ISO 3309, reflected, polynomial 0xEDB88320), for
/// tests that write small image files byte by byte.
public func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
