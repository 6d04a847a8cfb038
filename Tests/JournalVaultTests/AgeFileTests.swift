// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// age v1 files (C2SP age.md, X25519 recipients) and the Bech32 keys they use (BIP 173).
@Suite struct AgeFileTests {
    // MARK: Bech32 — BIP 173

    /// BIP 173's valid test vectors (each one's data is a whole number of bytes, which is all
    /// `decode` returns: age's keys are bytes).
    @Test(arguments: [
        "A12UEL5L",
        "a12uel5l",
        "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
        "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
        "11" + String(repeating: "q", count: 82) + "c8247j",
        "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
        "?1ezyfcl",
    ])
    func bip173ValidStringsDecodeAndReEncode(text: String) throws {
        let (hrp, data) = try #require(Bech32.decode(text), "\(text)")
        #expect(hrp == String(text[..<text.lastIndex(of: "1")!]).lowercased())
        #expect(Bech32.encode(hrp: hrp, data: data) == text.lowercased())
    }

    @Test func bip173ValidStringDataAreTheDocumentedBytes() throws {
        // "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7l…": the data part is the 32 symbols in order, 0…31.
        let (hrp, data) = try #require(Bech32.decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw"))
        #expect(hrp == "abcdef")
        #expect(data == [UInt8](hex: "00443214c74254b635cf84653a56d7c675be77df"))
        // "11qqq…": 82 zero symbols = 51 zero bytes.
        let (_, zeros) = try #require(Bech32.decode("11" + String(repeating: "q", count: 82) + "c8247j"))
        #expect(zeros == [UInt8](repeating: 0, count: 51))
    }

    @Test(arguments: [
        "\u{20}1nwldj5",                 // HRP character out of range
        "\u{7f}1axkwrx",                 // HRP character out of range
        "\u{80}1eym55h",                 // HRP character out of range
        "pzry9x0s0muk",                  // no separator
        "1pzry9x0s0muk",                 // empty HRP
        "x1b4n0q5v",                     // invalid data character
        "li1dgmt3",                      // too short checksum
        "de1lg7wt\u{ff}",                // invalid character in checksum
        "A1G7SGD8",                      // checksum calculated with upper-case HRP
        "10a06t8",                       // empty HRP
        "1qzzfhee",                      // empty HRP
        "a12UEL5L",                      // mixed case
        "a12uel5m",                      // wrong checksum
        "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3x", // one changed checksum symbol
    ])
    func bip173InvalidStringsAreRefused(text: String) {
        #expect(Bech32.decode(text) == nil, "\(text)")
    }

    /// A pair made once with `age-keygen` (age 1.1.1).
    fileprivate static let keygenIdentity = "AGE-SECRET-KEY-1MGHSQQL8V8DAGD4YGW82Y02JT6SS6GGQG2FJ768H88J7709SDA9QRGE9F5"
    fileprivate static let keygenRecipient = "age1dkphn7lkccrdz680f5sh979sq9xxrk7jqv2d3u9t3pfwzgpv09fqm4tkqs"

    @Test func ageKeygenPairParsesAndTheRecipientIsTheIdentitysPublicKey() throws {
        let identity = try AgeIdentity(text: Self.keygenIdentity)
        let recipient = try AgeRecipient(text: Self.keygenRecipient)
        #expect(recipient.publicKey == [UInt8](hex: "6d8379fbf6c606d168ef4d2172f8b0014c61dbd20314d8f0ab8852e1202c7952"))
        #expect(identity.secret.withUnsafeBytes { Array($0) } == [UInt8](hex: "da2f0003e761dbd436a4438ea23d525ea10d210042932f68f739e5ef3cb06f4a"))
        #expect(try identity.recipient == recipient)
        // Encoding gives back age-keygen's exact text.
        #expect(identity.text == Self.keygenIdentity)
        #expect(recipient.text == Self.keygenRecipient)
        #expect(try identity.recipient.text == Self.keygenRecipient)
    }

    @Test(arguments: [
        "age1dkphn7lkccrdz680f5sh979sq9xxrk7jqv2d3u9t3pfwzgpv09fqm4tkqt",   // checksum
        "age1dkphn7lkccrdz680f5sh979sq9xxrk7jqv2d3u9t3pfwzgpv09fqm4tkq",    // short
        "AGE1DKPHN7lkccrdz680f5sh979sq9xxrk7jqv2d3u9t3pfwzgpv09fqm4tkqs",   // mixed case
        "age1qqqsyqcyq5rqwzqfpg9scrgwpugpzysnryu6xr",                       // valid Bech32 of 20 bytes, not 32
        "age1qqqsyqcyq5rqwzqfpg9scrgwpugpzysnzs23v9ccrydpk8qarc0jqtdny4t",  // valid Bech32 of 33 bytes
        "AGE-SECRET-KEY-1MGHSQQL8V8DAGD4YGW82Y02JT6SS6GGQG2FJ768H88J7709SDA9QRGE9F5", // an identity is not a recipient
        "",
        "ssh-ed25519 AAAA",
    ])
    func malformedRecipientsAreRefused(text: String) {
        #expect(throws: AgeError.self, "\(text)") { _ = try AgeRecipient(text: text) }
    }

    @Test func malformedIdentitiesAreRefused() throws {
        #expect(throws: AgeError.self) { _ = try AgeIdentity(text: Self.keygenRecipient) }
        #expect(throws: AgeError.self) { _ = try AgeIdentity(text: String(Self.keygenIdentity.dropLast()) + "6") }
        #expect(throws: AgeError.self) { _ = try AgeIdentity.parseFile("# only a comment\n\n") }
        #expect(throws: AgeError.self) { _ = try AgeIdentity.parseFile("# created\nnot a key\n") }
    }

    @Test func identityFilesAsAgeKeygenWritesThem() throws {
        let file = """
            # created: 2026-11-22T03:57:24Z
            # public key: \(Self.keygenRecipient)
            \(Self.keygenIdentity)

            """
        let identities = try AgeIdentity.parseFile(file)
        #expect(identities.count == 1)
        #expect(try identities[0].recipient.text == Self.keygenRecipient)
        // CRLF and several keys.
        let other = try AgeIdentity.generate()
        #expect(try AgeIdentity.parseFile(Self.keygenIdentity + "\r\n" + other.text + "\r\n").count == 2)
    }

    // MARK: Files

    fileprivate static func plaintext(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) } }

    @Test(arguments: [0, 1, 100, 65_535, 65_536, 65_537, 2 * 65_536, 200_000])
    func roundTripAtChunkBoundaries(size: Int) throws {
        let identity = try AgeIdentity.generate()
        let plain = Self.plaintext(size)
        let file = try AgeFile.encrypt(plain, to: [identity.recipient])
        #expect(try AgeFile.decrypt(file, with: [identity]) == plain)
        // Payload: 16-byte nonce, then chunks each 16 bytes longer (one chunk even when empty).
        let headerEnd = try #require(Self.headerEnd(file))
        let chunks = max(1, (size + 65_535) / 65_536)
        #expect(file.count - headerEnd == 16 + size + 16 * chunks)
    }

    /// The byte after the header's `--- MAC` line.
    fileprivate static func headerEnd(_ file: [UInt8]) -> Int? {
        guard let range = Data(file).range(of: Data("\n--- ".utf8)) else { return nil }
        return Data(file)[range.upperBound...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }
    }

    @Test func headerHasTheAgeV1Form() throws {
        let recipients = try (0..<2).map { _ in try AgeIdentity.generate().recipient }
        let file = try AgeFile.encrypt(Array("hello".utf8), to: recipients)
        let end = try #require(Self.headerEnd(file))
        let lines = String(decoding: file[..<end], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "age-encryption.org/v1")
        // Each stanza: "-> X25519 <43 chars of base64>" then a 43-character body line.
        for stanza in 0..<2 {
            let arguments = lines[1 + 2 * stanza].split(separator: " ")
            #expect(arguments.count == 3 && arguments[0] == "->" && arguments[1] == "X25519")
            #expect(arguments.count == 3 && arguments[2].count == 43 && !arguments[2].contains("="))
            #expect(lines[2 + 2 * stanza].count == 43)
        }
        #expect(lines[5].hasPrefix("--- ") && lines[5].count == 4 + 43)
        #expect(lines[6] == "")
    }

    @Test func severalRecipientsEachDecrypt() throws {
        let identities = try (0..<3).map { _ in try AgeIdentity.generate() }
        let plain = Self.plaintext(70_000)
        let file = try AgeFile.encrypt(plain, to: try identities.map { try $0.recipient })
        for identity in identities { #expect(try AgeFile.decrypt(file, with: [identity]) == plain) }
        // Among several identities, the one that matches is found.
        let stranger = try AgeIdentity.generate()
        #expect(try AgeFile.decrypt(file, with: [stranger, identities[2]]) == plain)
    }

    @Test func theWrongIdentityFails() throws {
        let file = try AgeFile.encrypt(Array("secret".utf8), to: [try AgeIdentity.generate().recipient])
        #expect(throws: AgeError.self) { _ = try AgeFile.decrypt(file, with: [try AgeIdentity.generate()]) }
        #expect(throws: AgeError.self) { _ = try AgeFile.decrypt(file, with: []) }
        #expect(throws: AgeError.self) { _ = try AgeFile.encrypt([1], to: []) }
    }

    @Test func everyTamperedByteFails() throws {
        let identity = try AgeIdentity.generate()
        let file = try AgeFile.encrypt(Self.plaintext(300), to: [identity.recipient])
        // (Flipping the low bit of a base64 symbol can leave the decoded bytes unchanged and only
        // make the encoding non-canonical: that must fail too, see below.)
        for offset in file.indices {
            var damaged = file
            damaged[offset] ^= 0x01
            #expect(throws: (any Error).self, "byte \(offset)") { _ = try AgeFile.decrypt(damaged, with: [identity]) }
        }
    }

    @Test func truncatedExtendedAndReorderedPayloadsFail() throws {
        let identity = try AgeIdentity.generate()
        let plain = Self.plaintext(3 * 65_536 + 10)
        let file = try AgeFile.encrypt(plain, to: [identity.recipient])
        let start = try #require(Self.headerEnd(file)) + 16
        let sealed = 65_536 + 16
        func chunk(_ index: Int) -> [UInt8] { Array(file[(start + index * sealed)..<min(start + (index + 1) * sealed, file.count)]) }
        let cases: [(String, [UInt8])] = [
            ("cut at a chunk boundary", Array(file.prefix(start + 2 * sealed))),
            ("cut inside a chunk", Array(file.prefix(start + sealed + 100))),
            ("last byte removed", Array(file.dropLast())),
            ("one byte appended", file + [0]),
            ("chunks 1 and 2 swapped", Array(file.prefix(start)) + chunk(1) + chunk(0) + Array(file[(start + 2 * sealed)...])),
            ("chunk 1 repeated", Array(file.prefix(start + sealed)) + chunk(0) + Array(file[(start + sealed)...])),
            ("payload nonce cut", Array(file.prefix(start - 1))),
            ("no payload", Array(file.prefix(start - 16))),
        ]
        for (what, damaged) in cases {
            #expect(throws: AgeError.self, "\(what)") { _ = try AgeFile.decrypt(damaged, with: [identity]) }
        }
        // A payload that is exactly one full chunk ends with that chunk marked last; a forged
        // empty chunk after it is refused.
        let full = try AgeFile.encrypt(Self.plaintext(65_536), to: [identity.recipient])
        #expect(try AgeFile.decrypt(full, with: [identity]) == Self.plaintext(65_536))
        #expect(throws: AgeError.self) { _ = try AgeFile.decrypt(full + [UInt8](repeating: 0, count: 16), with: [identity]) }
    }

    /// age requires canonical base64 ("non-canonical encodings MUST be rejected"): the last
    /// symbol of a 32-byte value carries 2 unused bits, which must be zero.
    @Test func nonCanonicalBase64InTheHeaderIsRefused() throws {
        let identity = try AgeIdentity.generate()
        let file = try AgeFile.encrypt(Array("payload".utf8), to: [identity.recipient])
        let end = try #require(Self.headerEnd(file))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        // The MAC line ends at end - 2 (before its newline); the share ends its stanza line.
        let macLast = end - 2
        let firstNewline = try #require(file.firstIndex(of: UInt8(ascii: "\n")))
        let shareLast = try #require(file.firstIndex(of: UInt8(ascii: "\n"), after: firstNewline)) - 1
        for position in [macLast, shareLast] {
            var forged = file
            let value = try #require(alphabet.firstIndex(of: forged[position]))
            forged[position] = alphabet[value ^ 0x01]
            #expect(throws: AgeError.self, "non-canonical symbol at \(position)") { _ = try AgeFile.decrypt(forged, with: [identity]) }
        }
    }

    @Test func aFileOfAnotherFormatIsRefused() throws {
        let identity = try AgeIdentity.generate()
        for text in ["", "hello", "age-encryption.org/v1\n", "age-encryption.org/v2\n-> X25519 abc\nabc\n--- abc\n",
                     "-----BEGIN AGE ENCRYPTED FILE-----\n"] {
            #expect(throws: AgeError.self, "\(text)") { _ = try AgeFile.decrypt(Array(text.utf8), with: [identity]) }
        }
    }
}

extension Array where Element == UInt8 {
    /// The first index of `byte` after `index`.
    fileprivate func firstIndex(of byte: UInt8, after index: Int) -> Int? {
        self[(index + 1)...].firstIndex(of: byte)
    }
}
