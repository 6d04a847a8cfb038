// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Synchronization
import Testing
import VaultCrypto
@testable import JournalVault

/// `AttachmentStream.write` seals on a thread of its own while the caller stores (FORMAT.md
/// §15.1 unchanged): the sealer is never more than its buffers ahead of the store, a failure on
/// either side ends the write with that failure and the sealer with it, and the chunks' manifest
/// digests made beside the sealing are those the trigger would have made.
@Suite struct AttachmentStreamTests {
    static let chunk = AttachmentStream.chunkLength

    /// Gives `length` bytes (of `byte`), at most `piece` per read, on whatever thread reads; fails
    /// with `failure` at read number `failAt` when set.
    final class MemoryReader: Sendable {
        let length: Int
        let piece: Int
        let failAt: Int?
        private let state = Mutex((offset: 0, reads: 0))

        init(length: Int, piece: Int = AttachmentStreamTests.chunk, failAt: Int? = nil) {
            self.length = length
            self.piece = piece
            self.failAt = failAt
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            try state.withLock { state in
                state.reads += 1
                if state.reads == failAt { throw ReadFailure() }
                let count = min(buffer.count, piece, length - state.offset)
                if let base = buffer.baseAddress { memset(base, 0x5A, count) }
                state.offset += count
                return count
            }
        }
    }

    struct ReadFailure: Error, Equatable {}
    struct StoreFailure: Error, Equatable {}

    @Test func theSealerIsNeverMoreThanItsBuffersAheadOfTheStore() throws {
        let reader = MemoryReader(length: 12 * Self.chunk + 5)
        let prepared = Atomic<Int>(0)
        var stored: [Int64] = []
        let written = try AttachmentStream.write(streamID: UUID(), name: "long.bin", limit: .max, read: reader.read(into:), prepare: { index, _ in
            prepared.add(1, ordering: .sequentiallyConsistent)
            return index
        }, store: { index, sealed, preparedIndex in
            // A slow store: the sealer runs ahead as far as it may.
            usleep(3_000)
            #expect(preparedIndex == index)
            #expect(prepared.load(ordering: .sequentiallyConsistent) <= Int(index) + AttachmentStream.sealedAhead)
            #expect(sealed.count <= Self.chunk + SecretStream.overhead)
            stored.append(index)
        })
        #expect(written.size == Int64(12 * Self.chunk + 5))
        #expect(stored == Array(0..<written.chunkCount))
        #expect(prepared.load(ordering: .sequentiallyConsistent) == Int(written.chunkCount))
    }

    @Test func aFailedStoreEndsTheWriteWithItsErrorAndStopsTheSealer() throws {
        let reader = MemoryReader(length: 40 * Self.chunk)
        let prepared = Atomic<Int>(0)
        #expect(throws: StoreFailure()) {
            _ = try AttachmentStream.write(streamID: UUID(), name: "long.bin", limit: .max, read: reader.read(into:), prepare: { _, _ in
                prepared.add(1, ordering: .sequentiallyConsistent)
            }, store: { index, _, _ in
                if index == 2 { throw StoreFailure() }
            })
        }
        // The sealer has ended when the write returns: no chunk is sealed afterwards, and it got
        // no further than its buffers allow past the failed chunk.
        let atReturn = prepared.load(ordering: .sequentiallyConsistent)
        usleep(50_000)
        #expect(prepared.load(ordering: .sequentiallyConsistent) == atReturn)
        #expect(atReturn <= 2 + AttachmentStream.sealedAhead)
    }

    @Test func aFailedReadEndsTheWriteWithItsErrorAfterTheChunksBefore() throws {
        let reader = MemoryReader(length: 10 * Self.chunk, piece: Self.chunk / 2, failAt: 7)
        var stored: [Int64] = []
        #expect(throws: ReadFailure()) {
            _ = try AttachmentStream.write(streamID: UUID(), name: "long.bin", limit: .max, read: reader.read(into:), prepare: { _, _ in },
                                           store: { index, _, _ in stored.append(index) })
        }
        // Reads 1–6 filled three chunks; the third waited to know whether it was the last.
        #expect(stored == [0, 1])
    }

    @Test func contentOverTheLimitStopsTheWrite() throws {
        let reader = MemoryReader(length: 3 * Self.chunk)
        #expect(throws: VaultError.attachmentTooLarge(name: "long.bin", limit: Int64(2 * Self.chunk))) {
            _ = try AttachmentStream.write(streamID: UUID(), name: "long.bin", limit: Int64(2 * Self.chunk), read: reader.read(into:),
                                           prepare: { _, _ in }, store: { _, _, _ in })
        }
    }

    /// The digests `storeAttachment` adds to the manifest for its chunks (made on the sealing
    /// thread, the trigger skipped) are those of the rows as stored, digested as `check()` does.
    @Test func theChunksDigestsMadeBesideTheSealingAreTheRowsDigests() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("A recording.")
        let path = vault.folder.file("memo.ogg")
        try Data(repeating: 0x33, count: 2 * Self.chunk + 77).write(to: URL(fileURLWithPath: path))
        try vault.journal.attach([.file(path)], to: entry.id)
        let keys = vault.journal.keys
        try vault.journal.database.read { db in
            let table = ManifestedTable.attachmentChunk
            let statement = try db.makeStatement(sql: "SELECT \(table.selection) FROM \(table.name) ORDER BY idx")
            let rows = try Row.fetchCursor(statement)
            var count = 0
            while let row = try rows.next() {
                let fromRow = try Manifest.digest(ofCurrentRowOf: statement, in: table, key: keys.manifestKey)
                let data: Data = row["data"]
                let beside = try data.withUnsafeBytes { bytes in
                    try RowDigest.ofChunk(stream: row["stream_id"], index: row["idx"], data: bytes, key: keys.manifestKey)
                }
                #expect(beside == fromRow)
                count += 1
            }
            #expect(count == 3)
        }
        let report = try vault.journal.check()
        #expect(report.isClean, "\(report.problems)")
    }
}
