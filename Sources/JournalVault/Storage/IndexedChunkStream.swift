// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
import VaultCrypto

/// The body of a backup of format 2 (FORMAT.md §8.2): a STREAM of 64 KiB chunks, each sealed on
/// its own under the nonce of its place (``StreamChunk``), so that every core seals and a backup
/// is written about as fast as the disk takes a copy. On disk each chunk is its ciphertext, 16
/// bytes longer than its plaintext, with no framing: every chunk but the last is full, and the
/// last holds 1 to 65,536 bytes (none only when the whole stream is empty). The last chunk is
/// the one the file ends with; its nonce says it is the last, so a file cut at a chunk's end is
/// refused.
///
/// ```swift
/// let writer = IndexedChunkStream.Writer(key: key, associatedData: headerMAC, to: output)
/// try writer.write(length: size, read: { buffer, offset in try file.read(into: buffer, at: offset) }, wrote: { _ in })
/// let reader = IndexedChunkStream.Reader(key: key, associatedData: headerMAC, from: input)
/// while let chunk = try reader.next() { … }
/// ```
enum IndexedChunkStream {
    /// Plaintext bytes of every chunk but the last.
    static let chunkLength = 64 * 1024
    /// On-disk bytes of every chunk but the last.
    static let sealedChunkLength = chunkLength + StreamChunk.overhead

    /// Seals a source of known length, on every core.
    ///
    /// Used by one thread at a time (unchecked): ``write(length:read:wrote:)`` lends it to the
    /// sealing threads, which have ended when the call returns.
    final class Writer: @unchecked Sendable {
        private let key: SecureBytes
        private let associatedData: [UInt8]
        private let output: FileHandle
        /// Bytes of sealed chunks written so far.
        private(set) var sealedLength = 0

        init(key: SecureBytes, associatedData: [UInt8], to output: FileHandle) {
            self.key = key
            self.associatedData = associatedData
            self.output = output
        }

        /// Seals the `length` bytes that `read` gives as the whole stream: `read` fills the
        /// buffer it is handed with the bytes from the offset it is given, on a thread of its
        /// own; each batch it reads is sealed on every core, a chunk per core at a time; the
        /// caller's thread writes the sealed batches and tells `wrote` how many bytes each write
        /// put. At most ``batchesAhead`` batches of ``batchChunks`` chunks wait at each
        /// hand-over, so memory stays bounded; a failure anywhere stops the others, which have
        /// ended when this returns. Once per writer.
        func write(length: Int64, read: @escaping @Sendable (UnsafeMutableRawBufferPointer, Int64) throws -> Void,
                   wrote: (Int) -> Void) throws {
            guard sealedLength == 0 else { throw VaultError.storage("a stream of known length must be written whole") }
            let layout = KnownLength(length: length)
            let plaintext = SealingPipe<Void, Void>(buffers: Self.batchesAhead, length: Self.batchChunks * IndexedChunkStream.chunkLength)
            let sealed = SealingPipe<Void, Void>(buffers: Self.batchesAhead, length: Self.batchChunks * IndexedChunkStream.sealedChunkLength)
            let workers = DispatchGroup()
            DispatchQueue.global(qos: .userInitiated).async(group: workers) {
                plaintext.end(Result { try layout.read(with: read, into: plaintext) })
            }
            DispatchQueue.global(qos: .userInitiated).async(group: workers) {
                defer { plaintext.stop() }
                sealed.end(Result { try self.seal(layout, from: plaintext, into: sealed) })
            }
            defer {
                sealed.stop()
                plaintext.stop()
                workers.wait()
                plaintext.release()
                sealed.release()
            }
            while let batch = sealed.next() {
                try output.write(contentsOf: UnsafeRawBufferPointer(rebasing: batch.buffer[..<batch.count]))
                sealedLength += batch.count
                wrote(batch.count)
                sealed.recycle(batch.buffer)
            }
            try sealed.outcome()
        }

        /// Chunks in one buffer of a hand-over: 1 MiB of plaintext.
        static let batchChunks = 16
        /// Batches that may wait at a hand-over: two on the way, and the one being worked on.
        static let batchesAhead = 3

        /// The sealing side of ``write(length:read:wrote:)``, on its own thread: the chunks of
        /// each batch read are sealed side by side, and the batch handed on.
        private func seal(_ layout: KnownLength, from plaintext: SealingPipe<Void, Void>, into sealed: SealingPipe<Void, Void>) throws {
            var next: Int64 = 0
            while let batch = plaintext.next() {
                let output = try sealed.freeBuffer()
                let chunks = layout.chunks(ofBatchStartingAt: batch.index)
                let failure = Mutex<Error?>(nil)
                nonisolated(unsafe) let input = batch.buffer, into = output
                DispatchQueue.concurrentPerform(iterations: chunks.count) { place in
                    let index = chunks.lowerBound + Int64(place)
                    let count = layout.count(ofChunk: index)
                    // Only a batch's last chunk may be short, so each chunk's place gives its offsets.
                    let start = place * IndexedChunkStream.chunkLength, sealedStart = place * IndexedChunkStream.sealedChunkLength
                    do {
                        try StreamChunk.seal(UnsafeRawBufferPointer(rebasing: input[start..<start + count]), index: UInt64(index),
                                             last: index == layout.chunkCount - 1, key: key, associatedData: associatedData,
                                             into: UnsafeMutableRawBufferPointer(rebasing: into[sealedStart..<sealedStart + count + StreamChunk.overhead]))
                    } catch {
                        failure.withLock { $0 = error }
                    }
                }
                if let error = failure.withLock({ $0 }) { throw error }
                let sealedCount = chunks.reduce(0) { $0 + layout.count(ofChunk: $1) } + chunks.count * StreamChunk.overhead
                plaintext.recycle(batch.buffer)
                sealed.put(index: batch.index, buffer: output, count: sealedCount, prepared: ())
                next = chunks.upperBound
            }
            try plaintext.outcome()
            guard next >= layout.chunkCount else { throw VaultError.storage("a stream of known length ended before its last chunk") }
        }

        /// How ``write(length:read:wrote:)`` cuts `length` bytes: full chunks, then a last one of
        /// 1 to 65,536 bytes (0 only when `length` is), read and sealed ``batchChunks`` at a time.
        private struct KnownLength: Sendable {
            let length: Int64
            let lastLength: Int64
            let chunkCount: Int64
            static let chunkLength = Int64(IndexedChunkStream.chunkLength)

            init(length: Int64) {
                self.length = length
                lastLength = length == 0 ? 0 : (length - 1) % Self.chunkLength + 1
                chunkCount = (length - lastLength) / Self.chunkLength + 1
            }

            func chunks(ofBatchStartingAt first: Int64) -> Range<Int64> {
                first..<min(first + Int64(Writer.batchChunks), chunkCount)
            }

            func count(ofChunk index: Int64) -> Int {
                Int(index == chunkCount - 1 ? lastLength : Self.chunkLength)
            }

            /// The reading side, on its own thread: every batch's bytes, in order.
            func read(with read: (UnsafeMutableRawBufferPointer, Int64) throws -> Void, into pipe: SealingPipe<Void, Void>) throws {
                var first: Int64 = 0, offset: Int64 = 0
                while first < chunkCount {
                    let count = chunks(ofBatchStartingAt: first).reduce(0) { $0 + self.count(ofChunk: $1) }
                    let buffer = try pipe.freeBuffer()
                    try read(UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]), offset)
                    pipe.put(index: first, buffer: buffer, count: count, prepared: ())
                    offset += Int64(count)
                    first += Int64(Writer.batchChunks)
                }
            }
        }
    }

    /// Opens the chunks in order; each is authenticated before its plaintext is given.
    final class Reader {
        private let key: SecureBytes
        private let input: FileHandle
        private let associatedData: [UInt8]
        /// The first byte of the next chunk, read to learn that the chunk before it is not the last.
        private var lookahead = Data()
        /// Chunks read so far.
        private var chunks: UInt64 = 0
        /// Whether the last chunk has been read.
        private(set) var finished = false

        /// Reads the chunks that follow in `input`, to its end.
        init(key: SecureBytes, associatedData: [UInt8], from input: FileHandle) {
            self.key = key
            self.input = input
            self.associatedData = associatedData
        }

        /// The next chunk's plaintext; nil once the last chunk has been given. A read error of
        /// `input` is thrown as it is.
        func next() throws -> [UInt8]? {
            guard !finished else { return nil }
            var sealed = lookahead
            sealed += try input.read(upToCount: IndexedChunkStream.sealedChunkLength + 1 - lookahead.count) ?? Data()
            let last = sealed.count <= IndexedChunkStream.sealedChunkLength
            if !last {
                lookahead = sealed.suffix(1)
                sealed.removeLast()
            }
            let number = Int(chunks) + 1
            guard sealed.count >= StreamChunk.overhead else { throw ChunkStreamFailure.truncated }
            var plaintext = [UInt8](repeating: 0, count: sealed.count - StreamChunk.overhead)
            do {
                try sealed.withUnsafeBytes { sealed in
                    try plaintext.withUnsafeMutableBytes { plaintext in
                        try StreamChunk.open(sealed, index: chunks, last: last, key: key, associatedData: associatedData, into: plaintext)
                    }
                }
            } catch {
                throw ChunkStreamFailure.notAuthentic(chunk: number)
            }
            // Only the whole stream's one chunk may be empty: a writer never ends a stream with one.
            if last, plaintext.isEmpty, chunks > 0 { throw ChunkStreamFailure.shortChunk(chunk: number) }
            chunks += 1
            finished = last
            return plaintext
        }
    }
}
