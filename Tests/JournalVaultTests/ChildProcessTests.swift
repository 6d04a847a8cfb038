// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// Every child jv starts (``ChildProcess``, and through it ``ShellCommand``): its arguments and
/// standard descriptors as given, none of jv's other descriptors, no signal blocked or ignored,
/// and how it ended as a shell says it.
@Suite("Child processes")
struct ChildProcessTests {
    /// Runs `child` with its standard output into a pipe; what it printed and how it ended.
    private func output(_ start: (Int32) throws -> pid_t) throws -> (text: String, ended: Termination) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let pid: pid_t
        do {
            pid = try start(ends[1])
        } catch {
            close(ends[1])
            throw error
        }
        close(ends[1])
        let text = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        return (text, Termination(waitingFor: pid))
    }

    @Test("A program gets its arguments as given, and /dev/null where asked")
    func argumentsAndNull() throws {
        let printed = try output { out in
            try ChildProcess("/bin/sh", arguments: ["-c", #"printf '%s|' "$0" "$@"; cat; echo "[$(cat)]""#, "--", "two words", "-x", ""])
                .spawn(standardInput: .null, standardOutput: .descriptor(out))
        }
        #expect(printed.text == "--|two words|-x||[]\n")
        #expect(printed.ended == .exited(0))
        let nothing = try output { out in
            try ChildProcess("/bin/sh", arguments: ["-c", "echo to-stderr >&2; echo to-stdout"])
                .spawn(standardOutput: .descriptor(out), standardError: .null)
        }
        #expect(nothing.text == "to-stdout\n")
    }

    @Test("No descriptor of jv's is open in the child but the three it is given")
    func noInheritedDescriptors() throws {
        // Opened as Foundation and older code open files: without close-on-exec.
        let held = open("/dev/null", O_RDONLY)
        try #require(held > STDERR_FILENO)
        defer { close(held) }
        let check = "[ -e /proc/$$/fd/\(held) ] && echo open || echo closed"
        let direct = try output { out in try ChildProcess("/bin/sh", arguments: ["-c", check]).spawn(standardOutput: .descriptor(out)) }
        #expect(direct.text == "closed\n")
        let shell = try output { out in try ShellCommand(check).spawn(standardInput: STDIN_FILENO, standardOutput: out) }
        #expect(shell.text == "closed\n")
    }

    @Test("The child starts with no signal blocked or ignored, SIGPIPE included")
    func signals() throws {
        let printed = try output { out in
            try ChildProcess("/bin/sh", arguments: ["-c", "exec grep -E '^(SigBlk|SigIgn):' /proc/self/status"]).spawn(standardOutput: .descriptor(out))
        }
        let masks = Dictionary(uniqueKeysWithValues: printed.text.split(separator: "\n").map { line in
            (String(line.prefix { $0 != ":" }), UInt64(line.split(separator: "\t").last ?? "", radix: 16) ?? .max)
        })
        #expect(masks["SigBlk"] == 0, "\(printed.text)")
        let pipeBit: UInt64 = 1 << (UInt64(SIGPIPE) - 1)
        #expect(masks["SigIgn"].map { $0 & pipeBit == 0 } == true, "\(printed.text)")
    }

    @Test("How a child ended: its exit status, or 128 + the signal that ended it")
    func termination() throws {
        let exited = try output { out in try ChildProcess("/bin/sh", arguments: ["-c", "exit 3"]).spawn(standardOutput: .descriptor(out)) }
        #expect(exited.ended == .exited(3) && exited.ended.shellStatus == 3)
        let killed = try output { out in try ChildProcess("/bin/sh", arguments: ["-c", "kill -9 $$"]).spawn(standardOutput: .descriptor(out)) }
        #expect(killed.ended == .signalled(SIGKILL) && killed.ended.shellStatus == 137)
    }

    @Test("A program that cannot be started is said with strerror's words")
    func cannotStart() {
        #expect(throws: ChildProcessError.self) {
            try ChildProcess("/nonexistent/jv-no-such-program", arguments: []).spawn()
        }
        do {
            _ = try ChildProcess("/nonexistent/jv-no-such-program", arguments: []).spawn()
        } catch {
            #expect(error.reason == String(cString: strerror(ENOENT)))
        }
    }
}
