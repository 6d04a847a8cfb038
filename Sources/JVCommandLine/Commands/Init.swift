// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault
import VaultCrypto

/// `jv init`: create the vault and show the recovery key once.
struct Init: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new vault and print its recovery key (shown only this once).")

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("Argon2id cost: interactive (≈0.1 s, 64 MiB), moderate (≈0.4 s, 256 MiB) or sensitive (≈2.5 s, 1 GiB); "
                               + "default: the config file's kdf, else moderate."))
    var kdf: KDFParameters.Profile?

    func execute() throws {
        let kdf = try self.kdf ?? Config.current.kdf ?? .moderate
        let path = try options.vaultPath
        if FileManager.default.fileExists(atPath: path) { throw VaultError.vaultExists(path: path) }
        let passphrase = try Credentials(options: options).newPassphrase(prompt: "New passphrase for \(path): ")
        let (vault, recoveryKey) = try Vault.create(at: path, passphrase: passphrase, kdf: .profile(kdf))
        let info = try vault.vault.info()
        if options.json {
            options.output.printJSON(.object([
                ("vault", .string(path)), ("vault_id", .string(info.vaultID.uuidString.lowercased())),
                ("kdf", .string(kdf.rawValue)), ("recovery_key", .string(recoveryKey.text)),
            ]))
        } else {
            let output = options.output
            Console.out("Created \(path) (KDF: \(kdf.rawValue)).")
            Console.out("")
            Console.out("Recovery key — write it down and keep it apart from this computer. It is shown only now;")
            Console.out("with it you can open the vault if you forget the passphrase (give it to any command with --recovery-key-file FILE).")
            Console.out("")
            Console.out("    " + output.bold(recoveryKey.text))
        }
    }
}

extension KDFParameters.Profile: ExpressibleByArgument {}
