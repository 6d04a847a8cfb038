// SPDX-License-Identifier: Apache-2.0
import TestSupport
import Testing
import VaultCrypto

/// HKDF-SHA-256 output lengths (its known answers are in AgePrimitivesTests).
@Suite struct HKDFLengthTests {
    @Test func shorterOutputIsAPrefixOfLongerAcrossBlocks() throws {
        let input = try SecureBytes(copying: byteRange(0x00...0x1f))
        let long = try HKDF.derive(inputKey: input, salt: [1, 2, 3], info: "x", length: 100)
        let short = try HKDF.derive(inputKey: input, salt: [1, 2, 3], info: "x", length: 33)
        #expect(long.withUnsafeBytes { Array($0.prefix(33)) } == short.withUnsafeBytes { Array($0) })
    }

    @Test func lengthsAroundBlockBoundaries() throws {
        let input = try SecureBytes(copying: [UInt8](repeating: 7, count: 32))
        for length in [0, 1, 31, 32, 33, 64, 65, 254 * 32] {
            #expect(try HKDF.derive(inputKey: input, salt: [], info: "len", length: length).count == length, "\(length)")
        }
    }

    @Test
    func documentedMaximumLengthWorks() throws {
        let key = try HKDF.derive(inputKey: try SecureBytes(copying: [UInt8](repeating: 1, count: 32)), salt: [], info: "max", length: 8160)
        #expect(try HKDF.derive(inputKey: try SecureBytes(copying: [UInt8](repeating: 1, count: 32)), salt: [], info: "max", length: 8129).count == 8129)
        #expect(key.count == 8160)
    }
}
