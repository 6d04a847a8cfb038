// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Attachments (FORMAT.md §1.11–§1.13, §15): files kept with an entry, each content stored once,
/// streamed in and out a chunk at a time, every chunk authenticated before a byte of it is given.
///
/// ```swift
/// let photo = try journal.attach([.file("/home/me/ridge.jpg")], to: entry.id)[0]
/// for attachment in try journal.attachments(AttachmentQuery(entryID: entry.id, kind: .image)) { print(attachment.name) }
/// try journal.readAttachment(id: photo.id, to: FileHandle.standardOutput)
/// try journal.deleteAttachment(id: photo.id)
/// ```
extension UnlockedVault {
    /// The default limit of one attachment's size: 2 GiB.
    public static let defaultAttachmentLimit: Int64 = 2 << 30
    /// SQLite's page cache while an attachment's chunks are written (`PRAGMA cache_size`, negative:
    /// KiB): 2 MiB, two chunks' pages.
    static let chunkCacheSize = -2048

    /// Attaches `inputs` to the entry `entryID`, in one transaction: all of them or, if any fails
    /// (a file missing, over `limit` bytes, unreadable), none. A regular file over the limit is
    /// refused before anything is written; a stream (standard input) as soon as it passes it.
    /// Content already in the vault is stored once (recognised by its keyed content tag).
    ///
    /// ```swift
    /// let attached = try journal.attach([.file("/home/me/ridge.jpg")], to: entry.id)
    /// print(attached[0].id, attached[0].mediaType)   // … image/jpeg
    /// ```
    ///
    /// `thumbnailer` describes a stream's content (standard input, which can be read only once, so
    /// the caller could not look inside it first) when it has no `media`: in the same transaction,
    /// from a copy read back from its stored chunks into a 0600 file on tmpfs, wiped and removed
    /// afterwards (``describedStreamLimit``).
    @discardableResult
    public func attach(_ inputs: [AttachmentInput], to entryID: UUID, limit: Int64 = defaultAttachmentLimit,
                       thumbnailer: Thumbnailer? = nil) throws -> [Attachment] {
        let sources = try inputs.map { try $0.opened(limit: limit) }
        return try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM entry WHERE id = ?", arguments: [entryID.storageText]) != nil else {
                throw VaultError.notFound(kind: "entry", id: entryID.storageText)
            }
            return try sources.map { try storeAttachment($0, entryID: entryID, limit: limit, thumbnailer: thumbnailer, db) }
        }
    }

    /// The largest content from a stream that ``attach(_:to:limit:thumbnailer:)`` describes: the
    /// copy the thumbnailer reads is on tmpfs, which is memory.
    public static let describedStreamLimit: Int64 = 256 << 20

    /// Adds an entry as ``addEntry(_:at:starred:tags:measures:)`` does, with `attachments`, in one
    /// transaction: the entry is not added if any of its files cannot be.
    ///
    /// ```swift
    /// let (entry, files) = try journal.addEntry("The view from the ridge.", attaching: [.file("ridge.jpg")])
    /// ```
    public func addEntry(_ content: String, at: Instant? = nil, starred: Bool = false, tags: [String] = [], measures: Measures = Measures(),
                         attaching attachments: [AttachmentInput], limit: Int64 = defaultAttachmentLimit) throws -> (Entry, [Attachment]) {
        let entry = try newEntry(content, at: at, starred: starred, tags: tags)
        let sources = try attachments.map { try $0.opened(limit: limit) }
        let attached = try write { db in
            try store(entry, replacing: nil, db)
            try storeMeasures(measures, of: entry.id, replacing: nil, db)
            return try sources.map { try storeAttachment($0, entryID: entry.id, limit: limit, db) }
        }
        return (entry, attached)
    }

    /// The attachment `text` names: a full id or a unique prefix of at least 4 characters.
    public func resolveAttachmentID(_ text: String) throws -> UUID {
        try database.read { db in try RecordID.resolve(text, table: AttachmentRow.table, kind: "attachment", db: db) }
    }

    /// The attachment with this id, its row and its blob's authenticated.
    public func attachment(id: UUID) throws -> Attachment {
        try database.read { db in
            guard let row = try AttachmentRow.fetchOne(id: id, db) else { throw VaultError.notFound(kind: "attachment", id: id.storageText) }
            var blobs: [UUID: (AttachmentBlobRow.Opened, Bool)] = [:]
            return try opened(row, blobs: &blobs, db).attachment
        }
    }

    /// The attachments `query` selects, by the time their entries were written, then in the order
    /// they were attached; each authenticated.
    public func attachments(_ query: AttachmentQuery = AttachmentQuery()) throws -> [Attachment] {
        try attachmentsWithThumbnails(query).map(\.attachment)
    }

    /// ``attachments(_:)``, each with its thumbnail (a JPEG, or empty) from the same opening of
    /// its blob: what `jv show` and `jv attachments` draw on a terminal.
    ///
    /// ```swift
    /// for (attachment, thumbnail) in try journal.attachmentsWithThumbnails(AttachmentQuery(entryID: entry.id)) { … }
    /// ```
    public func attachmentsWithThumbnails(_ query: AttachmentQuery = AttachmentQuery()) throws -> [(attachment: Attachment, thumbnail: [UInt8])] {
        var all: [(attachment: Attachment, thumbnail: [UInt8])] = []
        try forEachAttachment(query) { all.append(($0, $1)) }
        return all
    }

    /// ``attachmentsWithThumbnails(_:)`` one at a time, as the rows are read, so that memory holds
    /// one attachment's thumbnail whatever their number (`jv report` over a year of photos). A
    /// blob is opened once for attachments of it that come one after the other.
    func forEachAttachment(_ query: AttachmentQuery, _ body: (Attachment, [UInt8]) throws -> Void) throws {
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        if let entryID = query.entryID {
            conditions.append("a.entry_id = ?")
            arguments.append(entryID.storageText)
        }
        if let from = query.from {
            conditions.append("e.local_day >= ?")
            arguments.append(from.description)
        }
        if let to = query.to {
            conditions.append("e.local_day <= ?")
            arguments.append(to.description)
        }
        let selection = SealedTable.attachment.columns.map { "a.\($0)" }.joined(separator: ", ")
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT \(selection) FROM attachment a JOIN entry e ON e.id = a.entry_id
                WHERE \(conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")) ORDER BY e.created_at, e.id, a.created_at, a.id
                """, arguments: StatementArguments(arguments))
            var blobs: [UUID: (AttachmentBlobRow.Opened, Bool)] = [:]
            while let row = try rows.next() {
                let attachmentRow = try AttachmentRow(row: row)
                if let blobID = try? attachmentRow.blobID, blobs[blobID] == nil { blobs.removeAll() }
                let (attachment, thumbnail) = try opened(attachmentRow, blobs: &blobs, db)
                if query.kind == nil || attachment.kind == query.kind { try body(attachment, thumbnail) }
            }
        }
    }

    /// How many attachments each entry that `query` selects has, for the entries that have some:
    /// a count of plaintext columns, opening nothing. Only the entries the query's plaintext
    /// conditions select are counted — with its limit where every condition is in them (no
    /// text, no tags to leave out) — so `jv list -n 10` counts ten entries' files, not the vault's.
    ///
    /// ```swift
    /// var newest = EntryQuery()
    /// newest.limit = 10
    /// let counts = try journal.attachmentCounts(matching: newest)
    /// ```
    public func attachmentCounts(matching query: EntryQuery = EntryQuery()) throws -> [UUID: Int] {
        let condition = try condition(of: query)
        let limit = query.contains == nil && query.withoutTags.isEmpty ? query.limit : nil
        let sql: String
        if condition.sql == "1" && limit == nil {
            sql = "SELECT entry_id, count(*) FROM attachment GROUP BY entry_id"
        } else {
            // The newest first, as a limited listing takes them.
            let newest = limit.map { " ORDER BY created_at DESC, id DESC LIMIT \($0)" } ?? ""
            sql = "SELECT entry_id, count(*) FROM attachment WHERE entry_id IN (SELECT id FROM entry WHERE \(condition.sql)\(newest)) GROUP BY entry_id"
        }
        return try database.read { db in
            var counts: [UUID: Int] = [:]
            // Without this look, a vault with no attachment still pays for the entries the IN list
            // selects: 33 M instructions for a tag on 3,907 entries (docs/performance.md).
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM attachment)")) == true else { return counts }
            for row in try Row.fetchAll(db, sql: sql, arguments: condition.arguments) {
                counts[try RecordID.parse(try row.stored(0, table: AttachmentRow.table), table: AttachmentRow.table)] = try row.stored(1, table: AttachmentRow.table)
            }
            return counts
        }
    }

    /// The attachment's thumbnail (a JPEG), or empty where none was made.
    public func attachmentThumbnail(id: UUID) throws -> [UInt8] {
        try database.read { db in
            guard let row = try AttachmentRow.fetchOne(id: id, db) else { throw VaultError.notFound(kind: "attachment", id: id.storageText) }
            _ = try row.decryptName(keys: keys)
            return try blob(of: row, db).decrypt(keys: keys).thumbnail
        }
    }

    /// Hands `emit` the attachment's content a chunk at a time (at most 1 MiB), each only once it
    /// has authenticated. A chunk missing, altered, moved or swapped stops it with
    /// ``VaultError/tamperedRecord(table:id:detail:)`` after the chunks before it were given; a
    /// caller that must not keep part of a damaged file writes to a temporary one and keeps it
    /// only when this returns.
    ///
    /// Three threads take the chunks in turn, each handing on through a
    /// ``SealingPipe/handOver(buffers:length:produce:consume:)``: one reads and opens them, the
    /// next digests each, and the caller's runs `emit` with it, so that opening, digesting and
    /// writing out overlap (with the digest on the caller's thread as well, that thread had half
    /// again the other's work and held `jv attachment get` back).
    ///
    /// ```swift
    /// try journal.readAttachment(id: id) { bytes in try output.write(contentsOf: bytes) }
    /// ```
    public func readAttachment(id: UUID, _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        try fetchAttachmentContent(id: id)
        let length = AttachmentStream.chunkLength, buffers = AttachmentStream.sealedAhead
        let checked = try SealingPipe.handOver(buffers: buffers, length: length, produce: { put in
            var digest = try Blake2bStream()
            let expected = try SealingPipe.handOver(buffers: buffers, length: length, produce: { open in
                try self.database.read { db in
                    guard let row = try AttachmentRow.fetchOne(id: id, db) else { throw VaultError.notFound(kind: "attachment", id: id.storageText) }
                    _ = try row.decryptName(keys: self.keys)
                    let blob = try self.blob(of: row, db)
                    let stream = try self.openContent(of: blob, opened: try blob.decrypt(keys: self.keys), db, open)
                    return (digest: stream.digest, mismatch: blob.row.tampered(AttachmentStream.contentMismatch))
                }
            }, consume: { part in
                digest.update(part)
                try put(part)
            })
            return (matches: try digest.finalize() == expected.digest, mismatch: expected.mismatch)
        }, consume: emit)
        guard checked.matches else { throw checked.mismatch }
    }

    /// ``readAttachment(id:_:)`` into `handle`.
    public func readAttachment(id: UUID, to handle: FileHandle) throws {
        try readAttachment(id: id) { bytes in try handle.write(contentsOf: bytes) }
    }

    /// Deletes the attachment; its content goes with it when no other attachment has the same
    /// (the `attachment_release` trigger, in the same transaction).
    public func deleteAttachment(id: UUID) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM attachment WHERE id = ?", arguments: [id.storageText])
            guard db.changesCount > 0 else { throw VaultError.notFound(kind: "attachment", id: id.storageText) }
        }
    }

    // MARK: Inside a transaction

    /// Streams one opened input into chunks, then stores its blob (unless the same content is
    /// stored already, whose chunks the new ones give way to) and the attachment row, under `id`
    /// (an import keeps the id of its file's attachment).
    func storeAttachment(_ source: AttachmentInput.OpenedSource, entryID: UUID, id: UUID = UUID(), limit: Int64, thumbnailer: Thumbnailer? = nil,
                         _ db: Database) throws -> Attachment {
        let input = source.input
        let streamID = UUID()
        let stream = streamID.storageText
        let insertChunk = try db.cachedStatement(sql: "INSERT INTO attachment_chunk (stream_id, idx, data) VALUES (?, ?, ?)")
        // The chunks' pages are written once and not read again in this transaction: in the
        // writer's 32 MiB cache they would take half the 64 MiB an attach may use, whatever the
        // file's size. A small cache spills them to the WAL as it goes instead.
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? Self.chunkCacheSize
        try db.execute(sql: "PRAGMA cache_size = \(Self.chunkCacheSize)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        // Each chunk's manifest digest is made beside its sealing, on the other core, rather than
        // by the trigger on SQLite's.
        let recorder = database.manifestRecorder
        let manifestKey = keys.manifestKey
        let written = try recorder.precomputed {
            try AttachmentStream.write(streamID: streamID, name: input.name, limit: limit, read: source.read(into:), prepare: { index, sealed in
                try RowDigest.ofChunk(stream: stream, index: index, data: sealed, key: manifestKey)
            }, store: { index, sealed, digest in
                // Bound where it is: GRDB binds a blob argument for the statement's step only, without a copy.
                guard let base = sealed.baseAddress else { throw VaultError.storage("an attachment's chunk is empty") }
                try insertChunk.execute(arguments: [stream, index, Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: sealed.count,
                                                                        deallocator: .none)])
                recorder.add(digest, to: .attachmentChunk)
            })
        }
        let tag = AttachmentBlobRow.contentTag(digest: written.digest, keys: keys)
        // Later than the entry's last attachment even within one millisecond, so that listing by
        // created_at keeps the order they were attached in, on every device.
        let lastAttached = try Int64.fetchOne(db, sql: "SELECT max(created_at) FROM attachment WHERE entry_id = ?",
                                              arguments: [entryID.storageText])
        let now = max(Instant.now().millis, (lastAttached ?? .min) + 1)
        let blobID: UUID
        let media: AttachmentMedia
        if let existing = try Row.fetchOne(db, sql: "SELECT \(AttachmentBlobRow.selection) FROM attachment_blob WHERE content_tag = ?", arguments: [tag]) {
            // Deleted rather than rolled back to a savepoint: the manifest's triggers must see them go.
            try db.execute(sql: "DELETE FROM attachment_chunk WHERE stream_id = ?", arguments: [streamID.storageText])
            let blob = try AttachmentBlobRow(row: existing)
            blobID = blob.id
            media = try blob.decrypt(keys: keys).details.media
        } else {
            blobID = AttachmentBlobRow.derivedID(contentTag: tag)
            var described: MediaDetails?
            if input.media == nil, case .fileDescriptor = input.source, let thumbnailer {
                described = try describeStored(written, name: input.name, with: thumbnailer, db)
            }
            media = input.media ?? described?.media ?? .guessed(fromName: input.name)
            let details = AttachmentDetails(media: media, size: written.size, digest: written.digest)
            try AttachmentBlobRow(id: blobID, contentTag: tag, written: written, createdAt: now, details: details,
                                  thumbnail: described?.thumbnail ?? input.thumbnail, meta: .fresh(keyVersion: keys.keyVersion), keys: keys).insert(db)
        }
        try AttachmentRow(id: id, entryID: entryID, blobID: blobID, createdAt: now, name: input.name, meta: .fresh(keyVersion: keys.keyVersion),
                          keys: keys).insert(db)
        return Attachment(id: id, entryID: entryID, blobID: blobID, name: input.name, created: Instant(millis: now, utcOffsetSeconds: 0),
                          size: written.size, media: media, stored: true)
    }

    /// What `thumbnailer` finds in a content just stored from a stream: read back from its chunks
    /// into a 0600 file under its name in a private folder on tmpfs (never on disk), described,
    /// then wiped and removed. Nil without a tmpfs folder, over ``describedStreamLimit``, or when
    /// the copy cannot be made or the thumbnailer finds nothing: the content is stored all the same.
    private func describeStored(_ written: AttachmentStream.Stored, name: String, with thumbnailer: Thumbnailer,
                                _ db: Database) throws -> MediaDetails? {
        guard written.size <= Self.describedStreamLimit, let folder = PrivateOutput.tmpfsFolder() else { return nil }
        guard let copy = try? EditorFile(in: folder, named: name, writing: { handle in
            try openChunks(of: written, db, emit: { try handle.write(contentsOf: $0) }, tampered: { VaultError.storage($0) })
        }) else { return nil }
        defer { copy.remove() }
        let descriptor = open(copy.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return thumbnailer.describe(fileDescriptor: descriptor)
    }

    /// The blob an attachment row names; missing, it is the attachment that is damaged.
    private func blob(of row: AttachmentRow, _ db: Database) throws -> AttachmentBlobRow {
        guard let blob = try AttachmentBlobRow.fetchOne(id: try row.blobID, db) else { throw row.row.tampered("its content is missing") }
        return blob
    }

    /// An attachment row opened with its blob (each blob opened once per call, through `blobs`).
    private func opened(_ row: AttachmentRow, blobs: inout [UUID: (AttachmentBlobRow.Opened, Bool)],
                        _ db: Database) throws -> (attachment: Attachment, thumbnail: [UInt8]) {
        let name = try row.decryptName(keys: keys)
        let blobID = try row.blobID
        if blobs[blobID] == nil {
            let blob = try blob(of: row, db)
            let stored = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM attachment_chunk WHERE stream_id = ?)",
                                           arguments: [try blob.streamID.storageText]) ?? false
            blobs[blobID] = (try blob.decrypt(keys: keys), stored)
        }
        guard let (blob, stored) = blobs[blobID] else { preconditionFailure("the blob was just opened") }
        return (Attachment(id: row.id, entryID: try row.entryID, blobID: blobID, name: name, created: try row.created,
                           size: blob.details.size, media: blob.details.media, stored: stored), blob.thumbnail)
    }

    /// Opens a blob's chunk stream (FORMAT.md §15.3): exactly its chunk count of chunks, in order.
    /// It returns the stream, whose content's digest the caller checks.
    private func openContent(of blob: AttachmentBlobRow, opened: AttachmentBlobRow.Opened, _ db: Database,
                             _ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> AttachmentStream.Stored {
        let expected = try blob.stream(opened)
        try requireChunks(of: blob, expected, db)
        try openChunks(of: expected, db, emit: emit, tampered: { blob.row.tampered($0) })
        return expected
    }

    /// Opens the chunk rows of `expected`'s stream in order, each lent to the stream reader from
    /// SQLite's own buffer (no copy of a megabyte per chunk); the content's digest is the caller's.
    private func openChunks(of expected: AttachmentStream.Stored, _ db: Database, emit: (UnsafeRawBufferPointer) throws -> Void,
                            tampered: (String) -> Error) throws {
        let statement = try db.cachedStatement(sql: "SELECT data FROM attachment_chunk WHERE stream_id = ? AND idx = ?")
        let stream = expected.streamID.storageText
        try AttachmentStream.open(expected, chunk: { index, open in
            // The row's bytes are the cursor's statement's: valid while the cursor lives and stands on it.
            let rows = try Row.fetchCursor(statement, arguments: [stream, index])
            return try withExtendedLifetime(rows) {
                guard let row = try rows.next() else { return false }
                return try row.withUnsafeData(atIndex: 0) { data in
                    guard let data else { return false }
                    try data.withUnsafeBytes(open)
                    return true
                }
            }
        }, emit: emit, tampered: tampered)
    }

    /// Reads a blob's chunk stream, its content's digest checked, with each chunk's ciphertext from
    /// `chunk` (given its index; nil when there is none), which ``check()`` feeds from the one pass
    /// that also digests it.
    func readContent(of blob: AttachmentBlobRow, opened: AttachmentBlobRow.Opened, _ db: Database, chunk: (Int64) throws -> Data?,
                     _ emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        let expected = try blob.stream(opened)
        try requireChunks(of: blob, expected, db)
        try AttachmentStream.read(expected, chunk: chunk, emit: emit, tampered: { blob.row.tampered($0) })
    }

    /// Throws unless the stream has exactly its chunk count of rows: none at all is a content sync
    /// left at the location (the manifest vouches for the chunk rows), any other count damage.
    private func requireChunks(of blob: AttachmentBlobRow, _ expected: AttachmentStream.Stored, _ db: Database) throws {
        let found = try Int64.fetchOne(db, sql: "SELECT count(*) FROM attachment_chunk WHERE stream_id = ?", arguments: [expected.streamID.storageText]) ?? 0
        if found == 0 { throw VaultError.attachmentNotStored(blobID: blob.id.storageText, reason: "it was left at the sync location") }
        guard found == expected.chunkCount else { throw blob.row.tampered("it has \(found) chunks instead of \(expected.chunkCount)") }
    }
}
