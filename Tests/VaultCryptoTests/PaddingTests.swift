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
    ])
    func malformedPaddingThrows(bytes: [UInt8]) {
        #expect(throws: CryptoError.invalidPadding) { try Padding.unpad(bytes) }
    }
}
