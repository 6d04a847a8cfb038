import ArgumentParser
import JournalVault

/// `jv recovery-key`: replace the recovery key.
struct RecoveryKeyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery-key",
        abstract: "Make a new recovery key (shown once); the old one stops working.")

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        let recoveryKey = try options.unlockedVault().replaceRecoveryKey()
        if options.json {
            options.output.printJSON(.object([("recovery_key", .string(recoveryKey.text))]))
        } else {
            Console.out("New recovery key — write it down; it is shown only now. The old one no longer opens the vault.")
            Console.out("")
            Console.out("    " + options.output.bold(recoveryKey.text))
        }
    }
}
