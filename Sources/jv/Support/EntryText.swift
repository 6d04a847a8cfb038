import JournalVault

/// Where a command's entry text comes from: its arguments, else standard input when that is
/// not a terminal, else the editor.
enum EntryText {
    /// The text to store, validated; nil if the user left the editor empty or it failed.
    static func read(arguments: [String], editing current: String = "") throws -> String? {
        if !arguments.isEmpty { return try ContentRules.validated(arguments.joined(separator: " ")) }
        if !Console.stdinIsTerminal { return try ContentRules.text(fromUTF8: Console.readStandardInput()) }
        guard let edited = try Editor.edit(current) else {
            throw CLIError.cancelled("The editor exited with an error; nothing was saved.")
        }
        let text = try ContentRules.text(fromUTF8: edited)
        return text == current ? nil : text
    }
}
