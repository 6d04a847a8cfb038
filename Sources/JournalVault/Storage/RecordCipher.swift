// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// Seals and opens the encrypted fields of one record (FORMAT.md §Record envelope).
///
/// Per record: `subkey = BLAKE2b-256(key = K_rec, salt = record_salt, personal =
/// "JVLT-recsubkey1\0", message = id[16])`. Per field: the UTF-8 plaintext padded to a multiple
/// of 64 bytes (ISO/IEC 7816-4), sealed with XChaCha20-Poly1305 under the subkey, a fresh
/// random nonce, and the binding's associated data for that field.
struct RecordCipher: Sendable {
    static let padBlock = 64
    private static let personal = Blake2b.personal("JVLT-recsubkey1")

    /// The vault's record key `K_rec` (subkey 1 "JVLTREC1" of the master key).
    let recordKey: SecureBytes
    let keyVersion: UInt32

    /// Seals each `(field, plaintext)` for the record `binding` describes, in order.
    func seal(_ fields: [(name: String, plaintext: [UInt8])], binding: RecordBinding) throws -> [Data] {
        try withSubkey(for: binding) { subkey in
            try fields.map { field in
                var padded = Padding.pad(field.plaintext, blockSize: Self.padBlock)
                defer { padded.withUnsafeMutableBytes { Sodium.wipe($0) } }
                return Data(try AEAD.seal(padded, key: subkey, associatedData: binding.associatedData(field: field.name)))
            }
        }
    }

    /// Opens each `(field, box)`; a failure names the table, record and field.
    func open(_ fields: [(name: String, box: Data)], binding: RecordBinding) throws -> [[UInt8]] {
        var plaintexts: [[UInt8]] = []
        try open(fields, binding: binding) { _, plaintext in plaintexts.append(Array(plaintext)) }
        return plaintexts
    }

    /// Opens each `(field, box)` into temporary memory and hands its plaintext to `use` with the
    /// field's index, then wipes it: the read paths (listing, search) make their `String` or
    /// match straight from it, with no array per field. Errors of `use` pass through as they are.
    func open(_ fields: [(name: String, box: Data)], binding: RecordBinding,
              _ use: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try open(fields, binding: binding, while: { index, plaintext in
            try use(index, plaintext)
            return true
        })
    }

    /// The same, stopping after the first field for which `use` returns false: the fields after
    /// it stay sealed (a search's scan opens the rest of an entry only when its text matches).
    func open(_ fields: [(name: String, box: Data)], binding: RecordBinding,
              while use: (Int, UnsafeBufferPointer<UInt8>) throws -> Bool) throws {
        guard binding.meta.keyVersion == keyVersion else {
            throw VaultError.tamperedRecord(table: binding.table, id: binding.id.storageText,
                                            detail: "written under key version \(binding.meta.keyVersion), the vault is at \(keyVersion)")
        }
        try withSubkey(for: binding) { subkey in
            for (index, field) in fields.enumerated() {
                let goesOn = try withUnsafeTemporaryAllocation(byteCount: max(field.box.count, 1), alignment: 1) { buffer in
                    defer { Sodium.wipe(buffer) }
                    let plaintext: UnsafeBufferPointer<UInt8>
                    do {
                        let length = try field.box.withUnsafeBytes { box in
                            try binding.associatedData(field: field.name).withUnsafeBytes { associatedData in
                                try AEAD.open(box, key: subkey, associatedData: associatedData, into: buffer)
                            }
                        }
                        let opened = UnsafeBufferPointer(buffer.prefix(length).bindMemory(to: UInt8.self))
                        plaintext = UnsafeBufferPointer(rebasing: opened.prefix(try Padding.unpaddedCount(opened)))
                    } catch {
                        throw VaultError.tamperedRecord(table: binding.table, id: binding.id.storageText,
                                                        detail: "field \(field.name) does not authenticate")
                    }
                    return try use(index, plaintext)
                }
                guard goesOn else { return }
            }
        }
    }

    /// Derives the record's subkey into temporary memory and wipes it afterwards.
    private func withSubkey<Result>(for binding: RecordBinding, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try withUnsafeTemporaryAllocation(byteCount: AEAD.keyLength, alignment: 16) { subkey in
            defer { Sodium.wipe(subkey) }
            try recordKey.withUnsafeBytes { key in
                try Blake2b.derive(key: key, salt: binding.meta.salt, personal: Self.personal,
                                   message: binding.id.bytes, into: subkey)
            }
            return try body(UnsafeRawBufferPointer(subkey))
        }
    }
}
