// SPDX-License-Identifier: Apache-2.0
/// Bech32 (BIP 173) as age uses it for keys: `age1…` recipients, `AGE-SECRET-KEY-1…` identities
/// (no length limit, one case throughout).
enum Bech32 {
    private static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    static func encode(hrp: String, data: [UInt8]) -> String {
        let values = convertBits(data, from: 8, to: 5, pad: true) ?? []
        let checksum = createChecksum(hrp: Array(hrp.utf8), values: values)
        return hrp + "1" + String(decoding: (values + checksum).map { charset[Int($0)] }, as: UTF8.self)
    }

    /// The human-readable part (lower case) and the data bytes, or nil on any error.
    static func decode(_ text: String) -> (hrp: String, data: [UInt8])? {
        guard text == text.lowercased() || text == text.uppercased() else { return nil }
        let bytes = Array(text.lowercased().utf8)
        guard let separator = bytes.lastIndex(of: UInt8(ascii: "1")), separator >= 1, bytes.count - separator > 6,
              bytes.allSatisfy({ (33...126).contains($0) }) else { return nil }
        let hrp = Array(bytes[..<separator])
        var values: [UInt8] = []
        for byte in bytes[(separator + 1)...] {
            guard let value = charset.firstIndex(of: byte) else { return nil }
            values.append(UInt8(value))
        }
        guard polymod(expand(hrp) + values) == 1, let data = convertBits(Array(values.dropLast(6)), from: 5, to: 8, pad: false) else { return nil }
        return (String(decoding: hrp, as: UTF8.self), data)
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        var checksum: UInt32 = 1
        for value in values {
            let top = checksum >> 25
            checksum = (checksum & 0x1ff_ffff) << 5 ^ UInt32(value)
            for index in 0..<5 where (top >> UInt32(index)) & 1 == 1 { checksum ^= generator[index] }
        }
        return checksum
    }

    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    private static func createChecksum(hrp: [UInt8], values: [UInt8]) -> [UInt8] {
        let mod = polymod(expand(hrp) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        return (0..<6).map { UInt8((mod >> UInt32(5 * (5 - $0))) & 31) }
    }

    private static func convertBits(_ data: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator = 0, bits = 0
        var result: [UInt8] = []
        let maxValue = (1 << to) - 1
        for value in data {
            guard Int(value) >> from == 0 else { return nil }
            accumulator = accumulator << from | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                result.append(UInt8((accumulator >> bits) & maxValue))
            }
        }
        if pad {
            if bits > 0 { result.append(UInt8((accumulator << (to - bits)) & maxValue)) }
        } else if bits >= from || (accumulator << (to - bits)) & maxValue != 0 {
            return nil
        }
        return result
    }
}
