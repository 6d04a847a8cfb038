// SPDX-License-Identifier: Apache-2.0
import TestSupport
import Testing
@testable import JournalVault

/// The fast validator accepts exactly what the standard library accepts, and makes the same text.
@Suite struct UTF8ValidationTests {
    /// Both validators on `bytes`; the test fails on any disagreement.
    private func expectAgreement(_ bytes: [UInt8], _ comment: @autoclosure () -> String = "") {
        let reference = String(validating: bytes, as: UTF8.self)
        let fast = bytes.withUnsafeBufferPointer(UTF8Validation.string)
        #expect(fast == reference, "\(bytes.map { String($0, radix: 16) }) \(comment())")
        let isASCII = bytes.withUnsafeBufferPointer { UTF8Validation.check($0).isASCII }
        #expect(isASCII == bytes.allSatisfy { $0 < 0x80 })
    }

    @Test func everyOneAndTwoByteSequence() {
        for first in 0...255 {
            expectAgreement([UInt8(first)])
            for second in 0...255 { expectAgreement([UInt8(first), UInt8(second)]) }
        }
    }

    /// Every 3- and 4-byte sequence of bytes at the edges of Table 3-7's ranges, alone and
    /// straddling the 16-byte blocks the validator skips when they are ASCII.
    @Test func everyThreeAndFourByteSequenceOfBoundaryBytes() {
        let edges: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                              0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        let ascii = [UInt8](repeating: UInt8(ascii: "a"), count: 14)
        for a in edges { for b in edges { for c in edges {
            expectAgreement([a, b, c])
            for d in edges {
                expectAgreement([a, b, c, d])
                expectAgreement(ascii + [a, b, c, d] + ascii, "across a block boundary")
            }
        } } }
    }

    @Test func randomBytesAndBrokenText() {
        var random = SeededGenerator(seed: 7)
        let pieces = ["a", "é", "東", "😀", "Ærø", "Москва", String(repeating: "ascii ", count: 5)].map { Array($0.utf8) }
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 12) {
                bytes += pieces[Int(random.next() % UInt64(pieces.count))]
            }
            expectAgreement(bytes)
            // One byte changed or cut, anywhere.
            if !bytes.isEmpty {
                let position = Int(random.next() % UInt64(bytes.count))
                var changed = bytes
                changed[position] = UInt8(truncatingIfNeeded: random.next())
                expectAgreement(changed)
                expectAgreement(Array(bytes[..<position]))
            }
        }
    }

    @Test func decryptedFieldsThatAreNotUTF8AreTampering() throws {
        #expect(throws: VaultError.self) { try String(decrypted: [0x61, 0xED, 0xA0, 0x80], table: "entry", id: .init()) }
        #expect(try String(decrypted: Array("Kraków ☕️".utf8), table: "entry", id: .init()) == "Kraków ☕️")
    }
}
