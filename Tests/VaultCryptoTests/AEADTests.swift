// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
import VaultCrypto

@Suite struct AEADTests {
    // draft-irtf-cfrg-xchacha-03 §A.3.1 (checked against an independent HChaCha20 +
    // ChaCha20-Poly1305 computation).
    static let key = byteRange(0x80...0x9f)
    static let nonce = byteRange(0x40...0x57)
    static let associatedData = [UInt8](hex: "50515253c0c1c2c3c4c5c6c7")
    static let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
    static let ciphertext = [UInt8](hex: """
        bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39\
        ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9\
        21f9664c97637da9768812f615c68b13b52e
        """)
    static let tag = [UInt8](hex: "c0875924c1c7987947deafd8780acf49")

    func seal(_ plaintext: [UInt8], key: [UInt8] = key, associatedData: [UInt8] = associatedData) throws -> [UInt8] {
        try key.withUnsafeBytes { try AEAD.seal(plaintext, key: $0, associatedData: associatedData) }
    }

    func open(_ box: [UInt8], key: [UInt8] = key, associatedData: [UInt8] = associatedData) throws -> [UInt8] {
        try key.withUnsafeBytes { try AEAD.open(box, key: $0, associatedData: associatedData) }
    }

    @Test func sealMatchesXChaChaDraftVector() throws {
        let box = try Self.key.withUnsafeBytes {
            try AEAD.seal(Self.plaintext, key: $0, nonce: Self.nonce, associatedData: Self.associatedData)
        }
        #expect(box == Self.nonce + Self.ciphertext + Self.tag)
    }

    @Test func openDecryptsXChaChaDraftVector() throws {
        #expect(try open(Self.nonce + Self.ciphertext + Self.tag) == Self.plaintext)
    }

    /// The in-place variant the read paths use: the same plaintext into the caller's buffer,
    /// its length returned, and a buffer too small refused before libsodium writes anything.
    @Test func openIntoABufferDecryptsTheVectorAndChecksTheBuffer() throws {
        let box = Self.nonce + Self.ciphertext + Self.tag
        var output = [UInt8](repeating: 0xEE, count: box.count)
        let length = try Self.key.withUnsafeBytes { key in
            try box.withUnsafeBytes { box in
                try Self.associatedData.withUnsafeBytes { associatedData in
                    try output.withUnsafeMutableBytes { try AEAD.open(box, key: key, associatedData: associatedData, into: $0) }
                }
            }
        }
        #expect(Array(output.prefix(length)) == Self.plaintext)
        var small = [UInt8](repeating: 0, count: Self.plaintext.count - 1)
        #expect(throws: CryptoError.malformedCiphertext) {
            try Self.key.withUnsafeBytes { key in
                try box.withUnsafeBytes { box in
                    try small.withUnsafeMutableBytes { try AEAD.open(box, key: key, associatedData: UnsafeRawBufferPointer(start: nil, count: 0), into: $0) }
                }
            }
        }
        #expect(small.allSatisfy { $0 == 0 })
    }

    @Test func layoutAndSizes() {
        #expect(AEAD.keyLength == 32)
        #expect(AEAD.nonceLength == 24)
        #expect(AEAD.tagLength == 16)
        #expect(AEAD.overhead == 40)
    }

    @Test(arguments: [0, 1, 63, 64, 1000])
    func roundTripWithRandomNonce(length: Int) throws {
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let box = try seal(plaintext)
        #expect(box.count == length + AEAD.overhead)
        #expect(try open(box) == plaintext)
        // Opening also accepts Data.
        #expect(try Self.key.withUnsafeBytes { try AEAD.open(Data(box), key: $0, associatedData: Self.associatedData) } == plaintext)
    }

    @Test func ciphertextDoesNotContainThePlaintext() throws {
        let plaintext = Array("a distinctive plaintext sentence".utf8)
        let box = try seal(plaintext)
        #expect(Data(box).range(of: Data(plaintext)) == nil)
    }

    @Test func flippingAnyByteOfTheBoxFailsAuthentication() throws {
        let box = try seal(Array("short message, every byte matters".utf8))
        for offset in box.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var tampered = box
                tampered[offset] ^= mask
                #expect(throws: CryptoError.authenticationFailed, "byte \(offset) mask \(mask)") {
                    try open(tampered)
                }
            }
        }
    }

    @Test func differentAssociatedDataFailsAuthentication() throws {
        let box = try seal(Self.plaintext)
        for ad in [[], Array(Self.associatedData.dropLast()), Self.associatedData + [0], [UInt8](repeating: 0x50, count: 12)] {
            #expect(throws: CryptoError.authenticationFailed) { try open(box, associatedData: ad) }
        }
    }

    @Test func differentKeyFailsAuthentication() throws {
        let box = try seal(Self.plaintext)
        var otherKey = Self.key
        otherKey[31] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try open(box, key: otherKey) }
        #expect(throws: CryptoError.authenticationFailed) { try open(box, key: [UInt8](repeating: 0, count: 32)) }
    }

    @Test func truncatedOrExtendedBoxFails() throws {
        let box = try seal(Self.plaintext)
        #expect(throws: CryptoError.authenticationFailed) { try open(Array(box.dropLast())) }
        #expect(throws: CryptoError.authenticationFailed) { try open(box + [0]) }
    }

    @Test(arguments: [0, 1, 24, 39])
    func boxShorterThanNonceAndTagIsMalformed(length: Int) {
        #expect(throws: CryptoError.malformedCiphertext) { try open([UInt8](repeating: 0, count: length)) }
    }

    @Test func emptyPlaintextBoxOfExactlyFortyBytesStillAuthenticates() throws {
        let box = try seal([])
        #expect(box.count == 40)
        #expect(try open(box) == [])
        var tampered = box
        tampered[39] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try open(tampered) }
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func wrongKeyLengthIsRefused(length: Int) throws {
        let key = [UInt8](repeating: 7, count: length)
        #expect(throws: CryptoError.invalidKeyLength) { try seal(Self.plaintext, key: key) }
        let box = try seal(Self.plaintext)
        #expect(throws: CryptoError.invalidKeyLength) { try open(box, key: key) }
    }

    @Test func wrongNonceLengthIsRefused() {
        for nonce in [[UInt8](repeating: 0, count: 12), [UInt8](repeating: 0, count: 25)] {
            #expect(throws: CryptoError.malformedCiphertext) {
                try Self.key.withUnsafeBytes { try AEAD.seal(Self.plaintext, key: $0, nonce: nonce, associatedData: []) }
            }
        }
    }

    @Test func hundredThousandSealsNeverRepeatANonce() throws {
        let count = 100_000
        let plaintext = Array("same plaintext every time".utf8)
        var nonces = Set<Data>()
        nonces.reserveCapacity(count)
        try Self.key.withUnsafeBytes { key in
            for _ in 0..<count {
                let box = try AEAD.seal(plaintext, key: key, associatedData: [])
                nonces.insert(Data(box[0..<AEAD.nonceLength]))
            }
        }
        #expect(nonces.count == count)
    }
}
