// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// An attachment's content as it is stored (FORMAT.md §15): padded with zeros to its Padmé length,
/// cut into chunks of 1 MiB, each sealed in turn by libsodium's secretstream under the blob's own
/// key, with associated data naming the stream and the chunk's place; the last chunk tagged final.
/// A chunk missing, added, moved, swapped with another stream's or cut short fails to open.
///
/// Both directions hold a few chunks at a time (a handful while writing: the one read ahead to
/// know which one is the last, and those sealed ahead of SQLite), whatever the size of the
/// content, and compute the content's digest as it passes.
///
/// ```swift
/// let written = try AttachmentStream.write(streamID: id, name: name, limit: max, read: { try file.read(into: $0) },
///                                          prepare: { _, _ in }, store: { index, sealed, _ in try insert(index, sealed) })
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
    ///
    /// Reading, digesting and sealing run on a thread of their own (with `prepare`, given each
    /// sealed chunk there: the caller's own digest of it), while `store` runs on the caller's
    /// thread with the chunks before: on two cores SQLite writing one chunk and libsodium
    /// sealing the next take turns no longer. At most ``sealedAhead`` sealed chunks wait, in
    /// buffers used again and again, so memory stays bounded; a failure on either side stops the
    /// other (a sealer waiting in `read`, on a pipe, once that read returns), and the sealing
    /// thread has ended (its key and buffers wiped) when this returns.
    static func write<Prepared: Sendable>(streamID: UUID, name: String, limit: Int64,
                                          read: @escaping @Sendable (UnsafeMutableRawBufferPointer) throws -> Int,
                                          prepare: @escaping @Sendable (Int64, UnsafeRawBufferPointer) throws -> Prepared,
                                          store: (Int64, UnsafeRawBufferPointer, Prepared) throws -> Void) throws -> Stored {
        let pipe = SealingPipe<Prepared, Stored>(buffers: sealedAhead, length: chunkLength + SecretStream.overhead)
        let sealer = DispatchGroup()
        DispatchQueue.global(qos: .userInitiated).async(group: sealer) {
            pipe.end(Result { try seal(streamID: streamID, name: name, limit: limit, read: read, into: pipe, prepare: prepare) })
        }
        defer {
            pipe.stop()
            sealer.wait()
            pipe.release()
        }
        while let chunk = pipe.next() {
            try store(chunk.index, UnsafeRawBufferPointer(rebasing: chunk.buffer[..<chunk.count]), chunk.prepared)
            pipe.recycle(chunk.buffer)
        }
        return try pipe.outcome()
    }

    /// Sealed chunks that may wait for the storer: two on the way, and the one being stored.
    static let sealedAhead = 3

    /// The sealing side of ``write(streamID:name:limit:read:prepare:store:)``, on its own thread.
    private static func seal<Prepared: Sendable>(streamID: UUID, name: String, limit: Int64,
                                                 read: (UnsafeMutableRawBufferPointer) throws -> Int, into pipe: SealingPipe<Prepared, Stored>,
                                                 prepare: (Int64, UnsafeRawBufferPointer) throws -> Prepared) throws -> Stored {
        let key = try SecureBytes.random(count: SecretStream.keyLength)
        let (writer, header) = try SecretStream.Writer.start(key: key)
        var digest = try Blake2bStream()
        // The plaintext: the chunk being filled, and the next, read before a full chunk is sealed.
        var current = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkLength, alignment: 64)
        var spare = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkLength, alignment: 64)
        defer {
            for buffer in [current, spare] {
                Sodium.wipe(buffer)
                buffer.deallocate()
            }
        }
        var filled = 0, size: Int64 = 0, index: Int64 = 0
        func push(final: Bool) throws {
            let sealed = try pipe.freeBuffer()
            let count = filled + SecretStream.overhead
            let output = UnsafeMutableRawBufferPointer(rebasing: sealed[..<count])
            try writer.push(UnsafeRawBufferPointer(rebasing: current[..<filled]), associatedData: associatedData(streamID: streamID, index: index),
                            final: final, into: output)
            pipe.put(index: index, buffer: sealed, count: count, prepared: try prepare(index, UnsafeRawBufferPointer(output)))
            index += 1
            filled = 0
        }
        while true {
            let count: Int
            if filled == chunkLength {
                // A full chunk waits until it is known whether more content follows: the last is tagged final.
                count = try read(spare)
                guard count > 0 else { break }
                try push(final: false)
                swap(&current, &spare)
            } else {
                count = try read(UnsafeMutableRawBufferPointer(rebasing: current[filled...]))
                guard count > 0 else { break }
            }
            digest.update(UnsafeRawBufferPointer(rebasing: current[filled..<filled + count]))
            filled += count
            size += Int64(count)
            guard size <= limit else { throw VaultError.attachmentTooLarge(name: name, limit: limit) }
        }
        let (storedSize, chunkCount) = layout(size: size)
        var padding = storedSize - size
        while true {
            let added = Int(min(Int64(chunkLength - filled), padding))
            UnsafeMutableRawBufferPointer(rebasing: current[filled..<filled + added]).initializeMemory(as: UInt8.self, repeating: 0)
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
        try read(expected, chunk: { index, open in
            guard let data = try chunk(index) else { return false }
            try data.withUnsafeBytes(open)
            return true
        }, emit: emit, tampered: tampered)
    }

    /// ``read(_:chunk:emit:tampered:)`` with each chunk lent rather than given: `chunk` hands the
    /// stored bytes of an index to the function it is passed (they need live only for that call,
    /// so they can be SQLite's own buffer) and returns false where there is none.
    static func read(_ expected: Stored, chunk: (Int64, (UnsafeRawBufferPointer) throws -> Void) throws -> Bool,
                     emit: (UnsafeRawBufferPointer) throws -> Void, tampered: (String) -> Error) throws {
        var digest = try Blake2bStream()
        try open(expected, chunk: chunk, emit: { part in
            digest.update(part)
            try emit(part)
        }, tampered: tampered)
        guard try digest.finalize() == expected.digest else { throw tampered(contentMismatch) }
    }

    /// What a content whose digest is not its blob row's is told.
    static let contentMismatch = "its content does not match its digest"

    /// ``read(_:chunk:emit:tampered:)`` but for the content's digest, which the caller makes of
    /// what it is given and checks (``contentMismatch``) — on another thread, where that balances
    /// the work. One buffer of plaintext serves every chunk.
    static func open(_ expected: Stored, chunk: (Int64, (UnsafeRawBufferPointer) throws -> Void) throws -> Bool,
                     emit: (UnsafeRawBufferPointer) throws -> Void, tampered: (String) -> Error) throws {
        let reader: SecretStream.Reader
        do {
            reader = try SecretStream.Reader(key: expected.secret.key, header: expected.secret.header)
        } catch {
            throw tampered("its stream header is malformed")
        }
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkLength, alignment: 64)
        defer {
            Sodium.wipe(plaintext)
            plaintext.deallocate()
        }
        for index in 0..<expected.chunkCount {
            let start = index * Int64(chunkLength)
            let length = min(Int64(chunkLength), expected.storedSize - start)
            var opened: (count: Int, isFinal: Bool)?
            let found = try chunk(index) { sealed in
                // Longer than a chunk can be is not of its length, whatever it holds.
                guard sealed.count <= chunkLength + SecretStream.overhead else { return }
                opened = try? reader.pull(sealed, associatedData: associatedData(streamID: expected.streamID, index: index), into: plaintext)
            }
            guard found else { throw tampered("chunk \(index) of \(expected.chunkCount) is missing") }
            guard let (count, isFinal) = opened else {
                throw tampered("chunk \(index) of \(expected.chunkCount) does not authenticate")
            }
            guard isFinal == (index == expected.chunkCount - 1) else {
                throw tampered(isFinal ? "its stream ends at chunk \(index) of \(expected.chunkCount)" : "its last chunk is not tagged final")
            }
            guard Int64(count) == length else { throw tampered("chunk \(index) is not of its length") }
            let content = Int(max(0, min(Int64(count), expected.size - start)))
            guard plaintext[content..<count].allSatisfy({ $0 == 0 }) else { throw tampered("its padding is not zeros") }
            try emit(UnsafeRawBufferPointer(rebasing: plaintext[..<content]))
        }
    }
}
