// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// `attachments/STREAM-ID.jvb` in a sync location (FORMAT.md §14.11): an attachment's content as
/// its chunks are stored in the vault — the secretstream ciphertexts, bound to the stream id and
/// their index, under the key sealed in the blob row that travels in the packs. The file adds
/// nothing secret and needs no MAC of its own: a device reads it only for a blob row it holds,
/// and every chunk must open under that row's key, in order, ending with the final tag, and the
/// content must match the row's digest (``AttachmentStream/read(_:chunk:emit:tampered:)``).
///
/// `"JVLTBLOB" ‖ u8 version ‖ stream_id[16] ‖ u32 chunk_count ‖ chunk_count × (u32 length ‖ chunk)`,
/// integers big-endian. Written and read one chunk at a time.
enum SyncBlobFile {
    static let magic = Array("JVLTBLOB".utf8)
    static let version: UInt8 = 1
    static let headerLength = magic.count + 1 + 16 + 4
    /// The longest chunk a stream has: a full chunk and its tag.
    static let maximumChunkLength = AttachmentStream.chunkLength + SecretStream.overhead

    /// The length of the file of chunks of these lengths.
    static func length(chunkLengths: [Int]) -> Int64 {
        Int64(headerLength) + chunkLengths.reduce(0) { $0 + 4 + Int64($1) }
    }

    /// Writes the file to `handle`: the header, then each chunk `chunk` gives for 0..<count.
    static func write(streamID: UUID, count: Int64, to handle: FileHandle, chunk: (Int64) throws -> Data) throws {
        var header = ByteWriter(capacity: headerLength)
        header.raw(magic)
        header.raw([version])
        header.raw(streamID.bytes)
        header.u32(UInt32(truncatingIfNeeded: count))
        try handle.write(contentsOf: header.bytes)
        for index in 0..<count {
            let data = try chunk(index)
            var length = ByteWriter(capacity: 4)
            length.u32(UInt32(data.count))
            try handle.write(contentsOf: length.bytes)
            try handle.write(contentsOf: data)
        }
    }

    /// Reads a file for the stream `streamID` of `count` chunks: each call of ``next()`` gives the
    /// next chunk's ciphertext; the header must name that stream and count, and nothing may follow
    /// the last chunk. Any other shape is ``VaultError/syncPackRefused(_:)``.
    struct Reader {
        private let handle: FileHandle
        private let count: Int64
        private var index: Int64 = 0

        init(_ handle: FileHandle, streamID: UUID, count: Int64) throws {
            self.handle = handle
            self.count = count
            var reader = ByteReader(Array(try handle.read(upToCount: headerLength) ?? Data()))
            guard reader.raw(magic.count) == magic, reader.raw(1) == [version] else { throw Self.malformed("it is not a blob file of this format") }
            guard reader.raw(16).map(UUID.init(bytes:)) == streamID else { throw Self.malformed("it is the file of another content") }
            guard reader.u32().map(Int64.init) == count else { throw Self.malformed("its chunk count is not its content's") }
        }

        /// The next chunk, in order; nil after the last, once the file is known to end there.
        mutating func next() throws -> Data? {
            guard index < count else {
                guard try handle.read(upToCount: 1)?.isEmpty ?? true else { throw Self.malformed("it goes on after its last chunk") }
                return nil
            }
            var reader = ByteReader(Array(try handle.read(upToCount: 4) ?? Data()))
            guard let length = reader.u32().map(Int.init), length <= maximumChunkLength else {
                throw Self.malformed("chunk \(index) is cut short or too long")
            }
            let data = try handle.read(upToCount: length) ?? Data()
            guard data.count == length else { throw Self.malformed("chunk \(index) is cut short") }
            index += 1
            return data
        }

        private static func malformed(_ reason: String) -> VaultError { .syncPackRefused(reason) }
    }
}
