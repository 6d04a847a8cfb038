// SPDX-License-Identifier: Apache-2.0
import TestSupport
import Testing
import VaultCrypto

/// Expected values come from RFC 7693, the BLAKE2 reference known-answer file, or Python's
/// `hashlib.blake2b` (an independent implementation), never from the code under test.
@Suite struct Blake2bTests {
    static let key64 = byteRange(0x00...0x3f)
    static let key32 = byteRange(0x00...0x1f)
    static let fox = Array("The quick brown fox jumps over the lazy dog".utf8)

    @Test func rfc7693AppendixAVector() {
        // RFC 7693 Appendix A, BLAKE2b-512("abc").
        #expect(Blake2b.hash(Array("abc".utf8), length: 64) == [UInt8](hex: """
            ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
            7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923
            """))
    }

    @Test func emptyMessageUnkeyed512() {
        #expect(Blake2b.hash([], length: 64) == [UInt8](hex: """
            786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419\
            d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce
            """))
    }

    /// Unkeyed and fed in pieces (an attachment's content digest, a chunk at a time): Python's
    /// `hashlib.blake2b(fox, digest_size=32)`.
    @Test func unkeyedStreamInPiecesIsThePlainDigest() throws {
        var stream = try Blake2bStream()
        stream.update(Array(Self.fox[..<10]))
        stream.update([])
        stream.update(Array(Self.fox[10...]))
        #expect(try stream.finalize().hex == "01718cec35cd3d796dd00020e0bfecb473ad23457d063b75eff29c0ffa2e58a9")
    }

    @Test func unkeyedDefaultLengthIs256Bits() {
        let digest = Blake2b.hash(Self.fox)
        #expect(digest == [UInt8](hex: "01718cec35cd3d796dd00020e0bfecb473ad23457d063b75eff29c0ffa2e58a9"))
    }

    @Test func keyedReferenceKnownAnswers() {
        // blake2b-kat.txt (keyed, key = 00…3f): the empty message and the one-byte message 00.
        let empty = Self.key64.withUnsafeBytes { Blake2b.hash([], key: $0, length: 64) }
        #expect(empty == [UInt8](hex: """
            10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786\
            b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568
            """))
        let oneByte = Self.key64.withUnsafeBytes { Blake2b.hash([0], key: $0, length: 64) }
        #expect(oneByte == [UInt8](hex: """
            961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4\
            187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd
            """))
    }

    @Test func keyed256MatchesHashlib() {
        let digest = Self.key32.withUnsafeBytes { Blake2b.hash(Self.fox, key: $0, length: 32) }
        #expect(digest == [UInt8](hex: "5d9461aff732d77d0cc98725ea29298c914fd5193b4c08ec9e3ad6b28c3e2faf"))
        #expect(digest != Blake2b.hash(Self.fox, length: 32))
    }

    @Test func deriveWithSaltAndPersonalMatchesHashlib() throws {
        // hashlib.blake2b(id, key=00…1f, salt=10…1f, person=b"JVLT-recsubkey1\0", digest_size=32)
        let output = try deriveHex(key: Self.key32, salt: byteRange(0x10...0x1f),
                                   personal: Blake2b.personal("JVLT-recsubkey1"),
                                   message: [UInt8](hex: "00112233445566778899aabbccddeeff"))
        #expect(output == "7296a56e93cda0877e7cfffe8921e40bb45066a45ddf77cbf6edd16aa769fb46")
        // The recovery-KEK form: empty message, personal "JVLT-recov-kek1".
        let recovery = try deriveHex(key: Self.key32, salt: byteRange(0x10...0x1f),
                                     personal: Blake2b.personal("JVLT-recov-kek1"), message: [])
        #expect(recovery == "69e3ae4d3980c1ed5dcd19b768880cda5774d4a493e2220b8769ccf76d2634fd")
    }

    @Test func deriveRefusesWrongSaltPersonalOrKeyLengths() {
        let salt = [UInt8](repeating: 1, count: 16)
        #expect(throws: CryptoError.invalidKeyLength) {
            try deriveHex(key: Self.key32, salt: [UInt8](repeating: 1, count: 15), personal: salt, message: [])
        }
        #expect(throws: CryptoError.invalidKeyLength) {
            try deriveHex(key: Self.key32, salt: salt, personal: [UInt8](repeating: 1, count: 17), message: [])
        }
        #expect(throws: CryptoError.invalidKeyLength) {
            try deriveHex(key: [UInt8](repeating: 1, count: 15), salt: salt, personal: salt, message: [])
        }
        #expect(throws: CryptoError.invalidKeyLength) {
            try deriveHex(key: [UInt8](repeating: 1, count: 65), salt: salt, personal: salt, message: [])
        }
    }

    @Test func personalIsNulPaddedAndTruncatedToSixteenBytes() {
        #expect(Blake2b.personal("JVLT-recsubkey1") == Array("JVLT-recsubkey1".utf8) + [0])
        #expect(Blake2b.personal("") == [UInt8](repeating: 0, count: 16))
        #expect(Blake2b.personal("0123456789abcdefXYZ") == Array("0123456789abcdef".utf8))
    }

    private func deriveHex(key: [UInt8], salt: [UInt8], personal: [UInt8], message: [UInt8]) throws -> String {
        var output = [UInt8](repeating: 0, count: 32)
        try key.withUnsafeBytes { key in
            try output.withUnsafeMutableBytes { out in
                try Blake2b.derive(key: key, salt: salt, personal: personal, message: message, into: out)
            }
        }
        return output.hex
    }
}

@Suite struct SubkeyDerivationTests {
    static let master = byteRange(0x00...0x1f)

    /// `crypto_kdf_derive_from_key` is BLAKE2b-256 keyed with the master key over the empty
    /// message, salt = id (u64 little-endian) ‖ 8 zero bytes, personal = context ‖ 8 zero bytes.
    /// Expected values from Python's hashlib with exactly those parameters.
    @Test(arguments: [
        (UInt64(1), "JVLTREC1", "239e13bb77aceea0f4940285f4e8d87d88ee994a860ef1b62abace52dbf7acbe"),
        (2, "JVLTBIDX", "6ba15482a334405045778b7dc1681ea7cb2adc8fa974f29930cd185345e89ce9"),
        (3, "JVLTMANI", "d3d8c84eb13deb1250455e651c491e60d3a0b690a48a81f54ee08224dbadc5d9"),
        (0xfedc_ba98_7654_3210, "ABCDEFGH", "7a71c81c03fbb58e742d7b6d598d55bb3a12fd3e823a2155e77e52703e233368"),
    ])
    func equalsKeyedBlake2bWithIdSaltAndContextPersonal(id: UInt64, context: String, expected: String) throws {
        let master = try SecureBytes(copying: Self.master)
        let subkey = try SubkeyDerivation.derive(from: master, id: id, context: context)
        #expect(subkey.count == 32)
        #expect(subkey.withUnsafeBytes { Array($0) }.hex == expected)
    }

    @Test func refusesContextThatIsNotEightBytes() throws {
        let master = try SecureBytes(copying: Self.master)
        for context in ["", "JVLTREC", "JVLTREC12"] {
            #expect(throws: CryptoError.invalidKeyLength) { try SubkeyDerivation.derive(from: master, id: 1, context: context) }
        }
    }

    @Test func refusesMasterKeyThatIsNotThirtyTwoBytes() throws {
        for length in [16, 31, 33, 64] {
            let master = try SecureBytes(copying: [UInt8](repeating: 9, count: length))
            #expect(throws: CryptoError.invalidKeyLength) { try SubkeyDerivation.derive(from: master, id: 1, context: "JVLTREC1") }
        }
    }
}

@Suite struct BlindIndexTests {
    static let key = byteRange(0xa0...0xbf)

    /// `trunc64(BLAKE2b-256(key, domain ‖ 0x00 ‖ part …))`, expected from Python's hashlib.
    @Test(arguments: [
        ("tag", ["travel"], "e713c5048b1b0430"),
        ("tag", ["café"], "998b74e59d66ad40"),
        ("node", ["person", "anna"], "9b0e8ce01994657d"),
        ("tag", [], "2c504e14e8816105"),
    ])
    func valueMatchesHashlib(domain: String, parts: [String], expected: String) throws {
        let index = BlindIndex(key: try SecureBytes(copying: Self.key))
        let value = index.value(domain: domain, parts: parts)
        #expect(value.count == BlindIndex.length)
        #expect(value.hex == expected)
    }

    @Test func domainsAndKeysSeparate() throws {
        let index = BlindIndex(key: try SecureBytes(copying: Self.key))
        let other = BlindIndex(key: try SecureBytes(copying: byteRange(0x00...0x1f)))
        #expect(index.value(domain: "tag", parts: ["anna"]) != index.value(domain: "node", parts: ["anna"]))
        #expect(index.value(domain: "tag", parts: ["anna"]) != other.value(domain: "tag", parts: ["anna"]))
        #expect(index.value(domain: "tag", parts: ["anna"]) == index.value(domain: "tag", parts: ["anna"]))
    }
}

@Suite struct Blake2bLimitTests {
    @Test func lengthsAtLibsodiumsLimitsWork() {
        #expect(Blake2b.hash([1, 2, 3], length: 16).count == 16)
        #expect(Blake2b.hash([1, 2, 3], length: 64).count == 64)
        let shortKey = [UInt8](repeating: 7, count: 16)
        #expect(shortKey.withUnsafeBytes { Blake2b.hash([1], key: $0, length: 32) }.count == 32)
    }

    @Test func derivingIntoAnOutputLibsodiumRefusesThrowsInsteadOfLeavingZeros() throws {
        let key = [UInt8](repeating: 1, count: 32)
        var output = [UInt8](repeating: 0, count: 65)
        #expect(throws: CryptoError.hashFailed) {
            try key.withUnsafeBytes { key in
                try output.withUnsafeMutableBytes { out in
                    try Blake2b.derive(key: key, salt: Blake2b.personal("salt"), personal: Blake2b.personal("test"), message: [], into: out)
                }
            }
        }
        #expect(output.allSatisfy { $0 == 0 })
    }

    @Test func derivingIntoAnOutputShorterThanLibsodiumsMinimumThrows() throws {
        // libsodium itself computes BLAKE2b of 1 to 15 bytes here; its documented minimum is 16.
        let key = [UInt8](repeating: 1, count: 32)
        for length in [1, 15, 16, 64] {
            var output = [UInt8](repeating: 0, count: length)
            let derive = {
                try key.withUnsafeBytes { key in
                    try output.withUnsafeMutableBytes { out in
                        try Blake2b.derive(key: key, salt: Blake2b.personal("salt"), personal: Blake2b.personal("test"), message: [], into: out)
                    }
                }
            }
            if length < 16 {
                #expect(throws: CryptoError.hashFailed, "\(length) bytes", performing: derive)
                #expect(output.allSatisfy { $0 == 0 })
            } else {
                try derive()
                #expect(output.contains { $0 != 0 }, "\(length) bytes")
            }
        }
    }

    @Test func aLengthOutsideTheLimitsStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = Blake2b.hash([1], length: 8)
        }
        await #expect(processExitsWith: .failure) {
            _ = Blake2b.hash([1], length: 65)
        }
    }

    @Test func aKeyLengthOutsideTheLimitsStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = [UInt8](repeating: 7, count: 15).withUnsafeBytes { Blake2b.hash([1], key: $0) }
        }
        await #expect(processExitsWith: .failure) {
            _ = [UInt8](repeating: 7, count: 65).withUnsafeBytes { Blake2b.hash([1], key: $0) }
        }
    }
}
