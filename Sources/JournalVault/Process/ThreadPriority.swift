// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The scheduling priority of the calling thread. On Linux the nice value belongs to each
/// thread (not to the process, as POSIX has it), and `setpriority` with `who` 0 sets the
/// caller's alone: a process can keep its own thread responsive while its helpers yield.
///
/// ```swift
/// DispatchQueue.global().async { ThreadPriority.lowerToBackground(); indexEverything() }
/// ```
enum ThreadPriority {
    /// The lowest priority there is (nice 19): the thread runs when no other wants the core.
    /// An unprivileged thread cannot go back up. A failure leaves the thread as it was, which
    /// costs only speed.
    static func lowerToBackground() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    }

}
