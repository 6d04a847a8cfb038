// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// An immutable change pack (FORMAT.md §14.2): a plaintext header, authenticated, then the
/// changes in a libsodium secret stream under a random per-pack key. The pack key is wrapped
/// under the vault's sync key with the header as associated data, so a pack renamed to another
/// number, moved to another device's folder or copied into another vault does not open, and the
/// stream's final tag catches a truncated one.
///
/// ```swift
/// let writer = try SyncPack.Writer(header: header, syncKey: key, to: handle)
/// try writer.append(change)
/// try writer.finish()
/// ```
enum SyncPack {
    static let magic = Array("JVSYNC\0\0".utf8)
    static let format: UInt16 = 1
    /// A device's numbered change packs, or a snapshot of the whole vault as it held it
    /// (FORMAT.md §14.9): the same format, told apart by the domain of the key wrapping, so one
    /// cannot be renamed to pass for the other.
    enum Kind: Sendable {
        case pack
        case snapshot

        var wrapDomain: [UInt8] { Array((self == .pack ? "JVLT-sync-pack" : "JVLT-sync-snapshot").utf8) }
    }
    /// A pack file's size is a multiple of this (zero padding after the end mark), so that it
    /// tells little of how many changes the pack holds.
    static let paddingBlock = 4096
    static let maximumDependencies = 4096

    struct Header: Equatable, Sendable {
        var vaultID: UUID
        var device: UUID
        var number: UInt64
        var keyVersion: UInt32
        var createdAt: Int64
        /// What the writing device had applied of every other device's packs (1...n, no gap)
        /// when it wrote this one: a device applies the pack only once it has applied as much.
        var dependencies: [UUID: UInt64]
        /// A snapshot's only: for every device, the greatest clock among the stamps of that
        /// device's revisions it holds (so a revision held elsewhere is known to be in it or not).
        var clocks: [UUID: UInt64]? = nil

        /// `magic ‖ format u16 ‖ vault[16] ‖ device[16] ‖ number u64 ‖ key_version u32 ‖
        /// created_at i64 ‖ n u16 ‖ n × (device[16] ‖ applied u64)`, dependencies in byte order;
        /// a snapshot's then `m u16 ‖ m × (device[16] ‖ clock u64)`.
        var encoded: [UInt8] {
            var writer = ByteWriter(capacity: 64 + (dependencies.count + (clocks?.count ?? 0)) * 24)
            writer.raw(SyncPack.magic)
            writer.u16(SyncPack.format)
            writer.raw(vaultID.bytes)
            writer.raw(device.bytes)
            writer.u64(number)
            writer.u32(keyVersion)
            writer.i64(createdAt)
            for map in [dependencies] + (clocks.map { [$0] } ?? []) {
                writer.u16(UInt16(map.count))
                for (device, value) in map.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
                    writer.raw(device.bytes)
                    writer.u64(value)
                }
            }
            return writer.bytes
        }
    }

    /// Bytes after the header: the wrapped pack key and the stream header.
    static let keyBlockLength = AEAD.nonceLength + SecretStream.keyLength + AEAD.tagLength + SecretStream.headerLength

    /// Writes a pack: header, then changes as they are appended.
    final class Writer {
        private let stream: ChunkedSecretStream.Writer
        /// Bytes of the file before the stream's chunks.
        private let headerLength: Int
        private(set) var changes = 0

        init(header: Header, syncKey: SecureBytes, kind: Kind = .pack, to output: FileHandle) throws {
            let packKey = try SecureBytes.random(count: SecretStream.keyLength)
            let prefix = header.encoded
            let wrapped = try syncKey.withUnsafeBytes { key in
                try packKey.withUnsafeBytes { plain in try AEAD.seal(plain, key: key, associatedData: kind.wrapDomain + prefix) }
            }
            headerLength = prefix.count + wrapped.count + SecretStream.headerLength
            // The final chunk may be full, never empty (FORMAT.md §14.2): the end mark is in it.
            stream = try ChunkedSecretStream.Writer(key: packKey, to: output) { streamHeader in
                try output.write(contentsOf: prefix + wrapped + streamHeader)
                return []
            }
        }

        /// `u32 len ‖ change`: the reader takes changes whole, whatever chunk they start in.
        func append(_ change: SyncChange) throws {
            var writer = ByteWriter(capacity: 256)
            change.encode(into: &writer)
            var length = ByteWriter(capacity: 4)
            length.u32(UInt32(writer.bytes.count))
            try stream.write(length.bytes + writer.bytes)
            changes += 1
        }

        /// The end mark (a zero length), the zero padding that makes the whole file a multiple
        /// of ``SyncPack/paddingBlock`` bytes, and the final chunk.
        func finish() throws {
            let endMark = 4
            let padding = (0..<2 * SyncPack.paddingBlock).first {
                (headerLength + stream.finishedLength(writing: endMark + $0)) % SyncPack.paddingBlock == 0
            } ?? 0
            try stream.write([UInt8](repeating: 0, count: endMark + padding))
            try stream.finish()
        }
    }

    /// Reads the header of the pack at `path` and authenticates it by unwrapping its key.
    /// `expected` names what the file's place in the sync location says it is.
    static func open(_ path: String, syncKey: SecureBytes, expected: (vaultID: UUID, device: UUID, number: UInt64)) throws -> Reader {
        try open(path, kind: .pack, expected: expected) { _ in syncKey }
    }

    /// The same, with the sync key of the key version the header names (`syncKey` may throw:
    /// a version whose key is not at hand). The header is authenticated by that key.
    static func open(_ path: String, kind: Kind, expected: (vaultID: UUID, device: UUID, number: UInt64),
                     syncKey: (UInt32) throws -> SecureBytes) throws -> Reader {
        let input = try SyncLocationFile.open(path)
        do {
            return try Reader(input: input, kind: kind, syncKey: syncKey, expected: expected)
        } catch {
            try? input.close()
            throw error
        }
    }

    /// Reads a pack's changes in order; every chunk is authenticated before its changes are given.
    final class Reader {
        let header: Header
        private let input: FileHandle
        private let stream: ChunkedSecretStream.Reader
        private var buffer: [UInt8] = []
        private var position = 0
        /// Bytes of the file read so far (for progress).
        var bytesRead: Int { stream.bytesRead }

        fileprivate init(input: FileHandle, kind: Kind, syncKey: (UInt32) throws -> SecureBytes,
                         expected: (vaultID: UUID, device: UUID, number: UInt64)) throws {
            self.input = input
            func read(_ count: Int) throws -> [UInt8] {
                let bytes = Array((try? input.read(upToCount: count)) ?? Data())
                guard bytes.count == count else { throw VaultError.syncPackRefused("it is truncated") }
                return bytes
            }
            var fixed = ByteReader(try read(SyncPack.magic.count + 2 + 16 + 16 + 8 + 4 + 8 + 2))
            guard fixed.raw(SyncPack.magic.count) == SyncPack.magic else { throw VaultError.syncPackRefused("it is not a jv sync pack") }
            guard fixed.u16() == SyncPack.format else {
                throw VaultError.syncPackRefused("its format is not supported by this jv")
            }
            guard let vault = fixed.raw(16), let device = fixed.raw(16), let number = fixed.u64(), let keyVersion = fixed.u32(),
                  let createdAt = fixed.i64(), let dependencyCount = fixed.u16() else {
                throw VaultError.syncPackRefused("its header is malformed")
            }
            /// `count` entries of `device[16] ‖ u64`.
            func readMap(count: Int) throws -> [UUID: UInt64] {
                guard count <= SyncPack.maximumDependencies else { throw VaultError.syncPackRefused("its header is malformed") }
                var bytes = ByteReader(try read(count * 24))
                var map: [UUID: UInt64] = [:]
                for _ in 0..<count {
                    guard let other = bytes.raw(16), let value = bytes.u64() else { throw VaultError.syncPackRefused("its header is malformed") }
                    map[UUID(bytes: other)] = value
                }
                return map
            }
            let dependencies = try readMap(count: Int(dependencyCount))
            var clocks: [UUID: UInt64]?
            if kind == .snapshot {
                var count = ByteReader(try read(2))
                guard let clockCount = count.u16() else { throw VaultError.syncPackRefused("its header is malformed") }
                clocks = try readMap(count: Int(clockCount))
            }
            let header = Header(vaultID: UUID(bytes: vault), device: UUID(bytes: device), number: number, keyVersion: keyVersion,
                                createdAt: createdAt, dependencies: dependencies, clocks: clocks)
            self.header = header
            let keyBlock = try read(SyncPack.keyBlockLength)
            let wrapped = Array(keyBlock.prefix(AEAD.nonceLength + SecretStream.keyLength + AEAD.tagLength))
            let syncKey = try syncKey(keyVersion)
            guard let packKey = try? syncKey.withUnsafeBytes({ key in
                try AEAD.openKey(wrapped, length: SecretStream.keyLength, key: key, associatedData: kind.wrapDomain + header.encoded)
            }) else {
                throw VaultError.syncPackRefused("it does not authenticate (damaged, or not of this vault)")
            }
            // Authentic, so the header is what its writer wrote: it must be where its writer put it.
            guard header.vaultID == expected.vaultID, header.device == expected.device, header.number == expected.number else {
                throw VaultError.syncPackRefused("it was moved or renamed: it is pack \(header.number) of device \(header.device.storageText.prefix(8))")
            }
            stream = try ChunkedSecretStream.Reader(key: packKey, header: Array(keyBlock.suffix(SecretStream.headerLength)), from: input)
        }

        deinit { try? input.close() }

        /// The next change, or nil after the last one. The end mark is read only after the
        /// final chunk authenticated, so a pack cut anywhere is refused rather than read short.
        func next() throws -> SyncChange? {
            guard let length = try take(4).map({ $0.reduce(0) { $0 << 8 | Int($1) } }) else {
                throw VaultError.syncPackRefused("it is truncated")
            }
            if length == 0 {
                try finishStream()
                return nil
            }
            guard let bytes = try take(length) else { throw VaultError.syncPackRefused("it is truncated") }
            return try SyncChange.decode(bytes)
        }

        private func take(_ count: Int) throws -> [UInt8]? {
            while buffer.count - position < count {
                guard !stream.finished else { return nil }
                try pullChunk()
            }
            defer { position += count }
            return Array(buffer[position..<position + count])
        }

        private func pullChunk() throws {
            let plaintext: [UInt8]?
            do {
                plaintext = try stream.next()
            } catch let failure as ChunkStreamFailure {
                let reason = switch failure {
                case .notAuthentic: "it does not authenticate (damaged)"
                case .trailingData: "bytes follow its end"
                // A chunk before the final one that is not full is where the file was cut.
                case .truncated, .shortChunk: "it is truncated"
                }
                throw VaultError.syncPackRefused(reason)
            } catch {
                // Unreadable from some point on: as good as cut there.
                throw VaultError.syncPackRefused("it is truncated")
            }
            buffer.removeFirst(position)
            position = 0
            buffer += plaintext ?? []
        }

        /// After the end mark: the rest is padding, and the stream must have ended.
        private func finishStream() throws {
            while !stream.finished { try pullChunk() }
            guard buffer[position...].allSatisfy({ $0 == 0 }) else { throw VaultError.syncPackRefused("bytes follow its last change") }
        }
    }
}
