// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
import VaultCrypto

/// The primitives of the age format (`AgeFile`): X25519, HMAC-SHA-256 / HKDF-SHA-256 and
/// ChaCha20-Poly1305 (IETF), each against its RFC's published vectors.
@Suite struct AgePrimitivesTests {
    fileprivate static func secure(_ bytes: [UInt8]) throws -> SecureBytes { try SecureBytes(copying: bytes) }
    fileprivate static func bytes(_ secure: SecureBytes) -> [UInt8] { secure.withUnsafeBytes { Array($0) } }

    // MARK: X25519 — RFC 7748

    // §6.1
    fileprivate static let alicePrivate = [UInt8](hex: "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    fileprivate static let alicePublic = [UInt8](hex: "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
    fileprivate static let bobPrivate = [UInt8](hex: "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    fileprivate static let bobPublic = [UInt8](hex: "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    fileprivate static let sharedK = [UInt8](hex: "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")

    @Test func x25519PublicKeysOfRFC7748Section6_1() throws {
        #expect(try X25519.publicKey(for: Self.secure(Self.alicePrivate)) == Self.alicePublic)
        #expect(try X25519.publicKey(for: Self.secure(Self.bobPrivate)) == Self.bobPublic)
    }

    @Test func x25519SharedSecretOfRFC7748Section6_1IsTheSameBothWays() throws {
        let alice = try X25519.sharedSecret(Self.secure(Self.alicePrivate), Self.bobPublic)
        let bob = try X25519.sharedSecret(Self.secure(Self.bobPrivate), Self.alicePublic)
        #expect(Self.bytes(alice) == Self.sharedK)
        #expect(Self.bytes(bob) == Self.sharedK)
    }

    @Test func x25519OfRFC7748Section5_2FirstVector() throws {
        let scalar = [UInt8](hex: "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4")
        let u = [UInt8](hex: "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c")
        let expected = [UInt8](hex: "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552")
        #expect(Self.bytes(try X25519.sharedSecret(Self.secure(scalar), u)) == expected)
    }

    @Test func x25519RefusesLowOrderPoints() throws {
        // All-zero results (age requires refusing them): the zero point and the point of order 8.
        let lowOrder = [[UInt8](repeating: 0, count: 32),
                        [1] + [UInt8](repeating: 0, count: 31),
                        [UInt8](hex: "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")]
        for point in lowOrder {
            #expect(throws: CryptoError.self, "\(point.hex)") { _ = try X25519.sharedSecret(Self.secure(Self.alicePrivate), point) }
        }
    }

    @Test func x25519RefusesWrongLengths() throws {
        #expect(throws: CryptoError.invalidKeyLength) { _ = try X25519.publicKey(for: Self.secure(Array(Self.alicePrivate.dropLast()))) }
        #expect(throws: CryptoError.invalidKeyLength) { _ = try X25519.sharedSecret(Self.secure(Self.alicePrivate), Array(Self.bobPublic.dropLast())) }
    }

    // MARK: HMAC-SHA-256 — RFC 4231

    @Test func hmacSHA256OfRFC4231TestCase2() {
        let key = Array("Jefe".utf8)
        let mac = key.withUnsafeBytes { HKDF.hmac(key: $0, Array("what do ya want for nothing?".utf8)) }
        #expect(mac.hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hmacSHA256OfRFC4231TestCase6KeyLongerThanABlock() {
        let key = [UInt8](repeating: 0xaa, count: 131)
        let mac = key.withUnsafeBytes { HKDF.hmac(key: $0, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)) }
        #expect(mac.hex == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    // MARK: HKDF-SHA-256 — RFC 5869

    fileprivate static let tc1IKM = [UInt8](repeating: 0x0b, count: 22)
    fileprivate static let tc1Salt = [UInt8](hex: "000102030405060708090a0b0c")

    @Test func hkdfOfRFC5869TestCase1() throws {
        // `derive` takes its info as text (age's infos are ASCII); TC1's info f0…f9 is not UTF-8,
        // so this vector is checked step by step with the same HMAC: extract, then expand.
        let info = [UInt8](hex: "f0f1f2f3f4f5f6f7f8f9")
        let prk = Self.tc1Salt.withUnsafeBytes { HKDF.hmac(key: $0, Self.tc1IKM) }
        #expect(prk.hex == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let t1 = prk.withUnsafeBytes { HKDF.hmac(key: $0, info + [1]) }
        let t2 = prk.withUnsafeBytes { HKDF.hmac(key: $0, t1 + info + [2]) }
        #expect(Array((t1 + t2).prefix(42)).hex
            == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func hkdfOfRFC5869TestCase3EmptySaltAndInfo() throws {
        let okm = try HKDF.derive(inputKey: Self.secure(Self.tc1IKM), salt: [], info: "", length: 42)
        #expect(Self.bytes(okm).hex == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test func hkdfWithTextInfoMatchesAnIndependentImplementation() throws {
        // Expected values from Python `cryptography` (OpenSSL) HKDF-SHA256 with TC1's IKM and salt.
        let short = try HKDF.derive(inputKey: Self.secure(Self.tc1IKM), salt: Self.tc1Salt, info: "age-encryption.org/v1/X25519", length: 42)
        #expect(Self.bytes(short).hex == "a3463eba24bbf725460b31e97da19719669379b61290ce5f8655fed7a285ce744851596d22644c5168ad")
        // 100 bytes: four HMAC blocks, the last one cut.
        let long = try HKDF.derive(inputKey: Self.secure(Self.tc1IKM), salt: Self.tc1Salt, info: "payload", length: 100)
        #expect(Self.bytes(long).hex == """
            ab06eaff28963bf3dc225220ba106273bfb3f3bc0a6096851b6734eed62431a3fc8242a709d1d09e7a78db047dd676b4\
            fc176a7e648d4f2e67e72936978c6a9ae0566a20325e5961a0e183cd6bf8b5a23b66bee20c85888372f27c134449255d\
            88c6f1d1
            """)
        // A shorter output is a prefix of a longer one.
        let prefix = try HKDF.derive(inputKey: Self.secure(Self.tc1IKM), salt: Self.tc1Salt, info: "payload", length: 32)
        #expect(Self.bytes(prefix) == Array(Self.bytes(long).prefix(32)))
    }

    // MARK: ChaCha20-Poly1305 (IETF) — RFC 8439 §2.8.2

    fileprivate static let aeadKey = byteRange(0x80...0x9f)
    fileprivate static let aeadNonce = [UInt8](hex: "070000004041424344454647")
    fileprivate static let sunscreen = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
    fileprivate static let rfcCiphertext = [UInt8](hex: """
        d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b\
        1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc\
        3ff4def08e4b7a9de576d26586cec64b6116
        """)
    /// The RFC's tag (with its AAD 50515253c0c1c2c3c4c5c6c7) is 1ae10b594f09e26a7e902ecbd0600691.
    /// age uses no AAD and the wrapper takes none, so this is the tag of the same key, nonce and
    /// plaintext with empty AAD, from Python `cryptography` (OpenSSL), which also reproduces the
    /// RFC's tag when given the RFC's AAD.
    fileprivate static let tagWithoutAAD = [UInt8](hex: "6a23a4681fd59456aea1d29f82477216")

    @Test func chaCha20Poly1305CiphertextOfRFC8439Section2_8_2() throws {
        let sealed = try ChaCha20Poly1305.seal(Self.sunscreen, key: Self.secure(Self.aeadKey), nonce: Self.aeadNonce)
        #expect(sealed.count == Self.sunscreen.count + 16)
        // The ciphertext does not depend on the AAD: it is the RFC's, byte for byte.
        #expect(Array(sealed.prefix(Self.sunscreen.count)) == Self.rfcCiphertext)
        #expect(Array(sealed.suffix(16)) == Self.tagWithoutAAD)
    }

    @Test func chaCha20Poly1305OpensTheVector() throws {
        let plain = try ChaCha20Poly1305.open(Self.rfcCiphertext + Self.tagWithoutAAD, key: Self.secure(Self.aeadKey), nonce: Self.aeadNonce)
        #expect(plain == Self.sunscreen)
        // The RFC's own tag was computed over AAD this API never supplies: it must not verify.
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try ChaCha20Poly1305.open(Self.rfcCiphertext + [UInt8](hex: "1ae10b594f09e26a7e902ecbd0600691"),
                                          key: Self.secure(Self.aeadKey), nonce: Self.aeadNonce)
        }
    }

    @Test func chaCha20Poly1305RefusesEveryFlippedByteWrongNonceAndWrongKey() throws {
        let key = try Self.secure(Self.aeadKey)
        let sealed = try ChaCha20Poly1305.seal(Array("file key 16 byte".utf8), key: key, nonce: [UInt8](repeating: 0, count: 12))
        for offset in sealed.indices {
            var damaged = sealed
            damaged[offset] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed, "byte \(offset)") {
                _ = try ChaCha20Poly1305.open(damaged, key: key, nonce: [UInt8](repeating: 0, count: 12))
            }
        }
        // age's STREAM: the last chunk's nonce ends in 01; a non-last nonce must not open it.
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try ChaCha20Poly1305.open(sealed, key: key, nonce: [UInt8](repeating: 0, count: 11) + [1])
        }
        var otherKey = Self.aeadKey
        otherKey[0] ^= 1
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try ChaCha20Poly1305.open(sealed, key: Self.secure(otherKey), nonce: [UInt8](repeating: 0, count: 12))
        }
    }

    @Test func chaCha20Poly1305SizesAndMalformedInput() throws {
        #expect(ChaCha20Poly1305.nonceLength == 12)
        #expect(ChaCha20Poly1305.tagLength == 16)
        let key = try Self.secure(Self.aeadKey)
        #expect(try ChaCha20Poly1305.seal([], key: key, nonce: Self.aeadNonce).count == 16)
        #expect(throws: CryptoError.malformedCiphertext) { _ = try ChaCha20Poly1305.open([UInt8](repeating: 0, count: 15), key: key, nonce: Self.aeadNonce) }
        #expect(throws: CryptoError.invalidKeyLength) { _ = try ChaCha20Poly1305.seal([1], key: key, nonce: Array(Self.aeadNonce.dropLast())) }
        #expect(throws: CryptoError.invalidKeyLength) { _ = try ChaCha20Poly1305.seal([1], key: Self.secure(Array(Self.aeadKey.prefix(16))), nonce: Self.aeadNonce) }
    }
}
