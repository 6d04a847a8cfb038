// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// ``Hex``: the one lower-case hexadecimal spelling of bytes (blind-index columns, session
/// socket names, the high-water file).
@Suite struct HexTests {
    @Test func knownAnswers() {
        let bytes: [UInt8] = [0x00, 0x01, 0x09, 0x0a, 0x0f, 0x10, 0x7f, 0x80, 0xab, 0xcd, 0xef, 0xff]
        #expect(Hex.lower([UInt8]()) == "")
        #expect(Hex.lower(bytes) == "0001090a0f107f80abcdefff")
        #expect(Data([0xde, 0xad, 0xbe, 0xef]).lowerHex == "deadbeef")
        #expect([UInt8](repeating: 0xa5, count: 3).lowerHex == "a5a5a5")
        #expect(Hex.bytes(lower: "".utf8) == [])
        #expect(Hex.bytes(lower: "0001090a0f107f80abcdefff".utf8) == bytes)
    }

    @Test func everyByteRoundTrips() {
        let all = (0...255).map { UInt8($0) }
        let text = Hex.lower(all)
        #expect(text == all.map { String(format: "%02x", $0) }.joined())
        #expect(Hex.bytes(lower: text.utf8) == all)
        #expect(Hex.bytes(lower: Array(text.utf8).dropFirst(2)) == Array(all.dropFirst()), "a slice not starting at 0")
    }

    @Test(arguments: ["0", "abc", "AB", "0A", "0g", "g0", " 00", "00 ", "0x00", "é0"])
    func refusesAnythingButEvenLowerCaseDigits(text: String) {
        #expect(Hex.bytes(lower: text.utf8) == nil)
    }

    @Test func sessionSocketNamesUseIt() throws {
        let id = try #require(SessionID(bytes: [UInt8](0..<16)))
        #expect(id.socketName == "000102030405060708090a0b0c0d0e0f.socket")
        #expect(SessionID(socketName: id.socketName) == id)
        #expect(SessionID(socketName: "000102030405060708090A0B0C0D0E0F.socket") == nil)
    }
}
