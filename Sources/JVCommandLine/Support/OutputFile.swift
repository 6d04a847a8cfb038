// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// A file the user asked jv to create (`backup FILE`, `export --output PATH`), checked before
/// the passphrase is asked for: a mistyped folder is said as such, not as a hidden temporary
/// file beside it that could not be made.
enum OutputFile {
    static func check(_ path: String, replace: Bool) throws {
        if !replace, FileManager.default.fileExists(atPath: path) { throw VaultError.vaultExists(path: path) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw CLIError.cannotCreate("Cannot create \(path): the folder \(folder) does not exist.")
        }
        guard isFolder.boolValue else { throw CLIError.cannotCreate("Cannot create \(path): \(folder) is not a folder.") }
        guard access(folder, W_OK) == 0 else { throw CLIError.cannotCreate("Cannot create \(path): the folder \(folder) is not writable.") }
    }
}
