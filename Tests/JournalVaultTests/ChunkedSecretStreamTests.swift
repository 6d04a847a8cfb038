// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
import VaultCrypto
@testable import JournalVault

/// The chunked secret stream of sync packs and of format-1 backups (FORMAT.md §14.2, §8.2): what
/// is written reads back whatever its size, the final chunk is cut as a pack's, a format-1
/// backup's shorter final chunk is read too, and every damage is refused with its own reason.
@Suite struct ChunkedSecretStreamTests {
    static let chunk = ChunkedSecretStream.chunkLength
    static let sealedChunk = ChunkedSecretStream.sealedChunkLength
    static let associatedData = Array("header mac".utf8)

    let folder: TemporaryFolder
    let key: SecureBytes

    init() throws {
        folder = try TemporaryFolder()
        key = try SecureBytes.random(count: SecretStream.keyLength)
    }

    /// `data` written through a stream in pieces of `piece` bytes: the stream header and the sealed chunks.
    func seal(_ data: [UInt8], piece: Int = 10_000) throws -> (header: [UInt8], body: [UInt8]) {
        let path = folder.file("sealed")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: path))
        defer { try? output.close() }
        var header: [UInt8] = []
        let writer = try ChunkedSecretStream.Writer(key: key, to: output) { streamHeader in
            header = streamHeader
            return Self.associatedData
        }
        for start in stride(from: 0, to: data.count, by: piece) {
            try writer.write(Array(data[start..<min(start + piece, data.count)]))
        }
        let expectedLength = writer.finishedLength(writing: 0)
        try writer.finish()
        #expect(writer.sealedLength == expectedLength, "finishedLength foretells the stream's length")
        return (header, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// `data` as a format-1 backup's body (FORMAT.md §8.2): whole chunks, then a final one of 0 to 65,535 bytes.
    func sealAsFormat1Backup(_ data: [UInt8]) throws -> (header: [UInt8], body: [UInt8]) {
        let (stream, header) = try SecretStream.Writer.start(key: key)
        let full = data.count / Self.chunk * Self.chunk
        var body: [UInt8] = []
        for start in stride(from: 0, to: full, by: Self.chunk) {
            body += try stream.push(Array(data[start..<start + Self.chunk]), associatedData: Self.associatedData, final: false)
        }
        body += try stream.push(Array(data[full...]), associatedData: Self.associatedData, final: true)
        return (header, body)
    }

    /// The plaintext of every chunk of `body`, read back.
    func open(_ body: [UInt8], header: [UInt8], associatedData: [UInt8] = associatedData) throws -> [[UInt8]] {
        let path = folder.file("read")
        try Data(body).write(to: URL(fileURLWithPath: path))
        let input = try #require(FileHandle(forReadingAtPath: path))
        defer { try? input.close() }
        let reader = try ChunkedSecretStream.Reader(key: key, header: header, associatedData: associatedData, from: input)
        var chunks: [[UInt8]] = []
        while let chunk = try reader.next() {
            chunks.append(chunk)
            // One chunk at a time: never more of the file read than the chunks given.
            #expect(reader.bytesRead == chunks.reduce(0) { $0 + $1.count + SecretStream.overhead })
        }
        #expect(reader.finished)
        return chunks
    }

    /// The sealed chunks of `body`, as they lie one after the other.
    func sealedChunks(_ body: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: body.count, by: Self.sealedChunk).map { Array(body[$0..<min($0 + Self.sealedChunk, body.count)]) }
    }

    static let lengths = [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk]

    @Test(arguments: lengths) func aFormat1BackupsShorterFinalChunkIsRead(length: Int) throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let (header, body) = try sealAsFormat1Backup(data)
        let chunks = try open(body, header: header)
        #expect(Array(chunks.joined()) == data)
        #expect(chunks.map(\.count) == Array(repeating: Self.chunk, count: length / Self.chunk) + [length % Self.chunk])
    }

    @Test(arguments: lengths) func theFinalChunkHoldsTheLastBytesEvenAWholeChunk(length: Int) throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) }
        let (header, body) = try seal(data)
        let chunks = try open(body, header: header)
        #expect(Array(chunks.joined()) == data)
        // Every chunk full but the last, 1 to 65,536 bytes; empty only when there is no data.
        let full = max(0, (length - 1) / Self.chunk)
        #expect(chunks.map(\.count) == Array(repeating: Self.chunk, count: full) + [length - full * Self.chunk])
        #expect(body.count == length + chunks.count * SecretStream.overhead)
    }

    @Test func oneWriteOfManyChunksIsCutAlike() throws {
        let data = (0..<(2 * Self.chunk + 5)).map { UInt8(truncatingIfNeeded: $0) }
        let (header, body) = try seal(data, piece: data.count)
        #expect(try open(body, header: header).map(\.count) == [Self.chunk, Self.chunk, 5])
    }

    @Test func aStreamCutAtAChunkBoundaryIsTruncated() throws {
        let (header, body) = try seal([UInt8](repeating: 1, count: 3 * Self.chunk))
        for kept in 0..<3 {
            let cut = Array(body.prefix(kept * Self.sealedChunk))
            #expect(throws: ChunkStreamFailure.truncated, "\(kept) chunks kept") { try open(cut, header: header) }
        }
    }

    @Test func aFlippedByteIsRefusedInItsChunk() throws {
        let (header, body) = try seal([UInt8](repeating: 2, count: 2 * Self.chunk + 100))
        for (offset, chunk) in [(0, 1), (Self.sealedChunk + 500, 2), (body.count - 1, 3)] {
            var damaged = body
            damaged[offset] ^= 0x40
            #expect(throws: ChunkStreamFailure.notAuthentic(chunk: chunk), "byte \(offset)") { try open(damaged, header: header) }
        }
    }

    @Test func reorderedChunksAreRefused() throws {
        let (header, body) = try seal([UInt8](repeating: 3, count: 3 * Self.chunk))
        var chunks = sealedChunks(body)
        chunks.swapAt(1, 2)
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 2)) { try open(Array(chunks.joined()), header: header) }
        // A chunk repeated in place of the next one.
        chunks = sealedChunks(body)
        chunks[1] = chunks[0]
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 2)) { try open(Array(chunks.joined()), header: header) }
    }

    @Test func otherAssociatedDataIsRefused() throws {
        let (header, body) = try seal([1, 2, 3])
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 1)) { try open(body, header: header, associatedData: []) }
    }

    @Test func dataAfterTheFinalChunkIsRefusedWhateverItsForm() throws {
        // A full final chunk ends just where a next read would start: only the check after it
        // sees what follows.
        let (fullHeader, fullFinal) = try seal([UInt8](repeating: 4, count: Self.chunk))
        #expect(throws: ChunkStreamFailure.trailingData) { try open(fullFinal + [0], header: fullHeader) }
        #expect(throws: ChunkStreamFailure.trailingData) { try open(fullFinal + fullFinal.suffix(SecretStream.overhead), header: fullHeader) }
        // A shorter one (a format-1 backup's) is read with what follows it, which then does not authenticate.
        let (shortHeader, emptyFinal) = try sealAsFormat1Backup([UInt8](repeating: 4, count: Self.chunk))
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 2)) { try open(emptyFinal + [0], header: shortHeader) }
    }

    @Test func aShortChunkBeforeTheFinalOneIsRefused() throws {
        // Authentic chunks, but the second is short and not final: the file ends there, and only
        // the rule that a chunk before the final one is full says why.
        let (stream, header) = try SecretStream.Writer.start(key: key)
        let body = try stream.push([UInt8](repeating: 5, count: Self.chunk), associatedData: Self.associatedData, final: false)
            + stream.push([UInt8](repeating: 6, count: 100), associatedData: Self.associatedData, final: false)
        #expect(throws: ChunkStreamFailure.shortChunk(chunk: 2)) { try open(body, header: header) }
    }
}
