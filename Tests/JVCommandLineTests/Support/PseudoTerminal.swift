// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A pseudo-terminal: jv's end (`terminal`), and the end the test plays the terminal on.
final class PseudoTerminal {
    let terminal: Int32
    let screen: Int32

    init() throws {
        var primary: Int32 = -1, replica: Int32 = -1
        try #require(openpty(&primary, &replica, nil, nil, nil) == 0, "openpty: \(String(cString: strerror(errno)))")
        (screen, terminal) = (primary, replica)
    }

    deinit {
        close(terminal)
        close(screen)
    }

    /// The local modes (echo, lines) jv's end is in.
    var localModes: tcflag_t {
        var settings = termios()
        tcgetattr(terminal, &settings)
        return settings.c_lflag
    }

    /// Plays the terminal while `body` runs: reads what is written to it until DA1's
    /// question has come, then sends `answer` (nil: answers nothing). Returns `body`'s result
    /// and what the terminal was sent.
    func answering<T>(_ answer: String?, _ body: () -> T) -> (T, [UInt8]) {
        let screen = self.screen
        let received = Received()
        let player = Thread {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 256)
            let question = Array("\u{1B}[c".utf8)
            while !bytes.suffix(question.count).elementsEqual(question) {
                var ready = pollfd(fd: screen, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 5000) > 0 else { break }
                let count = read(screen, &buffer, buffer.count)
                guard count > 0 else { break }
                bytes += buffer[..<count]
            }
            if let answer { _ = Array(answer.utf8).withUnsafeBytes { write(screen, $0.baseAddress, $0.count) } }
            received.finish(bytes)
        }
        player.start()
        let result = body()
        return (result, received.wait())
    }

    /// What the terminal side read, handed from its thread to the test's.
    final class Received: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var bytes: [UInt8] = []

        func finish(_ bytes: [UInt8]) {
            self.bytes = bytes
            done.signal()
        }

        func wait() -> [UInt8] {
            done.wait()
            return bytes
        }
    }
}
