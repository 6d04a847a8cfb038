// SPDX-License-Identifier: Apache-2.0
import CSodium
import Testing
import VaultCrypto

@Suite struct PaddingTests {
    @Test func padUnpadRoundTripForLengthsZeroToTwoHundred() throws {
        for length in 0...200 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
            let padded = Padding.pad(bytes, blockSize: 64)
            #expect(padded.count % 64 == 0, "length \(length)")
            #expect(padded.count > length, "length \(length)")
            #expect(padded.count - length <= 64, "length \(length)")
            #expect(Array(padded.prefix(length)) == bytes)
            #expect(padded[length] == 0x80)
            #expect(padded[(length + 1)...].allSatisfy { $0 == 0 })
            #expect(try Padding.unpad(padded) == bytes, "length \(length)")
        }
    }

    @Test func plaintextEndingInZerosAndMarkerBytesSurvives() throws {
        for bytes: [UInt8] in [[0], [0, 0, 0], [0x80], [0x80, 0], [0x41, 0x80, 0x00], [UInt8](repeating: 0x80, count: 64)] {
            #expect(try Padding.unpad(Padding.pad(bytes, blockSize: 64)) == bytes)
        }
    }

    @Test func exactBlockMultipleGetsAWholeExtraBlock() {
        #expect(Padding.pad([UInt8](repeating: 1, count: 64), blockSize: 64).count == 128)
        #expect(Padding.pad([], blockSize: 64).count == 64)
        #expect(Padding.pad([1, 2, 3], blockSize: 16).count == 16)
    }

    @Test(arguments: [
        [UInt8](),
        [0],
        [UInt8](repeating: 0, count: 64),
        [0x41, 0x42],
        [0x80, 0x01],
        [0x41, 0x7f, 0x00, 0x00],
        [0x41, 0x81] + [UInt8](repeating: 0, count: 62),
        // A length that is not a multiple of the block.
        [0x41, 0x80],
        [0x41, 0x80] + [UInt8](repeating: 0, count: 61),
        [UInt8](repeating: 0x41, count: 64) + [0x80],
        // The marker before the last block: a zero run of a whole block or more.
        [0x41, 0x80] + [UInt8](repeating: 0, count: 126),
        [0x80] + [UInt8](repeating: 0, count: 64) + [UInt8](repeating: 0, count: 63),
    ])
    func malformedPaddingThrows(bytes: [UInt8]) {
        #expect(throws: CryptoError.invalidPadding) { try Padding.unpad(bytes, blockSize: 64) }
    }

    @Test func theMarkerMayBeAnywhereInTheLastBlock() throws {
        #expect(try Padding.unpad([UInt8](repeating: 0x41, count: 63) + [0x80], blockSize: 64) == [UInt8](repeating: 0x41, count: 63))
        #expect(try Padding.unpad([UInt8](repeating: 0x41, count: 64) + [0x80] + [UInt8](repeating: 0, count: 63), blockSize: 64)
                == [UInt8](repeating: 0x41, count: 64))
        #expect(try Padding.unpad([1, 2, 3, 0x80] + [UInt8](repeating: 0, count: 12), blockSize: 16) == [1, 2, 3])
        #expect(throws: CryptoError.invalidPadding) { try Padding.unpad([1, 2, 3, 0x80] + [UInt8](repeating: 0, count: 12), blockSize: 64) }
    }

    /// FORMAT.md §4.3: on input of a whole number of blocks, the rule is libsodium's `sodium_unpad`.
    @Test func onWholeBlocksTheRuleIsSodiumUnpad() {
        var seed: UInt64 = 0x5EED
        for round in 0..<4_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let blocks = Int(seed >> 62) + 1
            var bytes = (0..<blocks * 64).map { index in UInt8(truncatingIfNeeded: (seed >> UInt64(index % 56)) & 0xff) }
            // Mostly near-valid: a marker, then zeros to the end, with some of those bytes spoilt.
            let marker = Int((seed >> 20) % UInt64(bytes.count))
            bytes[marker] = round % 5 == 0 ? 0x81 : 0x80
            for index in marker + 1..<bytes.count { bytes[index] = 0 }
            if round % 7 == 0 { bytes[Int((seed >> 40) % UInt64(bytes.count))] = 0x01 }
            var length = 0
            let sodium = sodium_unpad(&length, bytes, bytes.count, 64)
            let ours = bytes.withUnsafeBufferPointer { try? Padding.unpaddedCount($0, blockSize: 64) }
            #expect(ours == (sodium == 0 ? length : nil), "\(bytes.map { String($0, radix: 16) })")
        }
    }
}
