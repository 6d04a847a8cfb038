// SPDX-License-Identifier: Apache-2.0
import TestSupport
import Testing
import VaultCrypto

@Suite struct SecureBytesTests {
    @Test func randomValuesAreDistinctAndOfTheRequestedLength() throws {
        var seen = Set<[UInt8]>()
        for _ in 0..<100 {
            let secret = try SecureBytes.random(count: 32)
            #expect(secret.count == 32)
            seen.insert(secret.withUnsafeBytes { Array($0) })
        }
        #expect(seen.count == 100)
        #expect(!seen.contains([UInt8](repeating: 0, count: 32)))
    }

    @Test func copyingKeepsTheBytes() throws {
        let bytes = byteRange(0x00...0xff)
        let secret = try SecureBytes(copying: bytes)
        #expect(secret.count == 256)
        #expect(secret.withUnsafeBytes { Array($0) } == bytes)
        // Any Collection of bytes: an ArraySlice with a non-zero start index too.
        let slice = try SecureBytes(copying: bytes[10..<20])
        #expect(slice.withUnsafeBytes { Array($0) } == Array(10...19))
    }

    @Test func newAllocationIsZeroed() throws {
        let secret = try SecureBytes(count: 48)
        #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        #expect(try SecureBytes(count: 0).count == 0)
    }

    @Test func fillingLetsTheBodyWriteAndPropagatesErrors() throws {
        let secret = try SecureBytes.filling(count: 4) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(index + 1) }
        }
        #expect(secret.withUnsafeBytes { Array($0) } == [1, 2, 3, 4])
        #expect(throws: CryptoError.kdfFailed) {
            try SecureBytes.filling(count: 4) { _ in throw CryptoError.kdfFailed }
        }
    }

    @Test func constantTimeEqualsComparesContentAndLength() throws {
        let a = try SecureBytes(copying: Array("same secret".utf8))
        let b = try SecureBytes(copying: Array("same secret".utf8))
        let c = try SecureBytes(copying: Array("same secreT".utf8))
        let d = try SecureBytes(copying: Array("same secret!".utf8))
        #expect(a.constantTimeEquals(b))
        #expect(b.constantTimeEquals(a))
        #expect(a.constantTimeEquals(a))
        #expect(!a.constantTimeEquals(c))
        #expect(!a.constantTimeEquals(d))
        #expect(!d.constantTimeEquals(a))
        #expect(try SecureBytes(count: 0).constantTimeEquals(try SecureBytes(count: 0)))
    }

    @Test func secureRandomBytesAreFreshEachCall() {
        let first = SecureRandom.bytes(24)
        let second = SecureRandom.bytes(24)
        #expect(first.count == 24)
        #expect(first != second)
        #expect(SecureRandom.bytes(0).isEmpty)
    }
}
