// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CProcessHygiene
import JournalVault

/// `--model` and `--timeout` of the commands that run a local model command (`jv analyze`, `jv
/// chat ask`, `jv digest --command`), and how they run it: whatever the command starts, even
/// after `setsid`, stays below jv and is ended once it has answered or timed out (jv has no other
/// children then).
///
/// ```swift
/// @OptionGroup var model: ModelOptions
/// let answer = try ModelOptions.confiningChildren { try journal.answerThread(id: id, with: model.responder(command: command)) }
/// ```
struct ModelOptions: ParsableArguments {
    @Option(help: "The model name to store (default: the answer's \"model\", else \"local\"); a chat or digest command is asked for it.")
    var model: String?

    @Option(help: "Seconds to wait for each answer.")
    var timeout: Double = 120

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
    }

    var timeLimit: Duration { .milliseconds(Int64(timeout * 1000)) }

    func responder(command: String) -> ChatResponder {
        ChatResponder(command: command, model: model, timeout: timeLimit)
    }

    func analyser(command: String) -> Analyser {
        Analyser(command: command, model: model, timeout: timeLimit)
    }

    /// Runs `body`, which runs a model command, as the subreaper of everything that command
    /// starts, and ends whatever of it is left afterwards.
    static func confiningChildren<Result>(_ body: () throws -> Result) rethrows -> Result {
        _ = jv_become_subreaper()
        defer { jv_end_descendants() }
        return try body()
    }
}
