// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// The hand-over of parts from a producing thread to the caller (reading an attachment opens
/// the next chunks while the caller writes the one before): order, and each side's failure.
@Suite struct SealingPipeTests {
    private struct Failed: Error, Equatable { let side: String }

    /// Parts of 1 to 64 bytes, each filled with its index.
    private static func part(_ index: Int) -> [UInt8] { [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: index % 64 + 1) }

    @Test func everyPartArrivesInOrderOnTheCallersThread() throws {
        let caller = Thread.current
        var received: [[UInt8]] = []
        try SealingPipe.handOver(buffers: 3, length: 64, produce: { put in
            for index in 0..<500 { try Self.part(index).withUnsafeBytes(put) }
        }, consume: { part in
            #expect(Thread.current == caller)
            received.append(Array(part))
        })
        #expect(received == (0..<500).map(Self.part))
    }

    @Test func aFailedProducerGivesItsPartsThenItsError() throws {
        var received = 0
        #expect(throws: Failed(side: "producer")) {
            try SealingPipe.handOver(buffers: 3, length: 64, produce: { put in
                for index in 0..<7 { try Self.part(index).withUnsafeBytes(put) }
                throw Failed(side: "producer")
            }, consume: { _ in received += 1 })
        }
        #expect(received == 7, "the parts put before the failure are all consumed")
    }

    @Test func aFailedConsumerStopsTheProducerWithItsOwnError() throws {
        let produced = Produced()
        #expect(throws: Failed(side: "consumer")) {
            try SealingPipe.handOver(buffers: 3, length: 64, produce: { put in
                for index in 0..<10_000 {
                    try Self.part(index).withUnsafeBytes(put)
                    produced.add()
                }
            }, consume: { _ in throw Failed(side: "consumer") })
        }
        // Stopped within its buffers, not after the 10,000 parts.
        #expect(produced.value <= 3 + 1, "\(produced.value) parts produced")
    }

    @Test func aPartLongerThanTheBuffersIsRefused() throws {
        #expect(throws: VaultError.self) {
            try SealingPipe.handOver(buffers: 2, length: 8, produce: { put in try [UInt8](repeating: 1, count: 9).withUnsafeBytes(put) },
                                     consume: { _ in })
        }
    }
}

/// A count kept by the producing thread and read after it has ended.
private final class Produced: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
