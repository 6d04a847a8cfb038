// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A progress line on standard error for work that runs longer than a second, shown only when
/// standard error is a terminal, and cleared when the work is done.
final class Progress {
    private let verb: String
    private let start = ContinuousClock.now
    private var lastShown = ContinuousClock.now
    private var shown = false
    private let enabled = isatty(STDERR_FILENO) == 1

    init(_ verb: String) {
        self.verb = verb
    }

    /// Reports `done` of `total` `unit` (and a phase description), at most five times a second.
    func update(_ done: Int, of total: Int, unit: String = "records", phase: String = "") {
        let now = ContinuousClock.now
        guard enabled, now - start > .seconds(1), !shown || now - lastShown > .milliseconds(200) || done == total else { return }
        lastShown = now
        shown = true
        let percent = total > 0 ? " (\(done * 100 / total)%)" : ""
        FileHandle.standardError.write(Data("\r\u{1B}[K\(verb) \(done) of \(total) \(unit)\(percent)\(phase)".utf8))
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
