// SPDX-License-Identifier: Apache-2.0
import JournalVault

/// Where a command's entry text comes from: its arguments, else standard input when that is
/// not a terminal, else the editor.
enum EntryText {
    /// Text from the arguments or standard input, validated; nil when the editor is to be used
    /// (standard input is a terminal). Read before unlocking, so bad input costs no key work.
    static func given(arguments: [String]) throws -> String? {
        if !arguments.isEmpty { return try ContentRules.validated(arguments.joined(separator: " ")) }
        if !Console.stdinIsTerminal { return try ContentRules.text(fromUTF8: Console.readStandardInput()) }
        return nil
    }

    /// Text written in the editor, starting from `current`; nil if it was left unchanged.
    /// Called after unlocking, so nothing typed is lost to a wrong passphrase; text the content
    /// rules refuse is offered for editing again (``Editor/edit(_:accepting:)``).
    static func fromEditor(editing current: String = "") throws -> String? {
        try Editor.edit(current) { edited in
            if ContentRules.isBlank(utf8: edited) && current.isEmpty { return nil }
            let text = try ContentRules.text(fromUTF8: edited)
            // Unchanged up to the white space saving trims (a template's last line break).
            return text == current || text == (try? ContentRules.validated(current)) ? nil : text
        }
    }
}
