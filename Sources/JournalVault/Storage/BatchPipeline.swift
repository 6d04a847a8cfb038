import Foundation

/// Transforms batches of items on all cores, in order, while the caller reads the next batch.
///
/// Reading rows from SQLite is serial; decrypting them is not. A listing, search or check
/// over the whole vault hands each batch of rows to the pipeline and goes on reading while
/// the batch before is decrypted, so the reader never waits for the cipher or the cipher for
/// the reader. At most two batches are in memory at once, and outputs are delivered in
/// submission order on the caller's thread.
///
/// ```swift
/// let pipeline = BatchPipeline(transform: { (row: EncryptedEntryRow) in try row.decrypt(keys: keys) }) { entries in
///     result += entries
/// }
/// for batch in batches { try pipeline.submit(batch) }
/// try pipeline.finish()
/// ```
final class BatchPipeline<Item: Sendable, Output: Sendable> {
    private let transform: @Sendable (Item) throws -> Output
    private let deliver: ([Output]) throws -> Void
    private var running: (group: DispatchGroup, outcome: Outcome)?

    /// A running batch's result: written by its job before the job leaves its group, read only
    /// after `wait()` on that group, so the two never overlap.
    private final class Outcome: @unchecked Sendable {
        var result: Result<[Output], any Error> = .success([])
    }

    init(transform: @escaping @Sendable (Item) throws -> Output, deliver: @escaping ([Output]) throws -> Void) {
        self.transform = transform
        self.deliver = deliver
    }

    /// Delivers the batch submitted before (waiting for it if need be), then starts `batch`.
    func submit(_ batch: [Item]) throws {
        try finish()
        guard !batch.isEmpty else { return }
        let group = DispatchGroup()
        let outcome = Outcome()
        let transform = self.transform
        DispatchQueue.global().async(group: group) {
            outcome.result = Result { try ParallelMap.map(batch, transform) }
        }
        running = (group, outcome)
    }

    /// Waits for the last batch and delivers it; the first error of a transform (in item order)
    /// or of `deliver` is thrown.
    func finish() throws {
        guard let (group, outcome) = running else { return }
        running = nil
        group.wait()
        try deliver(try outcome.result.get())
    }

    /// A caller that stops early (an error while reading) still never leaves a job running
    /// behind it with the vault's keys.
    deinit {
        running?.group.wait()
    }
}
