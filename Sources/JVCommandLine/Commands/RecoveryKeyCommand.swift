// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv recovery-key`: replace the recovery key.
struct RecoveryKeyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery-key",
        abstract: "Make a new recovery key (shown once); the old one stops working.")

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        let journal = try options.unlockedVault(throughSession: false)
        // Added, shown, then the old one retired: killed at any moment, some recovery key the
        // person holds still opens the vault (the old one until the new one has been printed).
        let added = try journal.addRecoveryKey()
        if options.json {
            try Console.outOrThrow([JSONValue.object([("recovery_key", .string(added.key.text))]).serialized(pretty: true)])
        } else {
            try Console.outOrThrow(["New recovery key — write it down; it is shown only now. The old one no longer opens the vault.",
                                    "", "    " + options.output.bold(added.key.text)])
        }
        try journal.retireRecoveryKeys(keeping: added)
    }
}
