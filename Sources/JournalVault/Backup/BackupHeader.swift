// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The header of a backup file (FORMAT.md §8). It carries the vault's keyslots as they were
/// when the backup was made, so the passphrase or recovery key valid then opens it.
///
/// jv writes format 2, whose body is an ``IndexedChunkStream``, and reads format 1 too, whose
/// body is a ``ChunkedSecretStream`` started with the stream header the header holds.
struct BackupHeader {
    static let magic = Array("JVLTBAK\0".utf8)
    /// The format jv writes.
    static let currentFormat: UInt16 = 2
    static let readableFormats: ClosedRange<UInt16> = 1...2
    static let maximumSlots = 4
    static let backupSubkey: (id: UInt64, context: String) = (4, "JVLTBACK")
    static let macSubkey: (id: UInt64, context: String) = (1, "JVBKHMAC")
    static let checkDomain = Array("JVLT-backup-check".utf8)
    static let wrapDomain = Array("JVLT-backup".utf8)

    var format: UInt16 = currentFormat
    var vaultID: UUID
    var createdAt: Int64
    var keyVersion: UInt32
    var slots: [Keyslot]
    var wrapNonce: [UInt8] = []
    var wrappedFileKey: [UInt8] = []
    /// Format 1 only: the secret stream's header.
    var streamHeader: [UInt8] = []
    var mac: [UInt8] = []

    /// Bytes of the header after the keyslots: wrap nonce, wrapped file key, (format 1) stream header, MAC, check.
    static func trailerLength(format: UInt16) -> Int {
        AEAD.nonceLength + 48 + (format == 1 ? SecretStream.headerLength : 0) + 32 + 32
    }

    /// The key of the body's chunks: each format derives its own, so that no key is ever used by both.
    func bodyKey(fileKey: SecureBytes) throws -> SecureBytes {
        try SubkeyDerivation.derive(from: fileKey, id: format == 1 ? 2 : 3, context: "JVBKSTRM")
    }

    /// Everything up to the wrap nonce: authenticated as the file-key wrapping's associated data.
    var prefix: [UInt8] {
        var writer = ByteWriter()
        writer.raw(Self.magic)
        writer.u16(format)
        writer.raw(vaultID.bytes)
        writer.i64(createdAt)
        writer.u32(keyVersion)
        writer.u8(UInt8(slots.count))
        for slot in slots { writer.raw(slot.encoded) }
        return writer.bytes
    }

    /// Everything the MAC covers.
    var macInput: [UInt8] { prefix + wrapNonce + wrappedFileKey + streamHeader }

    /// The complete header, check included.
    var encoded: [UInt8] {
        let bytes = macInput + mac
        return bytes + Blake2b.hash(Self.checkDomain + bytes)
    }

    /// Parses a header from the start of `file`, checking its form and checksum (no key work).
    static func read(from file: FileHandle) throws -> BackupHeader {
        func take(_ count: Int) throws -> [UInt8] {
            let bytes = Array((try? file.read(upToCount: count)) ?? Data())
            guard bytes.count == count else { throw VaultError.backupCorrupt("the header is truncated") }
            return bytes
        }
        let fixed = try take(magic.count + 2 + 16 + 8 + 4 + 1)
        guard Array(fixed.prefix(magic.count)) == magic else { throw VaultError.backupCorrupt("it is not a jv backup file") }
        var reader = ByteReader(Array(fixed.dropFirst(magic.count)))
        guard let found = reader.u16() else { throw VaultError.backupCorrupt("the header is truncated") }
        guard readableFormats.contains(found) else { throw VaultError.backupCorrupt("backup format \(found) is not supported by this jv") }
        guard let idBytes = reader.raw(16), let created = reader.i64(), let keyVersion = reader.u32(), let slotCount = reader.u8(),
              (1...maximumSlots).contains(Int(slotCount)) else {
            throw VaultError.backupCorrupt("the header is malformed")
        }
        let slotBytes = try take(Int(slotCount) * Keyslot.encodedLength)
        let trailer = try take(trailerLength(format: found))
        let all = fixed + slotBytes + trailer
        guard Blake2b.hash(checkDomain + all.dropLast(32)) == Array(all.suffix(32)) else {
            throw VaultError.backupCorrupt("the header is damaged (checksum mismatch)")
        }
        var slots: [Keyslot] = []
        for index in 0..<Int(slotCount) {
            let start = index * Keyslot.encodedLength
            guard let slot = Keyslot(encoded: Data(slotBytes[start..<start + Keyslot.encodedLength])) else {
                throw VaultError.backupCorrupt("keyslot \(index) in the header is malformed")
            }
            slots.append(slot)
        }
        var tail = ByteReader(trailer)
        let uuid = idBytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        var header = BackupHeader(format: found, vaultID: uuid, createdAt: created, keyVersion: keyVersion, slots: slots)
        header.wrapNonce = tail.raw(AEAD.nonceLength) ?? []
        header.wrappedFileKey = tail.raw(48) ?? []
        header.streamHeader = found == 1 ? tail.raw(SecretStream.headerLength) ?? [] : []
        header.mac = tail.raw(32) ?? []
        return header
    }

    /// The file key, given the master key the header's slots wrap; verifies the header MAC.
    func openFileKey(masterKey: SecureBytes) throws -> SecureBytes {
        let backupKey = try SubkeyDerivation.derive(from: masterKey, id: Self.backupSubkey.id, context: Self.backupSubkey.context)
        guard let fileKey = try? backupKey.withUnsafeBytes({ key in
            try AEAD.openKey(wrapNonce + wrappedFileKey, length: SecretStream.keyLength, key: key, associatedData: Self.wrapDomain + prefix)
        }) else {
            throw VaultError.backupCorrupt("the header does not authenticate")
        }
        let macKey = try SubkeyDerivation.derive(from: fileKey, id: Self.macSubkey.id, context: Self.macSubkey.context)
        let expected = macKey.withUnsafeBytes { Blake2b.hash(macInput, key: $0) }
        guard try SecureBytes(copying: expected).constantTimeEquals(try SecureBytes(copying: mac)) else {
            throw VaultError.backupCorrupt("the header does not authenticate")
        }
        return fileKey
    }

    /// Seals a new random file key under the master key and fills in the MAC; `streamHeader`
    /// only for format 1.
    mutating func seal(fileKey: SecureBytes, masterKey: SecureBytes, streamHeader: [UInt8] = []) throws {
        let backupKey = try SubkeyDerivation.derive(from: masterKey, id: Self.backupSubkey.id, context: Self.backupSubkey.context)
        let box = try backupKey.withUnsafeBytes { key in
            try fileKey.withUnsafeBytes { plain in try AEAD.seal(plain, key: key, associatedData: Self.wrapDomain + prefix) }
        }
        wrapNonce = Array(box.prefix(AEAD.nonceLength))
        wrappedFileKey = Array(box.dropFirst(AEAD.nonceLength))
        self.streamHeader = streamHeader
        let macKey = try SubkeyDerivation.derive(from: fileKey, id: Self.macSubkey.id, context: Self.macSubkey.context)
        mac = macKey.withUnsafeBytes { Blake2b.hash(macInput, key: $0) }
    }
}
