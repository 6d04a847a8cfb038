// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// The stored form of one distinct content (FORMAT.md §1.11): in plaintext its keyed content tag,
/// the name of its chunk stream, when it was first stored, its padded size and chunk count; sealed
/// and bound to those, the stream's key and header, its details and its thumbnail.
struct AttachmentBlobRow: SealedRecordRow {
    static let sealed = SealedTable.attachmentBlob

    private(set) var row: SealedRow

    /// What is sealed in a blob row, opened.
    struct Opened: Sendable {
        let stream: AttachmentStream.Secret
        let details: AttachmentDetails
        /// A JPEG, or empty.
        let thumbnail: [UInt8]
    }

    /// Seals a stored stream's key, details and thumbnail under `meta`.
    init(id: UUID, contentTag: Data, written: AttachmentStream.Stored, createdAt: Int64, details: AttachmentDetails,
         thumbnail: [UInt8], meta: RecordMeta, keys: VaultKeys) throws {
        row = SealedRow(Self.sealed, id: id, values: [
            id.storageText.databaseValue, contentTag.databaseValue, written.streamID.storageText.databaseValue, createdAt.databaseValue,
            written.storedSize.databaseValue, written.chunkCount.databaseValue, .null, .null, .null, .null,
        ])
        try row.seal([written.secret.sealedForm, details.json.utf8Bytes, thumbnail], meta: meta, keys: keys)
    }

    init(_ row: SealedRow) throws {
        self.row = row
        _ = try row.instant("created_at")
        guard try row.integer("stored_size") >= 0, try row.integer("chunk_count") >= 1 else {
            throw row.tampered("its size or chunk count is out of range")
        }
        _ = try streamID
    }

    var streamID: UUID {
        get throws {
            guard let id = UUID(uuidString: try row.text("stream_id")) else { throw row.tampered("its stream id is not a UUID") }
            return id
        }
    }
    var storedSize: Int64 { get throws { try row.integer("stored_size") } }
    var chunkCount: Int64 { get throws { try row.integer("chunk_count") } }

    /// Authenticates and decrypts; a stream key of the wrong length, details of another shape, or
    /// sizes that are not the ones the details give (FORMAT.md §15.2), are tampering.
    func decrypt(keys: VaultKeys) throws -> Opened {
        var secret: AttachmentStream.Secret?
        var details: [UInt8] = [], thumbnail: [UInt8] = []
        try row.open(keys: keys) { index, plaintext in
            switch index {
            case 0: secret = try AttachmentStream.Secret(sealedForm: plaintext)
            case 1: details = Array(plaintext)
            default: thumbnail = Array(plaintext)
            }
        }
        guard let secret else { throw row.tampered("its stream key is malformed") }
        let opened = Opened(stream: secret, details: try AttachmentDetails(decrypted: details, table: Self.table, id: id), thumbnail: thumbnail)
        let expected = AttachmentStream.layout(size: opened.details.size)
        guard try storedSize == expected.storedSize, try chunkCount == expected.chunkCount else {
            throw row.tampered("its stored size or chunk count does not match its content's size")
        }
        return opened
    }

    func verify(keys: VaultKeys) throws { _ = try decrypt(keys: keys) }

    /// The chunk stream this row and what it seals (`opened`) describe, as
    /// ``AttachmentStream/read(_:chunk:emit:tampered:)`` reads it.
    func stream(_ opened: Opened) throws -> AttachmentStream.Stored {
        AttachmentStream.Stored(streamID: try streamID, secret: opened.stream, size: opened.details.size, digest: opened.details.digest,
                                storedSize: try storedSize, chunkCount: try chunkCount)
    }

    /// `BLAKE2b-128(key = K_att, "JVLT-content" ‖ digest[32])` (FORMAT.md §15.4): keyed, so the tag of
    /// a known file cannot be computed without the vault's key.
    static func contentTag(digest: [UInt8], keys: VaultKeys) -> Data {
        keys.attachmentKey.withUnsafeBytes { Data(Blake2b.hash(Array("JVLT-content".utf8) + digest, key: $0, length: 16)) }
    }

    /// `UUIDv8(BLAKE2b-256("JVLT-blob-id" ‖ content_tag[16])[0…15])`: derived when the content is
    /// first stored, and kept across a rekey (which changes the tag).
    static func derivedID(contentTag: Data) -> UUID {
        UUID(version8From: Blake2b.hash(Array("JVLT-blob-id".utf8) + Array(contentTag)))
    }
}
