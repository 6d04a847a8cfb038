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
        FileHandle.standardError.write(Data(("jv: " + text + "\n").utf8))
    }

    /// A note on standard error without the prefix (warnings the user should read).
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// All of standard input, as bytes.
    static func readStandardInput() -> [UInt8] {
        Array(FileHandle.standardInput.readDataToEndOfFile())
    }
}
