// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The body of a backup (FORMAT.md §8.2) and of a sync pack (§14.2): a libsodium secret stream
/// of 64 KiB chunks, written and read one chunk at a time, so that a file of any size takes one
/// chunk of memory. On disk each chunk is its ciphertext, 17 bytes longer than its plaintext,
/// with no framing: every chunk but the last is full, and only the last is tagged final.
///
/// ```swift
/// let writer = try ChunkedSecretStream.Writer(key: key, finalChunk: .alwaysShort, to: output) { streamHeader in
///     try output.write(contentsOf: fileHeader + streamHeader)
///     return []
/// }
/// try writer.write(bytes)
/// try writer.finish()
/// let reader = try ChunkedSecretStream.Reader(key: key, header: streamHeader, from: input)
/// while let chunk = try reader.next() { … }
/// ```
enum ChunkedSecretStream {
    /// Plaintext bytes of every chunk but the last.
    static let chunkLength = 64 * 1024
    /// On-disk bytes of every chunk but the last.
    static let sealedChunkLength = chunkLength + SecretStream.overhead

    /// How the writer cuts the final chunk, the one way the two formats differ. A reader takes
    /// either: a final chunk of 0 to 65,536 bytes.
    enum FinalChunk: Sendable {
        /// 0 to 65,535 bytes: data of whole chunks ends with an empty final chunk (a backup, §8.2).
        case alwaysShort
        /// 1 to 65,536 bytes: data of whole chunks ends with a full final chunk, and only no data
        /// at all makes an empty one (a pack, §14.2).
        case mayBeFull
    }

    /// Why a stream is refused; each file maps these to its own messages. Chunks count from 1.
    enum Failure: Error, Equatable {
        /// The file ends before the final chunk.
        case truncated
        /// A chunk is damaged, out of place, or sealed with other associated data.
        case notAuthentic(chunk: Int)
        /// A chunk before the final one is not full.
        case shortChunk(chunk: Int)
        /// Bytes follow the final chunk.
        case trailingData
    }

    /// Seals what is written into chunks, writing each full one as soon as it is known not to be
    /// the final one.
    ///
    /// Used by one thread at a time (unchecked): ``write(length:read:wrote:)`` lends its stream
    /// to a sealing thread, which has ended when the call returns.
    final class Writer: @unchecked Sendable {
        private let stream: SecretStream.Writer
        private let output: FileHandle
        private let finalChunk: FinalChunk
        private let associatedData: [UInt8]
        /// Written but not yet sealed: less than a chunk, or (`mayBeFull`) up to a chunk that may be the final one.
        private var pending: [UInt8] = []
        /// Bytes of sealed chunks written so far.
        private(set) var sealedLength = 0

        /// Starts a stream under `key`. `writeHeader` writes the file's header, which holds the
        /// stream header it is given, before any chunk; it returns the associated data of every
        /// chunk (a backup's is its header's MAC, which covers the stream header).
        init(key: SecureBytes, finalChunk: FinalChunk, to output: FileHandle,
             writingHeader writeHeader: (_ streamHeader: [UInt8]) throws -> [UInt8]) throws {
            let (stream, header) = try SecretStream.Writer.start(key: key)
            self.stream = stream
            self.output = output
            self.finalChunk = finalChunk
            associatedData = try writeHeader(header)
        }

        func write(_ bytes: [UInt8]) throws {
            pending += bytes
            // A chunk that ends the data may still be the final one only when it may be full.
            let keep = finalChunk == .mayBeFull ? 1 : 0
            var start = 0
            while pending.count - start >= ChunkedSecretStream.chunkLength + keep {
                try seal(Array(pending[start..<start + ChunkedSecretStream.chunkLength]), final: false)
                start += ChunkedSecretStream.chunkLength
            }
            pending.removeFirst(start)
        }

        /// Seals the `length` bytes that `read` gives and finishes the stream, on three threads:
        /// `read` fills the buffer it is handed with the bytes from the offset it is given, on a
        /// thread of its own; the batches it reads are sealed on another; the caller's thread
        /// writes the sealed chunks and tells `wrote` how many bytes each write put. At most
        /// ``batchesAhead`` batches of ``batchChunks`` chunks wait at each hand-over, so memory
        /// stays bounded; a failure anywhere stops the others, which have ended when this
        /// returns. Only on a stream nothing was written to yet.
        ///
        /// ```swift
        /// try writer.write(length: size, read: { buffer, offset in try file.read(into: buffer, at: offset) }, wrote: { _ in })
        /// ```
        func write(length: Int64, read: @escaping @Sendable (UnsafeMutableRawBufferPointer, Int64) throws -> Void,
                   wrote: (Int) -> Void) throws {
            guard pending.isEmpty, sealedLength == 0 else { throw VaultError.storage("a stream of known length must be written whole") }
            let layout = KnownLength(length: length, finalChunk: finalChunk)
            let plaintext = SealingPipe<Void, Void>(buffers: Self.batchesAhead, length: Self.batchChunks * ChunkedSecretStream.chunkLength)
            let sealed = SealingPipe<Void, Void>(buffers: Self.batchesAhead, length: Self.batchChunks * ChunkedSecretStream.sealedChunkLength)
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

        /// The sealing side of ``write(length:read:wrote:)``, on its own thread: each batch read
        /// is cut into chunks, sealed, and handed on.
        private func seal(_ layout: KnownLength, from plaintext: SealingPipe<Void, Void>, into sealed: SealingPipe<Void, Void>) throws {
            var next: Int64 = 0
            while let batch = plaintext.next() {
                let output = try sealed.freeBuffer()
                var start = 0, sealedCount = 0
                for index in layout.chunks(ofBatchStartingAt: batch.index) {
                    let count = layout.count(ofChunk: index)
                    let into = UnsafeMutableRawBufferPointer(rebasing: output[sealedCount..<sealedCount + count + SecretStream.overhead])
                    try stream.push(UnsafeRawBufferPointer(rebasing: batch.buffer[start..<start + count]),
                                    associatedData: associatedData, final: index == layout.chunkCount - 1, into: into)
                    start += count
                    sealedCount += into.count
                }
                plaintext.recycle(batch.buffer)
                sealed.put(index: batch.index, buffer: output, count: sealedCount, prepared: ())
                next = batch.index + Int64(Self.batchChunks)
            }
            try plaintext.outcome()
            guard next >= layout.chunkCount else { throw VaultError.storage("a stream of known length ended before its final chunk") }
        }

        /// How ``write(length:read:wrote:)`` cuts `length` bytes: full chunks, then the final one
        /// as `finalChunk` says, read and sealed ``batchChunks`` at a time.
        private struct KnownLength: Sendable {
            let length: Int64
            let finalLength: Int64
            let chunkCount: Int64
            static let chunkLength = Int64(ChunkedSecretStream.chunkLength)

            init(length: Int64, finalChunk: FinalChunk) {
                self.length = length
                finalLength = switch finalChunk {
                case .alwaysShort: length % Self.chunkLength
                case .mayBeFull: length == 0 ? 0 : (length - 1) % Self.chunkLength + 1
                }
                chunkCount = (length - finalLength) / Self.chunkLength + 1
            }

            func chunks(ofBatchStartingAt first: Int64) -> Range<Int64> {
                first..<min(first + Int64(Writer.batchChunks), chunkCount)
            }

            func count(ofChunk index: Int64) -> Int {
                Int(index == chunkCount - 1 ? finalLength : Self.chunkLength)
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

        /// Seals what is pending as the final chunk. Nothing may be written after it.
        func finish() throws {
            try seal(pending, final: true)
            pending = []
        }

        /// The bytes of all sealed chunks once `more` bytes are written and the stream finished
        /// (a pack pads itself to a size it computes with this).
        func finishedLength(writing more: Int) -> Int {
            let rest = pending.count + more
            let chunks = switch finalChunk {
            case .alwaysShort: rest / ChunkedSecretStream.chunkLength + 1
            case .mayBeFull: max(1, (rest + ChunkedSecretStream.chunkLength - 1) / ChunkedSecretStream.chunkLength)
            }
            return sealedLength + rest + chunks * SecretStream.overhead
        }

        private func seal(_ chunk: [UInt8], final: Bool) throws {
            try output.write(contentsOf: try stream.push(chunk, associatedData: associatedData, final: final))
            sealedLength += chunk.count + SecretStream.overhead
        }
    }

    /// Opens the chunks in order; each is authenticated before its plaintext is given.
    final class Reader {
        private let stream: SecretStream.Reader
        private let input: FileHandle
        private let associatedData: [UInt8]
        /// Chunks read so far.
        private var chunks = 0
        /// Whether the final chunk has been read (and found to end the file).
        private(set) var finished = false
        /// Bytes of the file read so far (for progress).
        private(set) var bytesRead = 0

        /// Reads the chunks that follow in `input`, of the stream whose header is `header`.
        init(key: SecureBytes, header: [UInt8], associatedData: [UInt8] = [], from input: FileHandle) throws {
            stream = try SecretStream.Reader(key: key, header: header)
            self.input = input
            self.associatedData = associatedData
        }

        /// The next chunk's plaintext; nil once the final chunk has been given. A read error of
        /// `input` is thrown as it is.
        func next() throws -> [UInt8]? {
            guard !finished else { return nil }
            let sealed = try input.read(upToCount: ChunkedSecretStream.sealedChunkLength) ?? Data()
            bytesRead += sealed.count
            chunks += 1
            guard !sealed.isEmpty else { throw Failure.truncated }
            guard let (plaintext, isFinal) = try? stream.pull(sealed, associatedData: associatedData) else {
                throw Failure.notAuthentic(chunk: chunks)
            }
            if isFinal {
                guard (try input.read(upToCount: 1) ?? Data()).isEmpty else { throw Failure.trailingData }
                finished = true
            } else if sealed.count != ChunkedSecretStream.sealedChunkLength {
                throw Failure.shortChunk(chunk: chunks)
            }
            return plaintext
        }
    }
}
