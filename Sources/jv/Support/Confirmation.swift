/// Destructive commands ask first when a person is at a terminal.
enum Confirmation {
    /// Asks `question` on the terminal unless `skip` or standard input is not a terminal;
    /// throws if the answer is not yes.
    static func ask(_ question: String, unless skip: Bool) throws {
        guard !skip, Console.stdinIsTerminal, let terminal = Terminal.open() else { return }
        defer { terminal.close() }
        guard terminal.confirm(question) else { throw CLIError.cancelled("Nothing was deleted.") }
    }
}
