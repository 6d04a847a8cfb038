// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
import VaultCrypto
@testable import JournalVault

/// The STREAM of format-2 backups (FORMAT.md §8.2): a source of known length reads back whatever
/// its size, cut in full chunks and a last one of 1 to 65,536 bytes; the chunks sealed side by side
/// are the ones a chunk-by-chunk sealing makes; and every damage is refused.
@Suite struct IndexedChunkStreamTests {
    static let chunk = IndexedChunkStream.chunkLength
    static let sealedChunk = IndexedChunkStream.sealedChunkLength
    static let associatedData = Array("header mac".utf8)

    let folder: TemporaryFolder
    let key: SecureBytes

    init() throws {
        folder = try TemporaryFolder()
        key = try SecureBytes.random(count: 32)
    }

    /// `data` sealed as one source of known length, with what the writer reported written.
    func seal(_ data: [UInt8]) throws -> (body: [UInt8], reported: [Int]) {
        let path = folder.file("sealed")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: path))
        defer { try? output.close() }
        let writer = IndexedChunkStream.Writer(key: key, associatedData: Self.associatedData, to: output)
        var reported: [Int] = []
        try writer.write(length: Int64(data.count), read: { buffer, offset in
            data.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(offset)..<Int(offset) + buffer.count])) }
        }, wrote: { reported.append($0) })
        let body = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(writer.sealedLength == body.count)
        return (body, reported)
    }

    /// The plaintext of every chunk of `body`, read back.
    func open(_ body: [UInt8], associatedData: [UInt8] = associatedData) throws -> [[UInt8]] {
        let path = folder.file("read")
        try Data(body).write(to: URL(fileURLWithPath: path))
        let input = try #require(FileHandle(forReadingAtPath: path))
        defer { try? input.close() }
        let reader = IndexedChunkStream.Reader(key: key, associatedData: associatedData, from: input)
        var chunks: [[UInt8]] = []
        while let chunk = try reader.next() { chunks.append(chunk) }
        #expect(reader.finished)
        return chunks
    }

    /// Chunk `index` of `plaintext` sealed alone, the way FORMAT.md §8.2 describes it.
    func sealedAlone(_ plaintext: [UInt8], index: UInt64, last: Bool) throws -> [UInt8] {
        var sealed = [UInt8](repeating: 0, count: plaintext.count + StreamChunk.overhead)
        try plaintext.withUnsafeBytes { plaintext in
            try sealed.withUnsafeMutableBytes {
                try StreamChunk.seal(plaintext, index: index, last: last, key: key, associatedData: Self.associatedData, into: $0)
            }
        }
        return sealed
    }

    func sealedChunks(_ body: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: body.count, by: Self.sealedChunk).map { Array(body[$0..<min($0 + Self.sealedChunk, body.count)]) }
    }

    /// Around the edges of a chunk and of the 16-chunk batches sealed side by side.
    static let lengths = [0, 1, chunk - 1, chunk, chunk + 1, 16 * chunk - 1, 16 * chunk, 16 * chunk + 1, 33 * chunk + 5]

    @Test(arguments: lengths) func aSourceIsCutInFullChunksAndALastOfOneToAFullChunk(length: Int) throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 16) }
        let (body, reported) = try seal(data)
        let chunks = try open(body)
        #expect(Array(chunks.joined()) == data)
        let full = max(0, (length - 1) / Self.chunk)
        #expect(chunks.map(\.count) == Array(repeating: Self.chunk, count: full) + [length - full * Self.chunk])
        #expect(body.count == length + chunks.count * StreamChunk.overhead)
        #expect(reported.reduce(0, +) == body.count && reported.allSatisfy { $0 <= 16 * Self.sealedChunk }, "\(reported)")
    }

    @Test func theChunksSealedSideBySideAreEachTheChunkSealedAlone() throws {
        let data = (0..<(17 * Self.chunk + 3)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        let (body, _) = try seal(data)
        var expected: [UInt8] = []
        for (index, start) in stride(from: 0, to: data.count, by: Self.chunk).enumerated() {
            let end = min(start + Self.chunk, data.count)
            expected += try sealedAlone(Array(data[start..<end]), index: UInt64(index), last: end == data.count)
        }
        #expect(body == expected)
    }

    /// A known answer, computed from FORMAT.md §8.2 with PyNaCl's
    /// `crypto_aead_chacha20poly1305_ietf_encrypt`: key 00 01 … 1f, associated data "header mac", one last chunk "JVLT", nonce
    /// 00 … 00 01 (index 0, last).
    @Test func oneChunkMatchesItsKnownAnswer() throws {
        let key = try SecureBytes(copying: Array(0..<32))
        let plaintext = Array("JVLT".utf8)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + StreamChunk.overhead)
        try plaintext.withUnsafeBytes { plaintext in
            try sealed.withUnsafeMutableBytes {
                try StreamChunk.seal(plaintext, index: 0, last: true, key: key, associatedData: Self.associatedData, into: $0)
            }
        }
        #expect(StreamChunk.nonce(index: 0, last: true) == [UInt8](repeating: 0, count: 11) + [1])
        #expect(StreamChunk.nonce(index: 0x0102_0304_0506_0708, last: false) == [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0])
        #expect(Hex.lower(sealed) == Self.knownChunk)
    }

    static let knownChunk = "230a308d8f794f5734dd7a789f93ec4fe7ac90ea"

    @Test func aFailedReadStopsTheStreamWithItsError() throws {
        struct Unreadable: Error, Equatable {}
        let path = folder.file("sealed")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: path))
        defer { try? output.close() }
        let writer = IndexedChunkStream.Writer(key: key, associatedData: [], to: output)
        var written = 0
        #expect(throws: Unreadable()) {
            try writer.write(length: 100 * Int64(Self.chunk), read: { buffer, offset in
                // The fourth batch of 16 chunks.
                if offset >= 48 * Int64(Self.chunk) { throw Unreadable() }
                buffer.initializeMemory(as: UInt8.self, repeating: 7)
            }, wrote: { written += $0 })
        }
        // What was sealed before the failure may be written; nothing after it, and no last chunk.
        #expect(written <= 48 * Self.sealedChunk && written % Self.sealedChunk == 0, "\(written)")
    }

    @Test func aFailedWriteStopsTheSealers() throws {
        // /dev/full: every write fails as on a full disk.
        let output = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? output.close() }
        let writer = IndexedChunkStream.Writer(key: key, associatedData: [], to: output)
        let reads = Counter()
        #expect(throws: (any Error).self) {
            try writer.write(length: 1_000 * Int64(Self.chunk), read: { buffer, _ in
                reads.add()
                buffer.initializeMemory(as: UInt8.self, repeating: 1)
            }, wrote: { _ in })
        }
        // Reading and sealing stopped within their buffers of the failed write (those waiting at
        // each hand-over, and one in each thread's hands): not the 63 batches of the whole.
        #expect(reads.value <= 2 * IndexedChunkStream.Writer.batchesAhead + 2, "\(reads.value) batches read")
    }

    @Test func aStreamCutAtAChunksEndIsRefused() throws {
        let (body, _) = try seal([UInt8](repeating: 1, count: 3 * Self.chunk))
        #expect(throws: ChunkStreamFailure.truncated) { try open([]) }
        for kept in 1..<3 {
            // The chunk the file now ends with was not sealed as the last.
            let cut = Array(body.prefix(kept * Self.sealedChunk))
            #expect(throws: ChunkStreamFailure.notAuthentic(chunk: kept), "\(kept) chunks kept") { try open(cut) }
        }
        #expect(throws: ChunkStreamFailure.truncated) { try open(Array(body.prefix(2 * Self.sealedChunk + 15))) }
    }

    @Test func aFlippedByteIsRefusedInItsChunk() throws {
        let (body, _) = try seal([UInt8](repeating: 2, count: 2 * Self.chunk + 100))
        for (offset, chunk) in [(0, 1), (Self.sealedChunk - 1, 1), (Self.sealedChunk + 500, 2), (body.count - 1, 3)] {
            var damaged = body
            damaged[offset] ^= 0x40
            #expect(throws: ChunkStreamFailure.notAuthentic(chunk: chunk), "byte \(offset)") { try open(damaged) }
        }
    }

    @Test func reorderedRepeatedOrDroppedChunksAreRefused() throws {
        let (body, _) = try seal([UInt8](repeating: 3, count: 3 * Self.chunk + 10))
        var chunks = sealedChunks(body)
        chunks.swapAt(1, 2)
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 2)) { try open(Array(chunks.joined())) }
        chunks = sealedChunks(body)
        chunks[1] = chunks[0]
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 2)) { try open(Array(chunks.joined())) }
        chunks = sealedChunks(body)
        chunks.remove(at: 1)
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 2)) { try open(Array(chunks.joined())) }
    }

    @Test func otherAssociatedDataOrAnotherKeyIsRefused() throws {
        let (body, _) = try seal([1, 2, 3])
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 1)) { try open(body, associatedData: []) }
        let other = IndexedChunkStreamTests(folder: folder, key: try SecureBytes.random(count: 32))
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 1)) { try other.open(body) }
    }

    @Test func anythingAfterTheLastChunkIsRefused() throws {
        // The last chunk is the one the file ends with: what is appended makes another chunk
        // (or the last one longer) and the one sealed as last is read as not last.
        let (body, _) = try seal([UInt8](repeating: 4, count: Self.chunk))
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 1)) { try open(body + [0]) }
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 1)) { try open(body + body) }
        let (short, _) = try seal([UInt8](repeating: 4, count: 100))
        #expect(throws: ChunkStreamFailure.notAuthentic(chunk: 1)) { try open(short + [0]) }
    }

    @Test func anEmptyLastChunkAfterOthersIsRefusedThoughAuthentic() throws {
        // No writer makes it (data of whole chunks ends with a full last one); a reader holds it
        // to the format all the same.
        let body = try sealedAlone([UInt8](repeating: 5, count: Self.chunk), index: 0, last: false)
            + sealedAlone([], index: 1, last: true)
        #expect(throws: ChunkStreamFailure.shortChunk(chunk: 2)) { try open(body) }
        // A stream of nothing is one empty last chunk.
        #expect(try open(try sealedAlone([], index: 0, last: true)) == [[]])
    }

    private init(folder: TemporaryFolder, key: SecureBytes) {
        self.folder = folder
        self.key = key
    }
}

/// A count kept by the reading thread and read after it has ended.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
