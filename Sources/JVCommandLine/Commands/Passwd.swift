// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault
import VaultCrypto

/// `jv passwd`: change the passphrase (re-wraps the key; records are untouched).
struct Passwd: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the passphrase. Only the key wrapping changes; no record is re-encrypted.",
        discussion: """
            Unlock with the current passphrase (or the recovery key, if you forgot it). The new one is \
            read from --new-passphrase-file or $JV_NEW_PASSPHRASE_FILE, else asked twice on the terminal.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("Read the new passphrase from the first line of this file.", valueName: "path"), completion: .file())
    var newPassphraseFile: String?

    @Option(help: "New Argon2id cost profile (default: keep the current cost).")
    var kdf: KDFParameters.Profile?

    func execute() throws {
        let journal = try options.unlockedVault(throughSession: false)
        let newPassphrase: SecureBytes
        if let path = newPassphraseFile ?? ProcessInfo.processInfo.environment["JV_NEW_PASSPHRASE_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            var newOptions = GlobalOptions()
            newOptions.passphraseFile = path
            guard case .passphrase(let secret) = try Credentials(options: newOptions).forUnlocking() else {
                throw CLIError.failed("Cannot read the new passphrase.")
            }
            Credentials.warnIfShort(secret)
            newPassphrase = secret
        } else {
            newPassphrase = try Credentials.askTwice(prompt: "New passphrase: ")
        }
        try journal.changePassphrase(to: newPassphrase, kdf: kdf.map(KDFParameters.profile))
        Console.note("Passphrase changed.")
    }
}
