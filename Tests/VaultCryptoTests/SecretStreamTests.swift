// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
import VaultCrypto

/// `SecretStream` (libsodium's crypto_secretstream_xchacha20poly1305), the body of a backup
/// file (FORMAT.md §8.2): chunks whose content, order, count and end are all authenticated.
@Suite struct SecretStreamTests {
    fileprivate static let key = byteRange(0x00...0x1f)

    fileprivate static func secure(_ bytes: [UInt8]) throws -> SecureBytes { try SecureBytes(copying: bytes) }

    /// Seals `chunks` (the last one final) with `associatedData`; returns the header and sealed chunks.
    fileprivate static func seal(_ chunks: [[UInt8]], associatedData: [UInt8] = [], key: [UInt8] = key) throws -> ([UInt8], [[UInt8]]) {
        let (writer, header) = try SecretStream.Writer.start(key: secure(key))
        var sealed: [[UInt8]] = []
        for (index, chunk) in chunks.enumerated() {
            sealed.append(try writer.push(chunk, associatedData: associatedData, final: index == chunks.count - 1))
        }
        return (header, sealed)
    }

    fileprivate static let chunks: [[UInt8]] = [Array("first chunk of the stream".utf8), [], Array(repeating: 0xAB, count: 1000),
                                                Array("the end".utf8)]

    // MARK: Sizes

    @Test func sizesAreLibsodiums() {
        #expect(SecretStream.keyLength == 32)
        #expect(SecretStream.headerLength == 24)
        #expect(SecretStream.overhead == 17)
    }

    @Test func eachSealedChunkIsSeventeenBytesLonger() throws {
        let (header, sealed) = try Self.seal(Self.chunks)
        #expect(header.count == 24)
        #expect(sealed.map(\.count) == Self.chunks.map { $0.count + 17 })
    }

    // MARK: Known answer (a stream written by PyNaCl, an independent binding with its own libsodium)

    /// Key 00…1f; chunks "first chunk" (AD "ad-1", MESSAGE), "" (MESSAGE), "last" (FINAL).
    fileprivate static let pynaclHeader = [UInt8](hex: "738de32c7a2dab18ab2778c8400f5b9706fc1013b9189c64")
    fileprivate static let pynaclChunks = [
        [UInt8](hex: "7b74990731e28ad5feb328a6612b6b44a1a6dc6cce18e8fe5736d316"),
        [UInt8](hex: "a5ea7b876f78655dad66955a29512b3669"),
        [UInt8](hex: "3dd58eaf9da7e645a95aa8c26b27e2069ede1e6f6e"),
    ]

    @Test func readsAStreamWrittenByPyNaCl() throws {
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: Self.pynaclHeader)
        let first = try reader.pull(Self.pynaclChunks[0], associatedData: Array("ad-1".utf8))
        #expect(first.plaintext == Array("first chunk".utf8))
        #expect(first.isFinal == false)
        let second = try reader.pull(Self.pynaclChunks[1])
        #expect(second.plaintext == [])
        #expect(second.isFinal == false)
        let third = try reader.pull(Self.pynaclChunks[2])
        #expect(third.plaintext == Array("last".utf8))
        #expect(third.isFinal == true)
    }

    @Test func refusesATagOtherThanMessageOrFinal() throws {
        // A chunk PyNaCl pushed with TAG_PUSH (0x01): it authenticates, but a backup has no use for it.
        let header = [UInt8](hex: "df736d645b8976c309f4138e29381bf329f587f3eda4906b")
        let pushed = [UInt8](hex: "0839f5e90b5b768afeb99c9e0bb1a9c117be78d2d7e432")
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(pushed) }
    }

    // MARK: Round trip

    @Test func roundTripKeepsEveryChunkAndMarksOnlyTheLastFinal() throws {
        let ad = Array("header mac".utf8)
        let (header, sealed) = try Self.seal(Self.chunks, associatedData: ad)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        for (index, chunk) in sealed.enumerated() {
            let (plain, isFinal) = try reader.pull(chunk, associatedData: ad)
            #expect(plain == Self.chunks[index])
            #expect(isFinal == (index == sealed.count - 1))
        }
    }

    @Test func aStreamOfOneEmptyFinalChunk() throws {
        let (header, sealed) = try Self.seal([[]])
        #expect(sealed.count == 1 && sealed[0].count == 17)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        let (plain, isFinal) = try reader.pull(sealed[0])
        #expect(plain == [] && isFinal)
    }

    @Test func pullAcceptsASliceOfAFile() throws {
        let (header, sealed) = try Self.seal([Array("abc".utf8)])
        let file = [0xFF, 0xFF] + sealed[0] + [0xEE]
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        #expect(try reader.pull(file[2..<(2 + sealed[0].count)]).plaintext == Array("abc".utf8))
    }

    @Test func twoStreamsUnderOneKeyDiffer() throws {
        let (header1, sealed1) = try Self.seal(Self.chunks)
        let (header2, sealed2) = try Self.seal(Self.chunks)
        #expect(header1 != header2)
        #expect(sealed1[0] != sealed2[0])
    }

    // MARK: Attacks

    @Test func everyFlippedBitOfAChunkIsRefused() throws {
        let (header, sealed) = try Self.seal([Array("short message".utf8), Array("end".utf8)])
        for offset in sealed[0].indices {
            for bit in [0, 7] {
                var damaged = sealed[0]
                damaged[offset] ^= UInt8(1 << bit)
                let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
                #expect(throws: CryptoError.authenticationFailed, "byte \(offset) bit \(bit)") { _ = try reader.pull(damaged) }
            }
        }
    }

    @Test func aFlippedHeaderByteMakesTheFirstChunkFail() throws {
        let (header, sealed) = try Self.seal([Array("message".utf8)])
        for offset in header.indices {
            var damaged = header
            damaged[offset] ^= 0x80
            let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: damaged)
            #expect(throws: CryptoError.authenticationFailed, "header byte \(offset)") { _ = try reader.pull(sealed[0]) }
        }
    }

    @Test func reorderedChunksAreRefused() throws {
        let (header, sealed) = try Self.seal(Self.chunks)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(sealed[1]) }

        // Swapping two middle chunks: the first is fine, the swapped one fails.
        let swapped = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        _ = try swapped.pull(sealed[0])
        #expect(throws: CryptoError.authenticationFailed) { _ = try swapped.pull(sealed[2]) }
    }

    @Test func aRepeatedChunkIsRefused() throws {
        let (header, sealed) = try Self.seal(Self.chunks)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        _ = try reader.pull(sealed[0])
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(sealed[0]) }
    }

    @Test func aDroppedMiddleChunkIsRefused() throws {
        let (header, sealed) = try Self.seal(Self.chunks)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        _ = try reader.pull(sealed[0])
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(sealed[2]) }
    }

    @Test func truncationIsVisibleBecauseNoChunkBeforeTheEndIsFinal() throws {
        // A stream cut after any chunk but the last ends without a FINAL tag: the reader reports
        // every chunk it got as not final, so the caller knows the end is missing.
        let (header, sealed) = try Self.seal(Self.chunks)
        for cut in 1..<sealed.count {
            let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
            var sawFinal = false
            for chunk in sealed.prefix(cut) where try reader.pull(chunk).isFinal { sawFinal = true }
            #expect(!sawFinal, "cut after \(cut) chunks")
        }
        // A final chunk cut short does not authenticate either.
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        for chunk in sealed.dropLast() { _ = try reader.pull(chunk) }
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(sealed.last!.dropLast()) }
    }

    @Test func aChunkShorterThanTheOverheadIsMalformed() throws {
        let (header, _) = try Self.seal(Self.chunks)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        #expect(throws: CryptoError.malformedCiphertext) { _ = try reader.pull([UInt8](repeating: 0, count: 16)) }
        #expect(throws: CryptoError.malformedCiphertext) { _ = try reader.pull([UInt8]()) }
    }

    @Test func aWrongAssociatedDataIsRefused() throws {
        let (header, sealed) = try Self.seal(Self.chunks, associatedData: Array("mac of backup A".utf8))
        for ad in [Array("mac of backup B".utf8), [], Array(Array("mac of backup A".utf8).dropLast())] {
            let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
            #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(sealed[0], associatedData: ad) }
        }
        // And a stream sealed without associated data does not open with some.
        let (plainHeader, plainSealed) = try Self.seal(Self.chunks)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: plainHeader)
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(plainSealed[0], associatedData: [0]) }
    }

    @Test func aWrongKeyIsRefused() throws {
        let (header, sealed) = try Self.seal(Self.chunks)
        var other = Self.key
        other[31] ^= 1
        let reader = try SecretStream.Reader(key: Self.secure(other), header: header)
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(sealed[0]) }
    }

    @Test func aChunkFromAnotherStreamIsRefused() throws {
        let (header1, sealed1) = try Self.seal(Self.chunks)
        let (_, sealed2) = try Self.seal(Self.chunks)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header1)
        _ = try reader.pull(sealed1[0])
        #expect(throws: CryptoError.authenticationFailed) { _ = try reader.pull(sealed2[1]) }
    }

    @Test func badKeyAndHeaderLengthsAreRefused() throws {
        #expect(throws: CryptoError.invalidKeyLength) { _ = try SecretStream.Writer.start(key: Self.secure(Array(Self.key.dropLast()))) }
        #expect(throws: CryptoError.invalidKeyLength) {
            _ = try SecretStream.Reader(key: Self.secure(Self.key + [0]), header: [UInt8](repeating: 0, count: 24))
        }
        #expect(throws: CryptoError.malformedCiphertext) {
            _ = try SecretStream.Reader(key: Self.secure(Self.key), header: [UInt8](repeating: 0, count: 23))
        }
    }

    // MARK: Into caller's buffers (an attachment's chunks, sealed and opened without allocating)

    @Test func pushAndPullIntoBuffersRoundTripWithTheArrayForms() throws {
        let ad = Array("chunk 0".utf8)
        let (writer, header) = try SecretStream.Writer.start(key: Self.secure(Self.key))
        var sealed: [[UInt8]] = []
        for (index, chunk) in Self.chunks.enumerated() {
            var buffer = [UInt8](repeating: 0xEE, count: chunk.count + SecretStream.overhead)
            try chunk.withUnsafeBytes { chunk in
                try buffer.withUnsafeMutableBytes { try writer.push(chunk, associatedData: ad, final: index == Self.chunks.count - 1, into: $0) }
            }
            sealed.append(buffer)
        }
        // Sealed into buffers, opened by the array form…
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        #expect(try sealed.map { try reader.pull($0, associatedData: ad).plaintext } == Self.chunks)
        // …and opened into one buffer larger than any chunk, reused.
        let again = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        var plaintext = [UInt8](repeating: 0, count: 2000)
        for (index, chunk) in sealed.enumerated() {
            let (count, isFinal) = try chunk.withUnsafeBytes { chunk in
                try plaintext.withUnsafeMutableBytes { try again.pull(chunk, associatedData: ad, into: $0) }
            }
            #expect(Array(plaintext[..<count]) == Self.chunks[index])
            #expect(isFinal == (index == sealed.count - 1))
        }
    }

    @Test func buffersOfTheWrongSizeAreRefusedAndAFailedPullWritesNothing() throws {
        let (writer, header) = try SecretStream.Writer.start(key: Self.secure(Self.key))
        let chunk = Array("abc".utf8)
        var short = [UInt8](repeating: 0, count: chunk.count + SecretStream.overhead - 1)
        #expect(throws: CryptoError.malformedCiphertext) {
            try chunk.withUnsafeBytes { chunk in try short.withUnsafeMutableBytes { try writer.push(chunk, final: true, into: $0) } }
        }
        let sealed = try writer.push(chunk, final: true)
        var small = [UInt8](repeating: 0, count: chunk.count - 1)
        let reader = try SecretStream.Reader(key: Self.secure(Self.key), header: header)
        #expect(throws: CryptoError.malformedCiphertext) {
            _ = try sealed.withUnsafeBytes { sealed in try small.withUnsafeMutableBytes { try reader.pull(sealed, into: $0) } }
        }
        var damaged = sealed
        damaged[5] ^= 1
        var plaintext = [UInt8](repeating: 0xEE, count: 16)
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try damaged.withUnsafeBytes { sealed in try plaintext.withUnsafeMutableBytes { try reader.pull(sealed, into: $0) } }
        }
        #expect(plaintext == [UInt8](repeating: 0xEE, count: 16), "no byte of a chunk that does not authenticate")
    }
}
