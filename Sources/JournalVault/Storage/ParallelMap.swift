import Foundation

/// Maps `items` on all cores, keeping their order: record decryption is independent per row,
/// so search and check scale with the cores while rows are read in order by one reader.
enum ParallelMap {
    static let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// `transform` of each item in order; the first error (in item order) is thrown.
    static func map<Item, Result>(_ items: [Item], _ transform: (Item) throws -> Result) throws -> [Result] {
        guard workers > 1, items.count >= 64 else { return try items.map(transform) }
        let results = UnsafeMutableBufferPointer<Swift.Result<Result, Error>?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        let sliceLength = (items.count + workers - 1) / workers
        withoutActuallyEscaping(transform) { transform in
            nonisolated(unsafe) let transform = transform
            nonisolated(unsafe) let results = results
            items.withUnsafeBufferPointer { items in
                nonisolated(unsafe) let items = items
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    let range = (worker * sliceLength)..<min(items.count, (worker + 1) * sliceLength)
                    for index in range {
                        results[index] = Swift.Result { try transform(items[index]) }
                    }
                }
            }
        }
        return try results.map { try $0!.get() }
    }
}
