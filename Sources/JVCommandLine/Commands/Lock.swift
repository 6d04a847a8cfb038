// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv lock`: ends the session `jv unlock` started; the agent wipes the key and exits.
struct Lock: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "End the vault's session now (with --all: every session of yours).")

    @OptionGroup var options: GlobalOptions

    @Flag(help: "End the sessions of every vault.")
    var all = false

    func execute() throws {
        let ended = all ? try Vault.lockAllSessions() : try options.openVault(access: .readOnly).lockSession() ? 1 : 0
        if options.json {
            options.output.printJSON(.object([("ended", .integer(Int64(ended)))]))
        } else if all {
            Console.out(ended == 0 ? "No session was open." : "Ended \(ended) session\(ended == 1 ? "" : "s").")
        } else {
            Console.out(ended == 0 ? "No session was open for this vault." : "Locked: the session is over.")
        }
    }
}
