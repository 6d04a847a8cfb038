// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The hand-over between a thread that seals chunks and the caller that stores or writes them
/// (an attachment's chunks, ``AttachmentStream/write(streamID:name:limit:read:prepare:store:)``;
/// a backup's, ``IndexedChunkStream/Writer/write(length:read:wrote:)``, where one also hands the
/// bytes read to the sealer): a fixed set of buffers goes round — the sealer fills a free one, the
/// storer stores it and hands it back — so the sealer is never more than the set ahead and memory
/// stays what the set is.
///
/// `Prepared` is what the sealer makes beside each chunk for the storer, `Outcome` what it ends with.
///
/// Either side may stop the other: the sealer by ending (its result, an error included, is
/// taken once the chunks it put before are stored), the storer by ``stop()`` (a failed store),
/// which wakes a sealer waiting for a buffer with ``Stopped``.
///
/// ```swift
/// let pipe = SealingPipe<Void, Int>(buffers: 3, length: 1 << 20)
/// // sealer: let buffer = try pipe.freeBuffer(); …; pipe.put(index: 0, buffer: buffer, count: n, prepared: ()); pipe.end(.success(chunks))
/// // storer: while let chunk = pipe.next() { …; pipe.recycle(chunk.buffer) }; let stored = try pipe.outcome()
/// ```
final class SealingPipe<Prepared: Sendable, Outcome: Sendable>: @unchecked Sendable {
    /// A sealed chunk waiting to be stored: `count` bytes of `buffer`.
    struct Chunk {
        let index: Int64
        let buffer: UnsafeMutableRawBufferPointer
        let count: Int
        let prepared: Prepared
    }

    /// What a sealer waiting for a buffer is told once the storer has stopped.
    struct Stopped: Error {}

    // Every member below is read and written only with `condition` locked.
    private let condition = NSCondition()
    private let all: [UnsafeMutableRawBufferPointer]
    private var free: [UnsafeMutableRawBufferPointer]
    private var waiting: [Chunk] = []
    private var ended: Result<Outcome, Error>?
    private var stopped = false

    init(buffers: Int, length: Int) {
        all = (0..<buffers).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 64) }
        free = all
    }

    // MARK: The sealer's side

    /// A buffer to seal into, once one is free; ``Stopped`` once the storer has stopped.
    func freeBuffer() throws -> UnsafeMutableRawBufferPointer {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !stopped { condition.wait() }
        guard !stopped else { throw Stopped() }
        return free.removeLast()
    }

    /// Hands a sealed chunk to the storer, after those put before it.
    func put(index: Int64, buffer: UnsafeMutableRawBufferPointer, count: Int, prepared: Prepared) {
        condition.lock()
        waiting.append(Chunk(index: index, buffer: buffer, count: count, prepared: prepared))
        condition.signal()
        condition.unlock()
    }

    /// The sealer's last word: what it sealed, or why it stopped.
    func end(_ result: Result<Outcome, Error>) {
        condition.lock()
        ended = result
        condition.signal()
        condition.unlock()
    }

    // MARK: The storer's side

    /// The next sealed chunk, in order; nil once the sealer has ended and every chunk it put is taken.
    func next() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && ended == nil { condition.wait() }
        return waiting.isEmpty ? nil : waiting.removeFirst()
    }

    /// Gives a stored chunk's buffer back to the sealer.
    func recycle(_ buffer: UnsafeMutableRawBufferPointer) {
        condition.lock()
        free.append(buffer)
        condition.signal()
        condition.unlock()
    }

    /// What the sealer ended with, once ``next()`` has given nil.
    func outcome() throws -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        guard let ended else { throw VaultError.storage("sealed chunks were taken before they were all sealed") }
        return try ended.get()
    }

    /// Tells the sealer to stop (the storer failed, or is done): it stops at its next buffer.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Frees the buffers, once the sealer has ended: the sealed chunks are ciphertext, but the
    /// memory goes back wiped all the same.
    func release() {
        for buffer in all {
            Sodium.wipe(buffer)
            buffer.deallocate()
        }
    }
}

extension SealingPipe where Prepared == Void {
    /// Runs `produce` on a thread of its own and hands each part it puts (at most `length`
    /// bytes, copied into one of `buffers` buffers) to `consume` on the caller's thread, in order,
    /// then returns what `produce` returned: reading an attachment opens its next chunks while
    /// the caller digests and writes out the one before. Every part `produce` put before it
    /// failed is consumed, then its error thrown; a failed `consume` stops `produce` at its next
    /// part, and its error is thrown. The thread has ended, and the buffers are wiped, when this
    /// returns.
    ///
    /// ```swift
    /// try SealingPipe.handOver(buffers: 3, length: 1 << 20, produce: { put in try put(part) }, consume: { try file.write(contentsOf: $0) })
    /// ```
    static func handOver(buffers: Int, length: Int, produce: @escaping @Sendable (_ put: (UnsafeRawBufferPointer) throws -> Void) throws -> Outcome,
                         consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Outcome {
        let pipe = SealingPipe<Void, Outcome>(buffers: buffers, length: length)
        // A thread of its own rather than a job of Dispatch's pool: a producer may itself hand
        // over to another (``UnlockedVault/readAttachment(id:_:)``), and the pool, which does not
        // see a thread waiting on the pipe, would not start the second on a machine of one core.
        let producerEnded = DispatchSemaphore(value: 0)
        let producer = Thread {
            var index: Int64 = 0
            pipe.end(Result {
                try produce { part in
                    guard part.count <= length else { throw VaultError.storage("a part of \(part.count) bytes is longer than the pipe's buffers") }
                    let buffer = try pipe.freeBuffer()
                    if let source = part.baseAddress { buffer.baseAddress!.copyMemory(from: source, byteCount: part.count) }
                    pipe.put(index: index, buffer: buffer, count: part.count, prepared: ())
                    index += 1
                }
            })
            producerEnded.signal()
        }
        producer.start()
        defer {
            pipe.stop()
            producerEnded.wait()
            pipe.release()
        }
        while let part = pipe.next() {
            try consume(UnsafeRawBufferPointer(rebasing: part.buffer[..<part.count]))
            pipe.recycle(part.buffer)
        }
        return try pipe.outcome()
    }
}
