// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
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

    /// Runs `body` on a thread of its own at the lowest priority and waits for it: how a thread
    /// that must keep its priority afterwards (it answers someone later) does work that nobody
    /// is waiting for now. The thread has a 4 MiB stack, as the session agent's threads do.
    /// (`body` escapes: the thread may still hold it for a moment after it is done, which
    /// `withoutActuallyEscaping` would trap on.)
    static func runInBackground<Result>(_ body: @escaping () -> Result) -> Result {
        let work = BackgroundWork(body)
        let thread = Thread {
            lowerToBackground()
            work.run()
        }
        thread.stackSize = 4 << 20
        thread.start()
        return work.waitForResult()
    }

    /// `body` and its result, handed to the background thread and back: the caller blocks in
    /// ``waitForResult()`` until the thread is done, so the two never touch them at once.
    private final class BackgroundWork<Result>: @unchecked Sendable {
        private let body: () -> Result
        private var result: Result?
        private let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping () -> Result) { self.body = body }

        func run() {
            result = body()
            done.signal()
        }

        func waitForResult() -> Result {
            done.wait()
            return result!
        }
    }
}
