// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// When and where a revision of a record was made (FORMAT.md §14.4): a hybrid-logical-clock
/// time in milliseconds and the device that made it. Of two concurrent revisions the greater
/// stamp wins, the same way on every device; the device id breaks ties of time.
struct SyncStamp: Hashable, Comparable, Sendable {
    let hlc: UInt64
    let device: UUID

    /// Below every stamp: the rank of a tombstone of a record no other device had seen.
    static let zero = SyncStamp(hlc: 0, device: UUID(bytes: [UInt8](repeating: 0, count: 16)))

    static func < (lhs: SyncStamp, rhs: SyncStamp) -> Bool {
        lhs.hlc != rhs.hlc ? lhs.hlc < rhs.hlc : lhs.device.bytes.lexicographicallyPrecedes(rhs.device.bytes)
    }

    /// `hlc u64 ‖ device[16]`.
    func encode(into writer: inout ByteWriter) {
        writer.u64(hlc)
        writer.raw(device.bytes)
    }

    static func decode(from reader: inout ByteReader) -> SyncStamp? {
        guard let hlc = reader.u64(), let device = reader.raw(16) else { return nil }
        return SyncStamp(hlc: hlc, device: UUID(bytes: device))
    }
}

/// A hybrid logical clock (Kulkarni et al.): never behind the wall clock, never behind any
/// stamp seen, and strictly increasing — so a revision made after seeing another always has the
/// greater stamp, even when this machine's clock is behind the other's.
struct HybridClock: Sendable {
    private(set) var last: UInt64

    init(last: UInt64) { self.last = last }

    /// The time of a new local revision.
    mutating func tick(now: UInt64 = UInt64(max(0, Instant.now().millis))) -> UInt64 {
        last = max(now, last &+ 1)
        return last
    }

    /// Takes in a stamp that came from another device.
    mutating func observe(_ hlc: UInt64) {
        last = max(last, hlc)
    }
}

extension SyncStamp {
    /// A stamp as stored: `hlc` and `device` columns at those positions of `row`; nil when malformed.
    init?(_ row: Row, hlc: Int, device: Int) {
        guard let value = row[hlc] as Int64?, let bytes = row[device] as Data?, bytes.count == 16 else { return nil }
        self.init(hlc: UInt64(bitPattern: value), device: UUID(bytes: Array(bytes)))
    }
}
