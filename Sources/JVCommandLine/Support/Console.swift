// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Standard output and standard error, written unbuffered-safe.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Lines on standard output that must arrive (a new recovery key): throws if they could not
    /// be written, instead of going on as if they had been.
    static func outOrThrow(_ lines: [String]) throws {
        try FileHandle.standardOutput.write(contentsOf: Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    /// One line on standard error, prefixed with `jv:`.
    static func error(_ text: String) {
        note("jv: " + text)
    }

    /// A note on standard error without the prefix (warnings the user should read). A message
    /// may quote what it is about (a file's value, an analyser's reason): on a terminal its
    /// control characters are shown, not acted on.
    static func note(_ text: String) {
        let shown = isatty(STDERR_FILENO) == 1 ? TerminalText.visible(text) : text
        FileHandle.standardError.write(Data((shown + "\n").utf8))
    }

    /// Said before decrypted journal text goes to the terminal (`jv export`, `jv report`).
    static func warnOfDecryptedTextOnTerminal() {
        note("jv: warning: writing decrypted journal text to the terminal.")
    }

    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    /// Asked once: a listing asks for every field it prints, and standard output stays put.
    static let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1

    /// All of standard input, as bytes.
    static func readStandardInput() -> [UInt8] {
        Array(FileHandle.standardInput.readDataToEndOfFile())
    }
}
