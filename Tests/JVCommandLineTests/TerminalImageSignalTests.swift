// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation
@testable import JVCommandLine
import Testing

/// A signal that ends jv while it waits for the terminal's answers leaves the terminal as it
/// was: the signal guard puts back the settings saved before. The waiting runs in a process of
/// its own (an exit test), which installs the guard as `jv`'s main does and is interrupted
/// well after it has started waiting on a terminal that never answers.
@Suite("Terminal images: detection cut short by a signal", .tags(.inProcess))
struct TerminalImageSignalTests {
    @Test("SIGINT while waiting: the terminal's echo and line mode come back")
    func interrupted() async throws {
        let pty = try PseudoTerminal()
        let path = String(cString: try #require(ttyname(pty.terminal)))
        let before = pty.localModes
        await #expect(processExitsWith: .signal(SIGINT)) { [path = path as String] in
            _ = jv_install_signal_guard()
            let terminal = open(path, O_RDWR | O_NOCTTY)
            let interrupt = Thread {
                // Long enough for the questions to be written and echo turned off.
                Thread.sleep(forTimeInterval: 0.2)
                kill(getpid(), SIGINT)
            }
            interrupt.start()
            _ = TerminalProbe.ask(input: terminal, output: terminal, timeout: .seconds(10))
        }
        #expect(pty.localModes == before)
    }
}
