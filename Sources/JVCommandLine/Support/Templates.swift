// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// Entry templates: `$XDG_CONFIG_HOME/jv/templates/NAME.md` (else `~/.config/jv/templates`),
/// plain text the person wrote, to start an entry from (`jv add --template NAME`).
enum Templates {
    static var folder: String { Config.folder + "/templates" }

    /// The text of the template `name` (a plain name: no `/`, not starting with `.`).
    static func text(named name: String) throws -> String {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw CLIError.usage("A template is named by a plain name, such as 'gratitude' for \(folder)/gratitude.md.")
        }
        let path = folder + "/" + name + ".md"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.inputNotFound("No template '\(TerminalText.visible(name))' at \(path).")
        }
        guard let text = String(validating: Array(data), as: UTF8.self) else { throw VaultError.invalidUTF8 }
        return text
    }
}
