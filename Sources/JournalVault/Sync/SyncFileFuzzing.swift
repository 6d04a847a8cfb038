// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The readers of the files in a sync location, for the fuzz targets of `jv-fuzz` (another
/// module, hence public): anyone who can write the folder controls these bytes, and each reader
/// parses some of them before anything is authenticated. Not for anything but fuzzing.
public enum SyncFileFuzzing {
    public enum File: String, CaseIterable, Sendable {
        case pack, snapshot, keys, acks, rotation, blob
    }

    /// The keys of the device reading: fixed, of no real vault, so an input authenticates only
    /// by a forgery.
    private static let keys = try? VaultKeys(vaultID: UUID(bytes: Array(repeating: 0x11, count: 16)), keyVersion: 1,
                                             masterKey: SecureBytes(copying: Array(repeating: 0x42, count: SubkeyDerivation.keyLength)))

    /// Reads the file at `path` as a device reads such a file found in its location, as far as
    /// its keys take it, and throws what the device would refuse. Returns the file encoded again
    /// from what was parsed, for the formats that have a single encoding (keys, acks, rotation),
    /// which must then be the bytes read.
    public static func read(_ file: File, at path: String) throws -> [UInt8]? {
        guard let keys else { return nil }
        switch file {
        case .pack, .snapshot:
            let reader = try SyncPack.open(path, kind: file == .pack ? .pack : .snapshot,
                                           expected: (keys.vaultID, keys.vaultID, 1)) { _ in keys.syncKey }
            while try reader.next() != nil {}
            return nil
        case .keys:
            let bytes = smallFile(path)
            let parsed = try SyncKeysFile(parsing: bytes)
            _ = try parsed.authenticates(with: keys)
            // Its MAC is computed again under the reader's key: compare the rest.
            return parsed.encoded(syncKey: keys.syncKey).dropLast(32) + bytes.suffix(32)
        case .acks:
            return try SyncAcks(parsing: smallFile(path)) { _ in keys }.encoded(syncKey: keys.syncKey)
        case .rotation:
            let parsed = try SyncRotation(parsing: smallFile(path))
            _ = try? parsed.newKeys(opening: keys)
            _ = try? parsed.oldKeys(opening: keys)
            return parsed.encoded
        case .blob:
            // Framed as the header says (the reader holds it to a blob row's), every chunk read to the end.
            let handle = try SyncLocationFile.open(path)
            defer { try? handle.close() }
            var fields = ByteReader(Array(try handle.read(upToCount: SyncBlobFile.headerLength) ?? Data()).dropFirst(SyncBlobFile.magic.count + 1).map { $0 })
            guard let stream = fields.raw(16).map(UUID.init(bytes:)), let count = fields.u32() else { return nil }
            try handle.seek(toOffset: 0)
            var reader = try SyncBlobFile.Reader(handle, streamID: stream, count: Int64(count))
            while try reader.next() != nil {}
            return nil
        }
    }

    /// A keys, acks or rotation file, read whole as a device reads it (none: no bytes).
    private static func smallFile(_ path: String) -> [UInt8] {
        SyncLocationFile.contents(path).map { Array($0) } ?? []
    }
}
