// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// Transforms batches of items on all cores, in order, while the caller reads the next batch.
///
/// Reading rows from SQLite is serial; decrypting them is not. A listing, search or check
/// over the whole vault hands each batch of rows to the pipeline and goes on reading while
/// the batch before is decrypted, so the reader never waits for the cipher or the cipher for
/// the reader. While the caller reads, or delivers the outputs of the batch before, the batch
/// has every core but the caller's; when the caller comes back for it, the caller takes items
/// from the same batch until none are left, so no core sits idle at either end and no more
/// threads run than there are cores. At most two batches are in memory at once, and outputs
/// are delivered in submission order on the caller's thread. A caller ends a batch at
/// ``batchBytes`` of record text as well as at its count, so two batches of the longest
/// entries take no more memory than of short ones.
/// Work nobody waits for (the session agent's index) takes ``Urgency/background``: its helpers
/// take only the cores no command wants.
///
/// ```swift
/// let pipeline = BatchPipeline(transform: { (row: EncryptedEntryRow) in try row.decrypt(keys: keys) }) { entries in
///     result += entries
/// }
/// for batch in batches { try pipeline.submit(batch) }
/// try pipeline.finish()
/// ```
final class BatchPipeline<Item: Sendable, Output: Sendable> {
    /// Who waits for the work.
    enum Urgency: Sendable {
        /// A command a person is waiting on: helpers at the process's priority.
        case waitedFor
        /// Work done ahead of need: each helper lowers its thread to the lowest priority
        /// (nice 19) before it starts, so a command started meanwhile, on a machine of two
        /// cores, is hardly slowed. A thread cannot raise its priority again, so the helpers
        /// stay there: for processes whose pool does no other work (the session agent).
        case background
    }

    private let urgency: Urgency
    private let transform: @Sendable (Item) throws -> Output
    private let deliver: ([Output]) throws -> Void
    private var running: Job?

    /// Sealed text per batch past which a caller submits it (4 MiB): two batches, their
    /// decrypted texts and what is made of them stay within some 20 MiB whatever the entries'
    /// length, while 2,048 entries of a typical length (under 2 KB) still make one batch.
    static var batchBytes: Int { 4 << 20 }

    /// Background workers per batch: the caller's own core is busy reading meanwhile.
    private static var helpers: Int { max(1, ProcessInfo.processInfo.activeProcessorCount - 1) }

    init(urgency: Urgency = .waitedFor, transform: @escaping @Sendable (Item) throws -> Output,
         deliver: @escaping ([Output]) throws -> Void) {
        self.urgency = urgency
        self.transform = transform
        self.deliver = deliver
    }

    /// Finishes the batch submitted before (on this thread too), starts `batch`, then delivers
    /// the one before while `batch` is transformed: a `deliver` that takes time (the session
    /// agent's index inserting documents) no longer leaves the helpers idle.
    func submit(_ batch: [Item]) throws {
        let done = try takeRunning()
        if !batch.isEmpty { start(batch) }
        if let done { try deliver(done) }
    }

    /// Takes part in the last batch until it is done, then delivers it; the first error of a
    /// transform (in item order) or of `deliver` is thrown.
    func finish() throws {
        if let done = try takeRunning() { try deliver(done) }
    }

    private func start(_ batch: [Item]) {
        let job = Job(items: batch, transform: transform)
        let background = urgency == .background
        for _ in 0..<Self.helpers {
            DispatchQueue.global().async(group: job.group) {
                if background { ThreadPriority.lowerToBackground() }
                job.work()
            }
        }
        running = job
    }

    /// The outputs of the running batch, once this thread has helped transform it to the end.
    private func takeRunning() throws -> [Output]? {
        guard let job = running else { return nil }
        running = nil
        job.work()
        job.group.wait()
        return try job.outputs()
    }

    /// A caller that stops early (an error while reading) still never leaves a job running
    /// behind it with the vault's keys.
    deinit {
        running?.group.wait()
    }

    /// One batch: its items, a slot per output, and the index of the next items to take.
    /// Each slot is written by the one thread that took its index, and read only after
    /// `group.wait()` (or on that thread), so no two threads touch a slot at once.
    private final class Job: @unchecked Sendable {
        /// Items taken at a time: small enough to share a month's listing evenly, large enough
        /// that the shared counter is rarely touched.
        private static var grab: Int { 8 }

        let items: [Item]
        let transform: @Sendable (Item) throws -> Output
        let group = DispatchGroup()
        private let next = Atomic<Int>(0)
        private let slots: UnsafeMutableBufferPointer<Result<Output, any Error>?>

        init(items: [Item], transform: @escaping @Sendable (Item) throws -> Output) {
            self.items = items
            self.transform = transform
            slots = .allocate(capacity: items.count)
            slots.initialize(repeating: nil)
        }

        /// Transforms items until none are left to take.
        func work() {
            while true {
                let start = next.add(Self.grab, ordering: .relaxed).oldValue
                guard start < items.count else { return }
                for index in start..<min(start + Self.grab, items.count) {
                    slots[index] = Result { try transform(items[index]) }
                }
            }
        }

        /// Every output in item order, or the first error. Call after `group.wait()` and `work()`.
        func outputs() throws -> [Output] {
            try slots.map { try $0!.get() }
        }

        deinit {
            slots.deinitialize()
            slots.deallocate()
        }
    }
}
