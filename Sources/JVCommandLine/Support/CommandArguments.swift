// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The command line, taken once at start-up and then wiped from the process's memory.
///
/// Any local user can read `/proc/PID/cmdline`, and entry text given as an argument
/// (`jv add "…"`) would stay there for the whole run, Argon2id included. Once copied, every
/// argument after the program's name is overwritten with zeros, as database clients do with a
/// password given on the command line, so the text is visible only while the process starts.
///
/// ```swift
/// let arguments = try CommandArguments.take()   // ["add", "Dear diary"]; cmdline now "jv"
/// ```
enum CommandArguments {
    /// An argument that is not valid UTF-8 (1-based position after the program's name).
    struct InvalidUTF8: Error, CustomStringConvertible {
        let position: Int
        var description: String {
            "Argument \(position) is not valid UTF-8 text; jv keeps text exactly, so it refuses text it cannot read as UTF-8."
        }
    }

    /// The arguments after the program's name, each valid UTF-8; the originals are wiped
    /// whether or not they were.
    static func take() throws(InvalidUTF8) -> [String] {
        let count = Int(CommandLine.argc)
        var arguments: [String] = []
        var invalid: Int?
        for index in 1..<max(count, 1) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            if let text = String(validatingCString: pointer) {
                arguments.append(text)
            } else if invalid == nil {
                invalid = index
            }
            memset(pointer, 0, strlen(pointer))
        }
        if let invalid { throw InvalidUTF8(position: invalid) }
        return arguments
    }
}
