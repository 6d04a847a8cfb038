// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation

/// Asks the terminal what it can draw: kitty's graphics query (a 1×1 image it is asked only to
/// check, `a=q`), XTVERSION (`ESC [ > 0 q`) and DA1 (`ESC [ c`), then reads the answers
/// (``TerminalAnswers``) until DA1's has come or the time is up. Only when standard input and
/// standard output are the same terminal, and jv is in its foreground (a background job that
/// touched it would be stopped): otherwise nothing is written. While it waits, the terminal
/// neither echoes nor waits for a line; its settings are restored afterwards, and by the
/// signal guard if a signal ends jv meanwhile.
enum TerminalProbe {
    static let queries = Array("\u{1B}_Gi=\(TerminalAnswers.queryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[>0q\u{1B}[c".utf8)

    /// Long enough for a terminal across a network, short enough not to be noticed when one
    /// stays silent.
    static let timeout = Duration.milliseconds(150)

    /// The answers of the terminal on `input` and `output`, or nil when it was not asked.
    static func ask(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, timeout: Duration = timeout) -> TerminalAnswers? {
        guard sameTerminal(input, output) else { return nil }
        // tcgetpgrp fails for a terminal that is not jv's controlling one, which cannot stop it.
        let foreground = tcgetpgrp(output)
        guard foreground < 0 || foreground == getpgrp() else { return nil }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ICANON | ECHO)
        jv_guard_terminal(input)
        defer {
            _ = tcsetattr(input, TCSANOW, &saved)
            jv_guard_terminal(-1)
        }
        guard tcsetattr(input, TCSANOW, &quiet) == 0, writeAll(queries, to: output) else { return nil }
        let clock = ContinuousClock(), deadline = clock.now + timeout
        var received: [UInt8] = []
        var answers = TerminalAnswers(parsing: [])
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !answers.complete {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { break }
            var ready = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: (left.components.seconds * 1000) + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let status = poll(&ready, 1, milliseconds)
            if status < 0 && errno == EINTR { continue }
            guard status > 0 else { break }
            let count = read(input, &buffer, buffer.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { break }
            received += buffer[..<count]
            answers = TerminalAnswers(parsing: received)
        }
        return answers
    }

    /// Whether `input` and `output` are both terminals, and the same one: answers come back on
    /// the terminal the questions went to.
    private static func sameTerminal(_ input: Int32, _ output: Int32) -> Bool {
        guard isatty(input) == 1, isatty(output) == 1 else { return false }
        var inputStatus = stat(), outputStatus = stat()
        guard fstat(input, &inputStatus) == 0, fstat(output, &outputStatus) == 0 else { return false }
        return inputStatus.st_rdev == outputStatus.st_rdev
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
