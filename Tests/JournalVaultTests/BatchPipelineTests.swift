// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// The pipeline behind listings, search and check: whatever the threads do, outputs arrive
/// complete, in submission order, and errors in item order.
@Suite struct BatchPipelineTests {
    /// Uneven work per item, so helpers and the caller finish items out of order.
    private static func slowSquare(_ value: Int) -> Int {
        if value % 7 == 0 { usleep(50) }
        return value * value
    }

    @Test func outputsArriveInOrderAcrossBatchesOfEverySize() throws {
        for sizes in [[1], [0, 3, 0], [5, 1000, 17], [2048, 2048, 1], [9, 8, 7, 64, 65, 63]] {
            var delivered: [[Int]] = []
            let pipeline = BatchPipeline(transform: { (value: Int) in Self.slowSquare(value) }) { delivered.append($0) }
            var next = 0
            for size in sizes {
                try pipeline.submit(Array(next..<next + size))
                next += size
            }
            try pipeline.finish()
            #expect(delivered.map(\.count) == sizes.filter { $0 > 0 }, "\(sizes)")
            #expect(delivered.flatMap { $0 } == (0..<next).map { $0 * $0 }, "\(sizes)")
        }
    }

    @Test func theFirstErrorInItemOrderIsThrownAndItsBatchIsNotDelivered() throws {
        struct Failure: Error, Equatable { let item: Int }
        var delivered: [[Int]] = []
        let pipeline = BatchPipeline(transform: { (value: Int) throws -> Int in
            // Later items fail faster, so the first error to happen is not the first in order.
            if value == 700 { usleep(2000); throw Failure(item: value) }
            if value == 900 { throw Failure(item: value) }
            return value
        }) { delivered.append($0) }
        try pipeline.submit(Array(0..<500))
        try pipeline.submit(Array(500..<1000))
        #expect(delivered == [Array(0..<500)])
        #expect(throws: Failure(item: 700)) { try pipeline.finish() }
        #expect(delivered == [Array(0..<500)])
    }

    @Test func aDeliveryErrorStopsThePipeline() throws {
        struct Full: Error {}
        let pipeline = BatchPipeline(transform: { (value: Int) in value }) { _ in throw Full() }
        try pipeline.submit(Array(0..<10))
        #expect(throws: Full.self) { try pipeline.submit(Array(10..<20)) }
    }

    /// Dropping a pipeline with a batch still running waits for it instead of leaving work behind.
    @Test func droppingAPipelineWaitsForItsBatch() throws {
        let finished = Counter()
        do {
            let pipeline = BatchPipeline(transform: { (value: Int) in usleep(100); finished.increment(); return value }) { _ in }
            try pipeline.submit(Array(0..<200))
        }
        // Without the wait, helpers would still be taking items; with it, the caller took none,
        // so the helpers did all 200 before the pipeline was gone.
        #expect(finished.value == 200)
    }
}

/// A thread-safe count for the test above.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
