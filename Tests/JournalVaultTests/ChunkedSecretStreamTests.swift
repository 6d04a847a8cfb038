// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
import VaultCrypto
@testable import JournalVault

/// The chunked secret stream of backups and sync packs (FORMAT.md §8.2, §14.2): what is written
/// reads back whatever its size, the final chunk is cut as each format says, and every damage
/// is refused with its own reason.
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
    func seal(_ data: [UInt8], finalChunk: ChunkedSecretStream.FinalChunk, piece: Int = 10_000) throws -> (header: [UInt8], body: [UInt8]) {
        try sealed(finalChunk: finalChunk) { writer in
            for start in stride(from: 0, to: data.count, by: piece) {
                try writer.write(Array(data[start..<min(start + piece, data.count)]))
            }
            let expectedLength = writer.finishedLength(writing: 0)
            try writer.finish()
            #expect(writer.sealedLength == expectedLength, "finishedLength foretells the stream's length")
        }
    }

    /// `data` written through a stream as one source of known length (sealed on a thread of its
    /// own, as a backup is), with what the writer reported written.
    func sealKnownLength(_ data: [UInt8], finalChunk: ChunkedSecretStream.FinalChunk) throws -> (header: [UInt8], body: [UInt8], reported: [Int]) {
        var reported: [Int] = []
        let (header, body) = try sealed(finalChunk: finalChunk) { writer in
            let expectedLength = writer.finishedLength(writing: data.count)
            try writer.write(length: Int64(data.count), read: { buffer, offset in
                data.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(offset)..<Int(offset) + buffer.count])) }
            }, wrote: { reported.append($0) })
            #expect(writer.sealedLength == expectedLength, "finishedLength foretells the stream's length")
        }
        return (header, body, reported)
    }

    /// The stream header and sealed chunks of what `write` puts through a new writer.
    private func sealed(finalChunk: ChunkedSecretStream.FinalChunk,
                        _ write: (ChunkedSecretStream.Writer) throws -> Void) throws -> (header: [UInt8], body: [UInt8]) {
        let path = folder.file("sealed")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: path))
        defer { try? output.close() }
        var header: [UInt8] = []
        let writer = try ChunkedSecretStream.Writer(key: key, finalChunk: finalChunk, to: output) { streamHeader in
            header = streamHeader
            return Self.associatedData
        }
        try write(writer)
        return (header, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
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

    @Test(arguments: lengths) func alwaysShortEndsWithAChunkShorterThanAFullOne(length: Int) throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let (header, body) = try seal(data, finalChunk: .alwaysShort)
        let chunks = try open(body, header: header)
        #expect(Array(chunks.joined()) == data)
        // Every chunk full but the last, 0 to 65,535 bytes: data of whole chunks ends with an empty one.
        #expect(chunks.map(\.count) == Array(repeating: Self.chunk, count: length / Self.chunk) + [length % Self.chunk])
        #expect(body.count == length + chunks.count * SecretStream.overhead)
    }

    @Test(arguments: lengths) func mayBeFullEndsWithTheLastBytesEvenAWholeChunk(length: Int) throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) }
        let (header, body) = try seal(data, finalChunk: .mayBeFull)
        let chunks = try open(body, header: header)
        #expect(Array(chunks.joined()) == data)
        // Every chunk full but the last, 1 to 65,536 bytes; empty only when there is no data.
        let full = max(0, (length - 1) / Self.chunk)
        #expect(chunks.map(\.count) == Array(repeating: Self.chunk, count: full) + [length - full * Self.chunk])
        #expect(body.count == length + chunks.count * SecretStream.overhead)
    }

    @Test func oneWriteOfManyChunksIsCutAlike() throws {
        let data = (0..<(2 * Self.chunk + 5)).map { UInt8(truncatingIfNeeded: $0) }
        for finalChunk in [ChunkedSecretStream.FinalChunk.alwaysShort, .mayBeFull] {
            let (header, body) = try seal(data, finalChunk: finalChunk, piece: data.count)
            #expect(try open(body, header: header).map(\.count) == [Self.chunk, Self.chunk, 5])
        }
    }

    /// Around the edges of a chunk and of the 16-chunk batches the sealing thread hands over.
    static let knownLengths = [0, 1, chunk - 1, chunk, chunk + 1, 16 * chunk - 1, 16 * chunk, 16 * chunk + 1, 33 * chunk + 5]

    @Test(arguments: knownLengths) func aSourceOfKnownLengthIsCutAsOneWrittenInPieces(length: Int) throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 16) }
        for finalChunk in [ChunkedSecretStream.FinalChunk.alwaysShort, .mayBeFull] {
            let (header, body, reported) = try sealKnownLength(data, finalChunk: finalChunk)
            let chunks = try open(body, header: header)
            #expect(Array(chunks.joined()) == data, "\(finalChunk)")
            let (piecesHeader, piecesBody) = try seal(data, finalChunk: finalChunk)
            #expect(chunks.map(\.count) == (try open(piecesBody, header: piecesHeader)).map(\.count), "\(finalChunk)")
            #expect(reported.reduce(0, +) == body.count && reported.allSatisfy { $0 <= 16 * Self.sealedChunk }, "\(reported)")
        }
    }

    @Test func aFailedReadOfAKnownLengthStopsTheStreamWithItsError() throws {
        struct Unreadable: Error, Equatable {}
        let path = folder.file("sealed")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: path))
        defer { try? output.close() }
        let writer = try ChunkedSecretStream.Writer(key: key, finalChunk: .alwaysShort, to: output) { _ in [] }
        var written = 0
        #expect(throws: Unreadable()) {
            try writer.write(length: 100 * Int64(Self.chunk), read: { buffer, offset in
                // The fourth batch of 16 chunks.
                if offset >= 48 * Int64(Self.chunk) { throw Unreadable() }
                buffer.initializeMemory(as: UInt8.self, repeating: 7)
            }, wrote: { written += $0 })
        }
        // What was sealed before the failure may be written; nothing after it, and no final chunk.
        #expect(written <= 48 * Self.sealedChunk && written % Self.sealedChunk == 0, "\(written)")
    }

    @Test func aFailedWriteOfAKnownLengthStopsTheSealer() throws {
        // /dev/full: every write fails as on a full disk.
        let output = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? output.close() }
        let writer = try ChunkedSecretStream.Writer(key: key, finalChunk: .alwaysShort, to: output) { _ in [] }
        let reads = Counter()
        #expect(throws: (any Error).self) {
            try writer.write(length: 1_000 * Int64(Self.chunk), read: { buffer, _ in
                reads.add()
                buffer.initializeMemory(as: UInt8.self, repeating: 1)
            }, wrote: { _ in })
        }
        // Reading and sealing stopped within their buffers of the failed write (those waiting at
        // each hand-over, and one in each thread's hands): not the 63 batches of the whole.
        #expect(reads.value <= 2 * ChunkedSecretStream.Writer.batchesAhead + 2, "\(reads.value) batches read")
    }

    @Test func aStreamCutAtAChunkBoundaryIsTruncated() throws {
        let (header, body) = try seal([UInt8](repeating: 1, count: 3 * Self.chunk), finalChunk: .mayBeFull)
        for kept in 0..<3 {
            let cut = Array(body.prefix(kept * Self.sealedChunk))
            #expect(throws: ChunkedSecretStream.Failure.truncated, "\(kept) chunks kept") { try open(cut, header: header) }
        }
    }

    @Test func aFlippedByteIsRefusedInItsChunk() throws {
        let (header, body) = try seal([UInt8](repeating: 2, count: 2 * Self.chunk + 100), finalChunk: .alwaysShort)
        for (offset, chunk) in [(0, 1), (Self.sealedChunk + 500, 2), (body.count - 1, 3)] {
            var damaged = body
            damaged[offset] ^= 0x40
            #expect(throws: ChunkedSecretStream.Failure.notAuthentic(chunk: chunk), "byte \(offset)") { try open(damaged, header: header) }
        }
    }

    @Test func reorderedChunksAreRefused() throws {
        let (header, body) = try seal([UInt8](repeating: 3, count: 3 * Self.chunk), finalChunk: .alwaysShort)
        var chunks = sealedChunks(body)
        chunks.swapAt(1, 2)
        #expect(throws: ChunkedSecretStream.Failure.notAuthentic(chunk: 2)) { try open(Array(chunks.joined()), header: header) }
        // A chunk repeated in place of the next one.
        chunks = sealedChunks(body)
        chunks[1] = chunks[0]
        #expect(throws: ChunkedSecretStream.Failure.notAuthentic(chunk: 2)) { try open(Array(chunks.joined()), header: header) }
    }

    @Test func otherAssociatedDataIsRefused() throws {
        let (header, body) = try seal([1, 2, 3], finalChunk: .alwaysShort)
        #expect(throws: ChunkedSecretStream.Failure.notAuthentic(chunk: 1)) { try open(body, header: header, associatedData: []) }
    }

    @Test func dataAfterTheFinalChunkIsRefusedWhateverItsForm() throws {
        // A full final chunk ends just where a next read would start: only the check after it
        // sees what follows.
        let (fullHeader, fullFinal) = try seal([UInt8](repeating: 4, count: Self.chunk), finalChunk: .mayBeFull)
        #expect(throws: ChunkedSecretStream.Failure.trailingData) { try open(fullFinal + [0], header: fullHeader) }
        #expect(throws: ChunkedSecretStream.Failure.trailingData) { try open(fullFinal + fullFinal.suffix(SecretStream.overhead), header: fullHeader) }
        // A shorter one is read with what follows it, which then does not authenticate.
        let (shortHeader, emptyFinal) = try seal([UInt8](repeating: 4, count: Self.chunk), finalChunk: .alwaysShort)
        #expect(throws: ChunkedSecretStream.Failure.notAuthentic(chunk: 2)) { try open(emptyFinal + [0], header: shortHeader) }
    }

    @Test func aShortChunkBeforeTheFinalOneIsRefused() throws {
        // Authentic chunks, but the second is short and not final: the file ends there, and only
        // the rule that a chunk before the final one is full says why.
        let (stream, header) = try SecretStream.Writer.start(key: key)
        let body = try stream.push([UInt8](repeating: 5, count: Self.chunk), associatedData: Self.associatedData, final: false)
            + stream.push([UInt8](repeating: 6, count: 100), associatedData: Self.associatedData, final: false)
        #expect(throws: ChunkedSecretStream.Failure.shortChunk(chunk: 2)) { try open(body, header: header) }
    }
}

/// A count kept by the sealing thread and read after it has ended.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
