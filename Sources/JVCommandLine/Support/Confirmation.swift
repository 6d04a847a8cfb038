// SPDX-License-Identifier: Apache-2.0
/// Destructive commands ask first when a person is at a terminal.
enum Confirmation {
    /// Asks `question` on the terminal unless `skip` or standard input is not a terminal;
    /// throws if the answer is not yes.
    static func ask(_ question: String, unless skip: Bool) throws {
        try ask(question, unless: skip, declined: "Nothing was deleted.", withoutTerminal: nil)
    }

    /// Asks `question` on the terminal unless `skip`; throws `declined` (exit 1) if the answer is
    /// not yes. With no terminal to ask on it goes ahead, or, when `withoutTerminal` is given,
    /// refuses with it (64): for deletions a script did not name.
    static func ask(_ question: String, unless skip: Bool, declined: String, withoutTerminal refusal: String?) throws {
        guard !skip else { return }
        guard Console.stdinIsTerminal, let terminal = Terminal.open() else {
            if let refusal { throw CLIError.usage(refusal) }
            return
        }
        defer { terminal.close() }
        guard terminal.confirm(question) else { throw CLIError.cancelled(declined) }
    }
}
