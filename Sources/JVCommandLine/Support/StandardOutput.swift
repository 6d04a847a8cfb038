// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CProcessHygiene
import Foundation
import JournalVault

/// Standard output for answers that may be long (listings, searches, exports), written while
/// the records are still being decrypted. To a pipe or a file it is written 64 KiB at a time;
/// to a terminal as each piece comes, through the pager (``Pager``) once it is longer than the
/// screen. A reader that goes away (`jv list | head -1`) ends the command quietly: SIGPIPE, or
/// where SIGPIPE is ignored, ``OutputClosed``.
final class StandardOutput {
    private static let bufferLimit = 64 * 1024
    private let toTerminal = Console.stdoutIsTerminal
    private var pending: [UInt8] = []
    private var descriptor = STDOUT_FILENO
    /// Set while the output might still fit the screen: the pager waits for it not to.
    private var screen: Screen?
    private var pager: pid_t?

    /// `pager`: the pager to use if standard output is a terminal and the answer outgrows it.
    private init(pager: Pager?) {
        if toTerminal, let pager { screen = Screen(pager: pager) }
    }

    /// Runs `body` with standard output, then writes what is left; with a pager, waits for it
    /// to be quit (also when `body` fails, so that the error is printed after the pager has
    /// given the terminal back).
    static func with(pager: Pager? = nil, _ body: (StandardOutput) throws -> Void) throws {
        let output = StandardOutput(pager: pager)
        defer { output.closePager() }
        do {
            try body(output)
        } catch {
            try? output.flush(final: true)
            throw error
        }
        try output.flush(final: true)
    }

    /// Appends `text`.
    func write(_ text: String) throws {
        pending += text.utf8
        guard var screen else { return try flushIfDue() }
        guard screen.fits(text) else { return try startPager(screen.pager) }
        self.screen = screen
    }

    /// Appends `bytes`.
    func write(_ bytes: [UInt8]) throws {
        pending += bytes
        try flushIfDue()
    }

    /// Writes what is pending once there is enough of it, or at once to a terminal.
    private func flushIfDue() throws {
        if screen == nil && (toTerminal || pending.count >= Self.bufferLimit) { try flush() }
    }

    /// Appends `text` and a line break.
    func line(_ text: String) throws {
        try write(text + "\n")
    }

    /// Writes everything pending; `final`: the answer is complete (a short one is printed
    /// without the pager).
    private func flush(final: Bool = false) throws {
        if screen != nil && !final { return }
        screen = nil
        var offset = 0
        defer { pending.removeFirst(offset) }
        while offset < pending.count {
            let written = pending[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { throw OutputClosed(byPager: pager != nil) }
                throw CLIError.failed("Cannot write to standard output: \(String(cString: strerror(errno))).")
            }
            offset += written
        }
    }

    /// Starts the pager, hands it what is pending and everything after it.
    private func startPager(_ chosen: Pager) throws {
        screen = nil
        guard let (pid, input) = chosen.start() else { return try flush() }
        pager = pid
        descriptor = input
        // The pager quitting early is the user's choice, not an error: EPIPE, not SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        jv_guard_pager(pid, input)
        try flush()
    }

    private func closePager() {
        guard let pager else { return }
        jv_guard_pager(0, -1)
        close(descriptor)
        _ = Termination(waitingFor: pager)
    }

    /// How much of the terminal the output has filled so far: lines of `columns`, escape
    /// sequences taking no room.
    private struct Screen {
        let pager: Pager
        private let rows: Int
        private let columns: Int
        private var used = 0
        private var column = 0

        init(pager: Pager) {
            self.pager = pager
            var size = winsize()
            let environment = ProcessInfo.processInfo.environment
            let known = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_row > 0 && size.ws_col > 0
            rows = known ? Int(size.ws_row) : environment["LINES"].flatMap(Int.init) ?? 24
            columns = known ? Int(size.ws_col) : environment["COLUMNS"].flatMap(Int.init) ?? 80
        }

        /// Counts `text` in; false once the output needs more lines than the screen shows
        /// besides the prompt's.
        mutating func fits(_ text: String) -> Bool {
            var inEscape = false
            for scalar in text.unicodeScalars {
                if inEscape {
                    inEscape = !(0x40...0x7E).contains(scalar.value) || scalar == "["
                    continue
                }
                switch scalar {
                case "\u{1B}": inEscape = true
                case "\n":
                    used += 1
                    column = 0
                default:
                    column += 1
                    if column > columns {
                        used += 1
                        column = 1
                    }
                }
            }
            return used + (column > 0 ? 1 : 0) < rows
        }
    }
}

/// The reader of standard output went away: nothing to say, the command just stops. Exit
/// status 0 when it was the pager (the user quit it), else 141, as if SIGPIPE had ended jv.
struct OutputClosed: Error {
    let byPager: Bool
    var status: Int32 { byPager ? 0 : 128 + SIGPIPE }
}

/// The pager for answers longer than the screen: `$JV_PAGER`, else `$PAGER`, else `less`;
/// either variable set but empty means none. `less` gets `LESS=FRX` unless `$LESS` is set
/// (colours shown, and the text left on the screen when it quits).
struct Pager {
    let command: String

    /// The pager to use, or nil when `--no-pager`, or the variables turn it off.
    static func chosen(disabled: Bool) -> Pager? {
        guard !disabled else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let command = environment["JV_PAGER"] ?? environment["PAGER"] ?? "less"
        return command.trimmingCharacters(in: .whitespaces).isEmpty ? nil : Pager(command: command)
    }

    /// The running pager and the descriptor of its standard input, or nil if it could not start
    /// (the output then goes to the terminal as it is). It stays in jv's process group, the
    /// terminal's foreground, so that it reads the keyboard.
    func start() -> (pid: pid_t, input: Int32)? {
        var ends: [Int32] = [-1, -1]
        // Close-on-exec: only the pager's standard input (a copy) reaches the pager.
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        defer { close(ends[0]) }
        guard let pid = try? ShellCommand(command).spawn(standardInput: ends[0], setting: ["LESS": "FRX"]) else {
            close(ends[1])
            return nil
        }
        return (pid, ends[1])
    }
}

/// `--no-pager`, for the commands whose answers may be long.
struct PagerOption: ParsableArguments {
    @Flag(name: .customLong("no-pager"), help: "Never show the output through $PAGER (only used on a terminal, for more than a screen).")
    var noPager = false

    var pager: Pager? { Pager.chosen(disabled: noPager) }
}
