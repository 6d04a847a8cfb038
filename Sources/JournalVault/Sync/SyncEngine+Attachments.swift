// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Which attachments' contents `jv sync` brings into this vault file (FORMAT.md §14.11). Their
/// records — names, details, thumbnails — always come, in the packs; only the chunks of the
/// contents may stay at the location, fetched when an attachment is read.
public enum AttachmentSyncPolicy: String, Sendable, CaseIterable {
    /// Every content, as its records arrive.
    case all
    /// None: the thumbnails travel inside the records, so this keeps them, as `none` does.
    case thumbnails
    /// None.
    case none
}

/// Attachments' contents through the location (FORMAT.md §14.11): their blob files, written
/// before the pack that names them, fetched after the packs are applied, removed by compaction
/// once no record names them.
extension SyncEngine {
    /// Writes the blob file of every attachment content this device is about to send a record
    /// of whose file is not at the location yet. Run before the pack is made, so that it takes
    /// no lock while copying; the pack's transaction makes sure again (``ensureBlobFiles(_:layout:device:present:)``).
    /// Returns the streams whose files are at the location.
    func uploadBlobs(layout: SyncLayout, location: SyncLocation, device: UUID) throws -> Set<UUID> {
        // Left by a sync of this device that was killed: the file is written again whole. (Most
        // locations have no attachments folder: Foundation's error for it cost more than the rest.)
        if access(layout.attachmentsFolder, F_OK) == 0 {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.attachmentsFolder)) ?? []
            where SyncLayout.isTemporaryBlobName(name, of: device) {
                unlink(layout.attachmentsFolder + "/" + name)
            }
        }
        let pending = try database.read { db in try Self.pendingBlobStreams(db) }
        guard !pending.isEmpty else { return [] }
        var present = try location.blobStreams(vaultID: keys.vaultID)
        try database.read { db in try ensureBlobFiles(db, layout: layout, device: device, present: &present) }
        return present
    }

    /// The chunk streams of the blob rows waiting to be sent.
    private static func pendingBlobStreams(_ db: Database) throws -> [String] {
        // Cached: every sync asks, with or without attachments.
        try String.fetchAll(db.cachedStatement(sql: """
            SELECT b.stream_id FROM sync_pending p JOIN attachment_blob b ON b.id = p.id WHERE p.tbl = 'attachment_blob'
            """))
    }

    /// Writes, through a temporary name, the blob file of every pending blob row whose stream is
    /// not in `present` (and whose chunks are here: a content left at the location is there).
    func ensureBlobFiles(_ db: Database, layout: SyncLayout, device: UUID, present: inout Set<UUID>) throws {
        for text in try Self.pendingBlobStreams(db) {
            guard let stream = UUID(storageText: text) else { continue }
            let lengths = try Int.fetchAll(db, sql: "SELECT length(data) FROM attachment_chunk WHERE stream_id = ? ORDER BY idx", arguments: [text])
            guard !lengths.isEmpty else { continue }
            let path = layout.blobFile(stream: stream)
            if present.contains(stream) {
                // A file of the wrong length here (cut short by a full disk elsewhere) is written again.
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
                guard let size, size != SyncBlobFile.length(chunkLengths: lengths) else { continue }
            }
            try SyncLocation.folder(SyncLayout.attachmentsFolderName, in: layout)
            let temporary = layout.temporaryBlobFile(stream: stream, device: device)
            unlink(temporary)
            let handle = try PrivateFiles.create(temporary)
            do {
                defer { try? handle.close() }
                let chunk = try db.cachedStatement(sql: "SELECT data FROM attachment_chunk WHERE stream_id = ? AND idx = ?")
                try SyncBlobFile.write(streamID: stream, count: Int64(lengths.count), to: handle) { index in
                    guard let data = try Data.fetchOne(chunk, arguments: [text, index]) else {
                        throw VaultError.storage("a chunk of an attachment's content went missing while it was copied")
                    }
                    return data
                }
                try handle.synchronize()
                try PrivateFiles.commit(temporary, to: path, replace: true)
            } catch {
                unlink(temporary)
                throw Self.fullDisk(error, layout: layout).map { VaultError.diskFull(folder: $0) } ?? error
            }
            present.insert(stream)
        }
    }

    /// What a dry run counts of attachments' contents (``SyncReport/contentsToSend``,
    /// ``SyncReport/contentsToFetch``): the blob files ``uploadBlobs(layout:location:device:)``
    /// would write, and the contents ``fetchContents(layout:location:policy:)`` would bring in.
    func contentsToMove(location: SyncLocation, policy: AttachmentSyncPolicy) throws -> (send: Int, fetch: Int) {
        let present = try location.blobStreams(vaultID: keys.vaultID)
        return try database.read { db in
            var send = 0
            for text in try Self.pendingBlobStreams(db) {
                guard let stream = UUID(storageText: text), !present.contains(stream),
                      try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM attachment_chunk WHERE stream_id = ?)", arguments: [text]) == true
                else { continue }
                send += 1
            }
            return (send, policy == .all ? try String.fetchAll(db, sql: Self.absentContents).count : 0)
        }
    }

    /// The blob rows whose chunks are not here (new, or whose stream another device's version replaced).
    private static let absentContents = """
        SELECT b.id FROM attachment_blob b WHERE NOT EXISTS (SELECT 1 FROM attachment_chunk c WHERE c.stream_id = b.stream_id)
        """

    /// What fetching the contents this vault lacks came to.
    struct ContentFetch {
        var fetched = 0
        /// Contents whose blob file is not at the location (not arrived yet, or removed).
        var missing = 0
        /// Contents left at the location by the policy.
        var left = 0
        /// Blob files refused, one sentence each: nothing of them was stored.
        var refused: [String] = []
    }

    /// Brings in, per `policy`, the content of every blob row this vault holds without its
    /// chunks — new, or whose stream another device's version replaced — each in a transaction
    /// of its own, checked whole before it commits.
    func fetchContents(layout: SyncLayout, location: SyncLocation, policy: AttachmentSyncPolicy) throws -> ContentFetch {
        var result = ContentFetch()
        let absent = try database.read { db in try String.fetchAll(db.cachedStatement(sql: Self.absentContents)) }.compactMap(UUID.init(storageText:))
        guard !absent.isEmpty else { return result }
        guard policy == .all else {
            result.left = absent.count
            return result
        }
        for blobID in absent {
            do {
                if try fetchContent(blobID: blobID, layout: layout, location: location) { result.fetched += 1 } else { result.missing += 1 }
            } catch let error as VaultError {
                switch error {
                case .syncPackRefused(let reason), .tamperedRecord(_, _, let reason):
                    result.refused.append("the blob file of content \(blobID.storageText.prefix(8)): \(reason)")
                default:
                    throw error
                }
            }
        }
        return result
    }

    /// Fetches the content of the blob `blobID` from the location into this vault file, if it is
    /// not here (``UnlockedVault/fetchAttachmentContent(id:)``): its blob file read one chunk at
    /// a time, every chunk authenticated under the key the blob row holds, and stored in one
    /// transaction, or none of it. A file that is not there throws
    /// ``VaultError/attachmentNotStored(blobID:reason:)``; a damaged one,
    /// ``VaultError/tamperedRecord(table:id:detail:)`` or ``VaultError/syncPackRefused(_:)``.
    ///
    /// ```swift
    /// try SyncEngine(journal).fetchAttachment(blobID: attachment.blobID)
    /// ```
    public func fetchAttachment(blobID: UUID) throws {
        guard let state = try database.read({ db in try SyncState.load(db) }) else {
            throw VaultError.attachmentNotStored(blobID: blobID.storageText, reason: "this vault no longer syncs, so there is no location to fetch it from")
        }
        let location = try SyncLocation(state.location)
        try SyncLock.holding(vault: database.path) {
            guard try fetchContent(blobID: blobID, layout: location.layout(vaultID: keys.vaultID), location: location) else {
                throw VaultError.attachmentNotStored(blobID: blobID.storageText,
                                                     reason: "its file has not arrived at the sync location \(state.location) (or was removed from it)")
            }
        }
    }

    /// Stores the content of blob `blobID` from its blob file. Returns false when the file is not
    /// at the location; true when it was stored, or was here already (or the blob is gone).
    private func fetchContent(blobID: UUID, layout: SyncLayout, location: SyncLocation) throws -> Bool {
        guard let stream = try database.read({ db in
            try AttachmentBlobRow.fetchOne(id: blobID, db).map { try $0.streamID }
        }) else { return true }
        guard let file = try location.fetchBlob(vaultID: keys.vaultID, stream: stream) else { return false }
        defer { if file.downloaded { unlink(file.path) } }
        // Never through a link, never waiting on a FIFO: a blob file is a regular file or refused.
        let handle = try SyncLocationFile.open(file.path)
        defer { try? handle.close() }
        try vault.write { db in
            // Read again in the transaction: a pack applied meanwhile may have changed it.
            guard let blob = try AttachmentBlobRow.fetchOne(id: blobID, db), try blob.streamID == stream,
                  try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM attachment_chunk WHERE stream_id = ?)",
                                      arguments: [stream.storageText]) ?? false) else { return }
            let opened = try blob.decrypt(keys: keys)
            let expected = try blob.stream(opened)
            var reader = try SyncBlobFile.Reader(handle, streamID: stream, count: expected.chunkCount)
            let insert = try db.cachedStatement(sql: "INSERT INTO attachment_chunk (stream_id, idx, data) VALUES (?, ?, ?)")
            var current: (index: Int64, data: Data)?
            try AttachmentStream.read(expected, chunk: { index in
                current = try reader.next().map { (index, $0) }
                return current?.data
            }, emit: { _ in
                // Only once the chunk has authenticated; the transaction keeps none if a later one fails.
                guard let (index, data) = current else { return }
                try insert.execute(arguments: [stream.storageText, index, data])
            }, tampered: { blob.row.tampered("its blob file at the sync location: \($0)") })
            guard try reader.next() == nil else { throw VaultError.syncPackRefused("it goes on after its last chunk") }
        }
        return true
    }
}

extension SyncEngine {
    /// How much older than every device's newest snapshot a blob file must be to be removed: room
    /// for the clocks of the machines (and of a remote that stamps uploads) not to agree.
    static let blobRemovalMargin: Int64 = 60 * 60 * 1000

    /// Removes, with compaction, the blob files no device needs any more (FORMAT.md §14.11):
    /// those no blob row here names (in its table or parked), provided that every other device has
    /// applied all that this one has — so none of them still holds a record this one replaced or
    /// deleted — and that the file is older than every device's newest snapshot, which this
    /// device has applied — so the record of a file that has just arrived, whose pack has not,
    /// is not taken for one no record names. Anything unsure keeps every file. Returns how many
    /// went.
    func removeUnneededBlobs(layout: SyncLayout, location: SyncLocation, device: UUID) throws -> Int {
        let files = try location.blobFiles(vaultID: keys.vaultID)
        guard !files.isEmpty else { return 0 }
        let streamIndex = SealedTable.attachmentBlob.index(of: "stream_id")
        let (named, applied, lastPack) = try database.read { db in
            var named = Set(try String.fetchAll(db, sql: "SELECT stream_id FROM attachment_blob").compactMap(UUID.init(storageText:)))
            for data in try Data.fetchAll(db, sql: "SELECT change FROM sync_parked WHERE tbl = ?", arguments: [SealedTable.attachmentBlob.name]) {
                if case .row(let values) = try SyncChange.decode(Array(data)).body, let text = String.fromDatabaseValue(values[streamIndex]),
                   let stream = UUID(storageText: text) {
                    named.insert(stream)
                }
            }
            return (named, try SyncState.applied(db), try SyncState.load(db)?.lastPack ?? 0)
        }
        var held = applied
        held[device] = lastPack
        let others = keysFiles(layout: layout).authentic.filter { $0 != device }
        for other in others {
            guard let acks = acks(of: other, layout: layout),
                  held.allSatisfy({ $0.key == other || acks.applied[$0.key] ?? 0 >= $0.value }) else { return 0 }
        }
        var newest = Int64.max
        for each in others + [device] {
            guard let snapshot = newestSnapshot(of: each, layout: layout), each == device || applied[each] ?? 0 >= snapshot.number else { return 0 }
            newest = min(newest, snapshot.createdAt)
        }
        let removable = files.filter { !named.contains($0.key) && $0.value < newest - Self.blobRemovalMargin }.map(\.key)
        for stream in removable { unlink(layout.blobFile(stream: stream)) }
        try location.removeBlobs(vaultID: keys.vaultID, streams: removable)
        return removable.count
    }
}
