// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The `enc_meta` column of every encrypted row (FORMAT.md §Record envelope), 25 bytes:
/// `format u8 = 1 ‖ key_version u32 BE ‖ revision u32 BE ‖ record_salt[16]`.
/// A fresh salt and the next revision are written on every change of the row.
struct RecordMeta: Hashable, Sendable {
    static let format: UInt8 = 1
    static let length = 25
    static let saltLength = 16

    var keyVersion: UInt32
    var revision: UInt32
    var salt: [UInt8]

    /// Metadata for the first write of a record.
    static func fresh(keyVersion: UInt32) -> RecordMeta {
        RecordMeta(keyVersion: keyVersion, revision: 1, salt: SecureRandom.bytes(saltLength))
    }

    /// Metadata for the next write of this record: revision + 1, new salt.
    func next(keyVersion: UInt32) -> RecordMeta {
        RecordMeta(keyVersion: keyVersion, revision: revision &+ 1, salt: SecureRandom.bytes(Self.saltLength))
    }

    var encoded: Data {
        var bytes = ByteWriter()
        bytes.u8(Self.format)
        bytes.u32(keyVersion)
        bytes.u32(revision)
        bytes.raw(salt)
        return Data(bytes.bytes)
    }

    /// The metadata for rewriting a row whose stored `enc_meta` is `encoded` (fresh if there is
    /// none or it cannot be read; a row that fails to decrypt never gets this far).
    static func rewriting(_ encoded: Data?, keyVersion: UInt32) -> RecordMeta {
        encoded.flatMap(RecordMeta.init(encoded:))?.next(keyVersion: keyVersion) ?? .fresh(keyVersion: keyVersion)
    }

    /// Parses stored metadata; nil when it is not of the documented form.
    init?(encoded data: Data) {
        guard data.count == Self.length, data.first == Self.format else { return nil }
        // Read in place: every decryption starts here.
        (keyVersion, revision, salt) = data.withUnsafeBytes { bytes in
            (UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt32.self)),
             UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 5, as: UInt32.self)),
             Array(bytes[9..<Self.length]))
        }
    }

    init(keyVersion: UInt32, revision: UInt32, salt: [UInt8]) {
        self.keyVersion = keyVersion
        self.revision = revision
        self.salt = salt
    }
}
