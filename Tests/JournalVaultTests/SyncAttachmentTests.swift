// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// Attachments' contents through sync (FORMAT.md §14.11): a blob file per content at the
/// location, there before the pack that names it, written once for every device; fetched after
/// the packs are applied, or when read under `--attachments none`; a damaged file refused with
/// nothing stored; compaction removing only the files no device needs.
@Suite struct SyncAttachmentTests {
    typealias Devices = SyncTests.Devices

    /// A content of two and a half chunks.
    static let length = 2 * AttachmentStream.chunkLength + 12_345

    static func attach(_ journal: UnlockedVault, _ content: Data, name: String, in folder: TemporaryFolder) throws -> JournalVault.Attachment {
        let path = folder.file(name)
        try content.write(to: URL(fileURLWithPath: path))
        let entry = try journal.addEntry("With \(name).")
        return try journal.attach([.file(path)], to: entry.id)[0]
    }

    static func read(_ journal: UnlockedVault, _ id: UUID) throws -> Data {
        var data = Data()
        try journal.readAttachment(id: id) { data.append(contentsOf: $0) }
        return data
    }

    static func blobFiles(_ devices: Devices, _ index: Int) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: devices.root(index) + "/attachments")) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    static func streamID(_ journal: UnlockedVault, blob: UUID) throws -> String {
        try journal.database.read { db in try String.fetchOne(db, sql: "SELECT stream_id FROM attachment_blob WHERE id = ?", arguments: [blob.storageText]) ?? "" }
    }

    /// Delivers `index`'s missing files but those in its attachments folder.
    static func deliverPacksOnly(_ devices: Devices, to index: Int) {
        for item in devices.undelivered(to: index) where !item.contains("|attachments/") { devices.deliver(item, to: index) }
    }

    @Test("a pack sends a blob before the attachments that refer to it (parents first, not by wire id), so none waits for its parent")
    func aPackSendsBlobsBeforeTheirAttachments() throws {
        let devices = try Devices(count: 2)
        let a = devices.journals[0]
        _ = try Self.attach(a, AttachmentTests.content(100, seed: 3), name: "a.bin", in: devices.folder)
        _ = try SyncEngine(a).sync()
        let device = try devices.device(0)
        let pack = SyncLayout(root: devices.root(0)).file(.pack, of: device, number: 1)
        let tables = try SyncTests.readPack(pack, key: a.keys.syncKey, expected: (devices.vaultID, device, 1)).map(\.table.name)
        #expect(tables == ["entry", "attachment_blob", "attachment"])
        // Received in one pack, nothing is parked on the way.
        devices.deliverAll(to: 1)
        let received = try SyncEngine(devices.journals[1]).sync()
        #expect(try devices.journals[1].database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_parked") } == 0, "\(received)")
    }

    /// The content held by an attachment parked by sync (its entry deleted here) is not released
    /// when another entry with the same content is deleted: the parked attachment comes back
    /// whole when an edit of its entry beats the delete. Released, its blob's tombstone would
    /// also have taken the content from the device that never parked anything.
    @Test func aContentNamedOnlyByAParkedAttachmentIsKept() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let content = AttachmentTests.content(Self.length, seed: 12)
        let kept = try a.addEntry("Kept.")
        let other = try Self.attach(a, content, name: "other.jpg", in: devices.folder)
        try devices.syncUntilQuiet()

        // b deletes the entry while a attaches the same content to it: on b the attachment is parked.
        try b.deleteEntry(id: kept.id)
        let path = devices.folder.file("kept.jpg")
        try content.write(to: URL(fileURLWithPath: path))
        let parked = try a.attach([.file(path)], to: kept.id)[0]
        #expect(parked.blobID == other.blobID)
        _ = try SyncEngine(a).sync()
        devices.deliverAll(to: 1)
        _ = try SyncEngine(b).sync()
        let parkedOnB = try b.database.read { db in try String.fetchAll(db, sql: "SELECT id FROM sync_parked WHERE tbl = 'attachment'") }
        #expect(parkedOnB == [parked.id.storageText])

        // a edits the entry before it hears of the delete (the edit will win); b deletes the other
        // entry, whose attachment was the last in its table to name the content.
        try a.updateEntry(id: kept.id, content: "Kept, and changed.")
        try b.deleteEntry(id: other.entryID)
        let stored = try b.database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM attachment_chunk c JOIN attachment_blob b ON b.stream_id = c.stream_id WHERE b.id = ?",
                             arguments: [other.blobID.storageText])
        }
        #expect(stored == 3, "the content named by the parked attachment was released")
        try devices.syncUntilQuiet()
        for journal in [a, b] {
            #expect(try journal.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_parked") } == 0)
            #expect(try Self.read(journal, parked.id) == content)
            #expect(try journal.check().isClean)
        }

        // Deleted at last, the content goes everywhere with its last attachment.
        try a.deleteEntry(id: kept.id)
        try devices.syncUntilQuiet()
        for journal in [a, b] {
            #expect(try journal.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM attachment_blob") } == 0)
            #expect(try journal.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM attachment_chunk") } == 0)
        }
    }

    @Test func aContentAttachedOnOneDeviceIsReadOnTheOtherAndItsFileWentFirst() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let content = AttachmentTests.content(Self.length, seed: 7)
        let attached = try Self.attach(a, content, name: "ridge.jpg", in: devices.folder)
        _ = try SyncEngine(a).sync()
        let stream = try Self.streamID(a, blob: attached.blobID)
        #expect(Self.blobFiles(devices, 0) == ["\(stream).jvb"])
        let file = try Data(contentsOf: URL(fileURLWithPath: devices.root(0) + "/attachments/\(stream).jvb"))
        #expect(file.prefix(8) == Data("JVLTBLOB".utf8) && file.count > Self.length)

        // The pack without its file (a carrier that delivers out of order): the records come, the content waits.
        Self.deliverPacksOnly(devices, to: 1)
        let early = try SyncEngine(b).sync()
        #expect(early.contentsMissing == 1 && early.contentsFetched == 0 && early.refused.isEmpty, "\(early)")
        #expect(try b.attachment(id: attached.id).stored == false)
        #expect(try b.check().isClean)

        devices.deliverAll(to: 1)
        let later = try SyncEngine(b).sync()
        #expect(later.contentsFetched == 1 && later.contentsMissing == 0, "\(later)")
        #expect(try b.attachment(id: attached.id).stored)
        #expect(try Self.read(b, attached.id) == content)
        #expect(try b.check().isClean)
    }

    @Test func theSameContentIsOneBlobFileWhetherAttachedAfterOrAtTheSameTime() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let first = AttachmentTests.content(70_000, seed: 1)
        _ = try Self.attach(a, first, name: "a.bin", in: devices.folder)
        try devices.syncUntilQuiet()
        let again = try Self.attach(b, first, name: "again.bin", in: devices.folder)
        try devices.syncUntilQuiet()
        #expect(Self.blobFiles(devices, 0).count == 1 && Self.blobFiles(devices, 1).count == 1)
        #expect(try Self.read(a, again.id) == first)

        // Both attach the same new content before either syncs: one version of its record wins
        // everywhere, and the loser's chunks give way to the winner's, fetched.
        let second = AttachmentTests.content(1_500_000, seed: 2)
        let onA = try Self.attach(a, second, name: "x.bin", in: devices.folder)
        let onB = try Self.attach(b, second, name: "y.bin", in: devices.folder)
        #expect(onA.blobID == onB.blobID)
        try devices.syncUntilQuiet()
        #expect(try Self.streamID(a, blob: onA.blobID) == Self.streamID(b, blob: onA.blobID))
        for journal in [a, b] {
            #expect(try Self.read(journal, onA.id) == second && Self.read(journal, onB.id) == second)
            #expect(try journal.check().isClean)
        }
    }

    @Test func contentsLeftAtTheLocationAreFetchedWhenRead() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let content = AttachmentTests.content(Self.length, seed: 3)
        let path = devices.folder.file("photo.jpg")
        try content.write(to: URL(fileURLWithPath: path))
        let entry = try a.addEntry("A photo.")
        let attached = try a.attach([.file(path, thumbnail: [0xFF, 0xD8, 0xFF, 0xD9])], to: entry.id)[0]
        _ = try SyncEngine(a).sync()
        devices.deliverAll(to: 1)
        for policy in [AttachmentSyncPolicy.none, .thumbnails] {
            let report = try SyncEngine(b).sync(attachments: policy)
            #expect(report.contentsLeft == 1 && report.contentsFetched == 0, "\(report)")
        }
        #expect(try b.attachment(id: attached.id).stored == false)
        #expect(try b.attachmentThumbnail(id: attached.id) == [0xFF, 0xD8, 0xFF, 0xD9])
        #expect(try b.attachmentsWithThumbnails().map { "\($0.attachment.id) \($0.thumbnail)" } == ["\(attached.id) \([UInt8]([0xFF, 0xD8, 0xFF, 0xD9]))"])
        #expect(try b.check().isClean)
        #expect(try Self.read(b, attached.id) == content)
        #expect(try b.attachment(id: attached.id).stored)
        #expect(try b.check().isClean)
    }

    @Test func aContentWithoutItsFileCannotBeReadAndSaysWhy() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let attached = try Self.attach(a, AttachmentTests.content(1000), name: "note.txt", in: devices.folder)
        _ = try SyncEngine(a).sync()
        Self.deliverPacksOnly(devices, to: 1)
        _ = try SyncEngine(b).sync()
        #expect {
            try Self.read(b, attached.id)
        } throws: { error in
            guard case VaultError.attachmentNotStored = error else { return false }
            return true
        }
    }

    @Test func aKilledUploadsLeftoversAreRemovedAndACutShortFileIsWrittenAgain() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let content = AttachmentTests.content(Self.length, seed: 11)
        let attached = try Self.attach(a, content, name: "clip.mp4", in: devices.folder)
        let stream = try #require(UUID(storageText: try Self.streamID(a, blob: attached.blobID)))
        let layout = SyncLayout(root: devices.root(0))
        try FileManager.default.createDirectory(atPath: layout.attachmentsFolder, withIntermediateDirectories: true)
        // What a sync killed while writing leaves, and a file cut short under the final name (a carrier's doing).
        let temporary = layout.temporaryBlobFile(stream: stream, device: try devices.device(0))
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: temporary))
        try Data("JVLTBLOB".utf8).write(to: URL(fileURLWithPath: layout.blobFile(stream: stream)))
        _ = try SyncEngine(a).sync()
        #expect(!FileManager.default.fileExists(atPath: temporary))
        devices.deliverAll(to: 1)
        let report = try SyncEngine(b).sync()
        #expect(report.contentsFetched == 1 && report.refused.isEmpty, "\(report)")
        #expect(try Self.read(b, attached.id) == content)
    }

    @Test func aVaultThatNoLongerSyncsSaysItCannotFetch() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let attached = try Self.attach(a, AttachmentTests.content(1000), name: "note.txt", in: devices.folder)
        _ = try SyncEngine(a).sync()
        devices.deliverAll(to: 1)
        _ = try SyncEngine(b).sync(attachments: .none)
        try b.write { db in try db.execute(sql: "DELETE FROM sync_device") }
        #expect {
            try Self.read(b, attached.id)
        } throws: { error in
            guard case VaultError.attachmentNotStored(_, let reason) = error else { return false }
            return reason.contains("no longer syncs")
        }
    }

    enum Damage: String, CaseIterable {
        case flipped, truncated, extended, swapped, chunksOfAnother
    }

    @Test(arguments: Damage.allCases)
    func aDamagedBlobFileIsRefusedAndNothingOfItStored(damage: Damage) throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let content = AttachmentTests.content(Self.length, seed: 4)
        let attached = try Self.attach(a, content, name: "letter.pdf", in: devices.folder)
        let other = try Self.attach(a, AttachmentTests.content(Self.length, seed: 5), name: "other.pdf", in: devices.folder)
        _ = try SyncEngine(a).sync()
        devices.deliverAll(to: 1)
        let stream = try Self.streamID(a, blob: attached.blobID)
        let otherStream = try Self.streamID(a, blob: other.blobID)
        let path = devices.root(1) + "/attachments/\(stream).jvb"
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        var damaged = original
        switch damage {
        case .flipped: damaged[damaged.count - 100] ^= 1
        case .truncated: damaged = damaged.prefix(damaged.count - 1000)
        case .extended: damaged.append(0)
        case .swapped: damaged = try Data(contentsOf: URL(fileURLWithPath: devices.root(1) + "/attachments/\(otherStream).jvb"))
        case .chunksOfAnother:
            // The other content's chunks under this one's header: they open under no key of this blob.
            damaged = original.prefix(SyncBlobFile.headerLength)
                + (try Data(contentsOf: URL(fileURLWithPath: devices.root(1) + "/attachments/\(otherStream).jvb"))).dropFirst(SyncBlobFile.headerLength)
        }
        try damaged.write(to: URL(fileURLWithPath: path))
        let report = try SyncEngine(b).sync()
        #expect(report.refused.count == 1 && report.contentsFetched == 1, "\(report)")
        #expect(try b.attachment(id: attached.id).stored == false)
        #expect(try b.attachment(id: other.id).stored)
        #expect(try b.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM attachment_chunk WHERE stream_id = ?", arguments: [stream]) } == 0)
        #expect(try b.check().isClean)

        try original.write(to: URL(fileURLWithPath: path))
        let repaired = try SyncEngine(b).sync()
        #expect(repaired.refused.isEmpty && repaired.contentsFetched == 1, "\(repaired)")
        #expect(try Self.read(b, attached.id) == content)
    }

    @Test func compactionRemovesOnlyTheFilesNoDeviceNeeds() throws {
        let devices = try Devices(count: 2)
        let (a, b) = (devices.journals[0], devices.journals[1])
        let gone = try Self.attach(a, AttachmentTests.content(5000, seed: 8), name: "gone.txt", in: devices.folder)
        let kept = try Self.attach(a, AttachmentTests.content(6000, seed: 9), name: "kept.txt", in: devices.folder)
        try devices.syncUntilQuiet()
        let goneFile = "\(try Self.streamID(a, blob: gone.blobID)).jvb"
        let keptFile = "\(try Self.streamID(a, blob: kept.blobID)).jvb"
        try b.deleteAttachment(id: gone.id)
        _ = try SyncEngine(b).sync()
        devices.deliverAll(to: 0)
        _ = try SyncEngine(a).sync()
        // Written well before any snapshot (the margin for clocks that disagree).
        func age(_ index: Int) throws {
            let past = Date(timeIntervalSinceNow: -2 * 3600)
            for name in Self.blobFiles(devices, index) {
                try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: devices.root(index) + "/attachments/" + name)
            }
        }
        try age(0)
        // b has no snapshot yet: a cannot know what b's may hold.
        let first = try SyncEngine(a).sync(compact: true)
        #expect(first.contentsRemoved == 0 && Self.blobFiles(devices, 0) == [goneFile, keptFile].sorted(), "\(first)")

        devices.deliverAll(to: 1)
        try age(1)
        _ = try SyncEngine(b).sync(compact: true)
        devices.deliverAll(to: 0)
        // A file that has just arrived is newer than the snapshots: kept, its record may be on the way.
        let fresh = AttachmentTests.content(100, seed: 10)
        let stray = devices.root(0) + "/attachments/\(UUID().storageText).jvb"
        try fresh.write(to: URL(fileURLWithPath: stray))
        let second = try SyncEngine(a).sync(compact: true)
        #expect(second.contentsRemoved == 1, "\(second)")
        #expect(Self.blobFiles(devices, 0) == [keptFile, (stray as NSString).lastPathComponent].sorted())
        #expect(try Self.read(a, kept.id) == AttachmentTests.content(6000, seed: 9))
        for journal in [a, b] { #expect(try journal.check().isClean) }
    }
}
