// SPDX-License-Identifier: Apache-2.0
import CSodium

/// The one place libsodium is initialised.
///
/// Every public entry point of this module calls ``Sodium/ready()`` first, so callers never
/// need to think about `sodium_init`.
///
/// ```swift
/// Sodium.ready()
/// ```
public enum Sodium {
    // sodium_init fails only without a usable randomness source; libsodium's random functions
    // then abort the process themselves, so there is no state in which we could go on unsafely.
    private static let initialised: Int32 = sodium_init()

    /// Initialises libsodium once per process; later calls are free.
    @inline(__always)
    public static func ready() {
        _ = initialised
    }

    /// Whether the process may lock memory (`RLIMIT_MEMLOCK` > 0). `sodium_malloc` silently
    /// skips locking when it may not, so the CLI probes this once and warns.
    public static func canLockMemory() -> Bool {
        ready()
        var probe = [UInt8](repeating: 0, count: 32)
        return probe.withUnsafeMutableBytes { buffer in
            guard sodium_mlock(buffer.baseAddress!, buffer.count) == 0 else { return false }
            sodium_munlock(buffer.baseAddress!, buffer.count)
            return true
        }
    }
}

extension Sodium {
    /// Overwrites `buffer` with zeros in a way the compiler cannot elide (`sodium_memzero`).
    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    /// Whether two byte strings are equal, in time that depends only on their length
    /// (`sodium_memcmp`): for comparing MACs.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return sodium_memcmp(lhs, rhs, lhs.count) == 0
    }
}
