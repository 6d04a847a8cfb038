// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The programs of the repository's `examples/` that end-to-end tests give `jv` as `--command`
/// (VaderAnalyserTests, OllamaExampleTests), found from this file's path, and the shell quoting
/// of the command lines that run them.
///
/// ```swift
/// let command = try Examples.vaderCommand()   // "'/…/.build-tools/vader/bin/python' '/…/examples/vader/analyser.py'"
/// ```
enum Examples {
    /// The checkout this file is in.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The absolute path of `relative`, a path inside the checkout.
    static func path(_ relative: String) -> String {
        repository.appendingPathComponent(relative).path
    }

    /// `text` as one word for `/bin/sh`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The command line of `examples/vader/analyser.py` run by the virtual environment's Python
    /// that `examples/vader/setup.sh` makes (`make test-deps` runs it). Without that
    /// environment it throws, saying how to make it: the example's test is part of the suite.
    static func vaderCommand() throws -> String {
        let python = path(".build-tools/vader/bin/python")
        guard access(python, X_OK) == 0 else {
            throw HarnessError("VADER is not installed at \(python): run 'make test-deps' (or examples/vader/setup.sh), which installs vaderSentiment from PyPI there.")
        }
        return quoted(python) + " " + quoted(path("examples/vader/analyser.py"))
    }
}
