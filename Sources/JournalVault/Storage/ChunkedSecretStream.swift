// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The body of a sync pack (FORMAT.md §14.2) and of a backup of format 1 (§8.2): a libsodium
/// secret stream of 64 KiB chunks, written and read one chunk at a time, so that a file of any
/// size takes one chunk of memory. On disk each chunk is its ciphertext, 17 bytes longer than its
/// plaintext, with no framing: every chunk but the last is full, and only the last is tagged final.
///
/// ```swift
/// let writer = try ChunkedSecretStream.Writer(key: key, to: output) { streamHeader in
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

    /// Seals what is written into chunks, writing each full one as soon as it is known not to be
    /// the final one: data of whole chunks ends with a full final chunk, and only no data at all
    /// makes an empty one.
    final class Writer {
        private let stream: SecretStream.Writer
        private let output: FileHandle
        private let associatedData: [UInt8]
        /// Written but not yet sealed: up to a chunk, which may be the final one.
        private var pending: [UInt8] = []
        /// Bytes of sealed chunks written so far.
        private(set) var sealedLength = 0

        /// Starts a stream under `key`. `writeHeader` writes the file's header, which holds the
        /// stream header it is given, before any chunk; it returns the associated data of every
        /// chunk.
        init(key: SecureBytes, to output: FileHandle,
             writingHeader writeHeader: (_ streamHeader: [UInt8]) throws -> [UInt8]) throws {
            let (stream, header) = try SecretStream.Writer.start(key: key)
            self.stream = stream
            self.output = output
            associatedData = try writeHeader(header)
        }

        func write(_ bytes: [UInt8]) throws {
            pending += bytes
            var start = 0
            // Only a chunk with data after it is known not to be the final one.
            while pending.count - start > ChunkedSecretStream.chunkLength {
                try seal(Array(pending[start..<start + ChunkedSecretStream.chunkLength]), final: false)
                start += ChunkedSecretStream.chunkLength
            }
            pending.removeFirst(start)
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
            let chunks = max(1, (rest + ChunkedSecretStream.chunkLength - 1) / ChunkedSecretStream.chunkLength)
            return sealedLength + rest + chunks * SecretStream.overhead
        }

        private func seal(_ chunk: [UInt8], final: Bool) throws {
            try output.write(contentsOf: try stream.push(chunk, associatedData: associatedData, final: final))
            sealedLength += chunk.count + SecretStream.overhead
        }
    }

    /// Opens the chunks in order; each is authenticated before its plaintext is given. The final
    /// chunk may hold 0 to 65,536 bytes: a backup of format 1 ends with one shorter than a full
    /// chunk, empty after data of whole chunks, or (as jv first wrote them) a full one.
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
            guard !sealed.isEmpty else { throw ChunkStreamFailure.truncated }
            guard let (plaintext, isFinal) = try? stream.pull(sealed, associatedData: associatedData) else {
                throw ChunkStreamFailure.notAuthentic(chunk: chunks)
            }
            if isFinal {
                guard (try input.read(upToCount: 1) ?? Data()).isEmpty else { throw ChunkStreamFailure.trailingData }
                finished = true
            } else if sealed.count != ChunkedSecretStream.sealedChunkLength {
                throw ChunkStreamFailure.shortChunk(chunk: chunks)
            }
            return plaintext
        }
    }
}
