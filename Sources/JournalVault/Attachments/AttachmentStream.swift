// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// An attachment's content as it is stored (FORMAT.md §15): padded with zeros to its Padmé length,
/// cut into chunks of 1 MiB, each sealed in turn by libsodium's secretstream under the blob's own
/// key, with associated data naming the stream and the chunk's place; the last chunk tagged final.
/// A chunk missing, added, moved, swapped with another stream's or cut short fails to open.
///
/// Both directions hold one chunk at a time (two while writing, to know which one is the last),
/// whatever the size of the content, and compute the content's digest as it passes.
///
/// ```swift
/// let written = try AttachmentStream.write(streamID: id, limit: max, read: { try file.read(into: $0) },
///                                          store: { index, sealed in try insert(index, sealed) })
/// ```
enum AttachmentStream {
    static let chunkLength = 1 << 20
    private static let domain = Array("JVLT-chunk".utf8)

    /// The stream's key and header: the plaintext of a blob's sealed `key` field (`key[32] ‖ header[24]`).
    struct Secret: Sendable {
        let key: SecureBytes
        let header: [UInt8]

        init(key: SecureBytes, header: [UInt8]) {
            self.key = key
            self.header = header
        }

        /// Reads the sealed field's plaintext; nil unless it is exactly a key and a header.
        init?(sealedForm bytes: UnsafeBufferPointer<UInt8>) throws {
            guard bytes.count == SecretStream.keyLength + SecretStream.headerLength else { return nil }
            key = try SecureBytes(copying: bytes.prefix(SecretStream.keyLength))
            header = Array(bytes.suffix(SecretStream.headerLength))
        }

        var sealedForm: [UInt8] { key.withUnsafeBytes { Array($0) } + header }
    }

    /// A stream as stored: what writing it gives, and what reading it holds it to (from its blob row).
    struct Stored: Sendable {
        let streamID: UUID
        let secret: Secret
        /// The content's length and BLAKE2b-256 digest.
        let size: Int64
        let digest: [UInt8]
        let storedSize: Int64
        let chunkCount: Int64
    }

    /// The padded length and the number of chunks of a content of `size` bytes: at least one
    /// chunk, the last possibly empty (an empty file is one empty final chunk).
    static func layout(size: Int64) -> (storedSize: Int64, chunkCount: Int64) {
        let stored = Int64(Padme.paddedLength(UInt64(size)))
        return (stored, max(1, (stored + Int64(chunkLength) - 1) / Int64(chunkLength)))
    }

    /// `"JVLT-chunk" ‖ stream_id[16] ‖ u32 index`, big-endian. The count of chunks is not in it
    /// (it is unknown until the content ends, for a stream read from a pipe): the final tag ends
    /// the stream, and the blob row binds the count.
    static func associatedData(streamID: UUID, index: Int64) -> [UInt8] {
        var writer = ByteWriter(capacity: domain.count + 20)
        writer.raw(domain)
        writer.raw(streamID.bytes)
        writer.u32(UInt32(truncatingIfNeeded: index))
        return writer.bytes
    }

    /// Seals the content `read` gives (it fills the buffer it is handed and returns how many bytes
    /// it put there, 0 at the end) into chunks handed to `store` in order, under a new random key.
    /// Content longer than `limit` bytes stops it with ``VaultError/attachmentTooLarge(name:limit:)``
    /// naming `name`.
    static func write(streamID: UUID, name: String, limit: Int64, read: (UnsafeMutableRawBufferPointer) throws -> Int,
                      store: (Int64, [UInt8]) throws -> Void) throws -> Stored {
        let key = try SecureBytes.random(count: SecretStream.keyLength)
        let (writer, header) = try SecretStream.Writer.start(key: key)
        var digest = try Blake2bStream()
        var current = [UInt8](repeating: 0, count: chunkLength), spare: [UInt8] = []
        var filled = 0, size: Int64 = 0, index: Int64 = 0
        func push(final: Bool) throws {
            try store(index, try writer.push(Array(current[0..<filled]), associatedData: associatedData(streamID: streamID, index: index), final: final))
            index += 1
            filled = 0
        }
        while true {
            let count: Int
            if filled == chunkLength {
                // A full chunk waits until it is known whether more content follows: the last is tagged final.
                if spare.isEmpty { spare = [UInt8](repeating: 0, count: chunkLength) }
                count = try spare.withUnsafeMutableBytes { try read($0) }
                guard count > 0 else { break }
                try push(final: false)
                swap(&current, &spare)
            } else {
                count = try current.withUnsafeMutableBytes { try read(UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
                guard count > 0 else { break }
            }
            current.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[filled..<filled + count])) }
            filled += count
            size += Int64(count)
            guard size <= limit else { throw VaultError.attachmentTooLarge(name: name, limit: limit) }
        }
        let (storedSize, chunkCount) = layout(size: size)
        var padding = storedSize - size
        while true {
            let added = Int(min(Int64(chunkLength - filled), padding))
            for position in filled..<filled + added { current[position] = 0 }
            filled += added
            padding -= Int64(added)
            if padding == 0 { break }
            try push(final: false)
        }
        try push(final: true)
        guard index == chunkCount else { throw VaultError.storage("an attachment's stream has \(index) chunks instead of \(chunkCount)") }
        return Stored(streamID: streamID, secret: Secret(key: key, header: header), size: size, digest: try digest.finalize(),
                       storedSize: storedSize, chunkCount: chunkCount)
    }

    /// Opens the stream chunk by chunk — `chunk` gives the stored chunk of an index, nil where
    /// there is none — and hands `emit` the content of each as soon as it has authenticated,
    /// never a byte of a chunk that did not. The padding must be zeros and the whole content must
    /// have the expected digest; any failure is `tampered(detail)`.
    static func read(_ expected: Stored, chunk: (Int64) throws -> Data?, emit: (UnsafeRawBufferPointer) throws -> Void,
                     tampered: (String) -> Error) throws {
        let reader: SecretStream.Reader
        do {
            reader = try SecretStream.Reader(key: expected.secret.key, header: expected.secret.header)
        } catch {
            throw tampered("its stream header is malformed")
        }
        var digest = try Blake2bStream()
        for index in 0..<expected.chunkCount {
            guard let sealed = try chunk(index) else { throw tampered("chunk \(index) of \(expected.chunkCount) is missing") }
            let plaintext: [UInt8], isFinal: Bool
            do {
                (plaintext, isFinal) = try reader.pull(sealed, associatedData: associatedData(streamID: expected.streamID, index: index))
            } catch {
                throw tampered("chunk \(index) of \(expected.chunkCount) does not authenticate")
            }
            let start = index * Int64(chunkLength)
            guard isFinal == (index == expected.chunkCount - 1) else {
                throw tampered(isFinal ? "its stream ends at chunk \(index) of \(expected.chunkCount)" : "its last chunk is not tagged final")
            }
            guard Int64(plaintext.count) == min(Int64(chunkLength), expected.storedSize - start) else {
                throw tampered("chunk \(index) is not of its length")
            }
            let content = Int(max(0, min(Int64(plaintext.count), expected.size - start)))
            guard plaintext[content...].allSatisfy({ $0 == 0 }) else { throw tampered("its padding is not zeros") }
            try plaintext.withUnsafeBytes { bytes in
                let part = UnsafeRawBufferPointer(rebasing: bytes[..<content])
                digest.update(part)
                try emit(part)
            }
        }
        guard try digest.finalize() == expected.digest else { throw tampered("its content does not match its digest") }
    }
}
