// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv unlock`: unlock once, then every command on this vault runs without a passphrase for a
/// while — a session agent holds the key (SECURITY.md "Sessions").
struct Unlock: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the vault for a while: commands need no passphrase until the session ends.",
        discussion: """
            A small agent process keeps the key in locked memory and hands it only to your own \
            commands. The session ends --for after its last use (default: the config file's \
            session, else 15m), 8 hours after unlocking at the latest, or at 'jv lock'. 'jv info' \
            shows it; --no-agent on any command ignores it. passwd, rekey and recovery-key always \
            ask for the secret.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("for"), help: ArgumentHelp("How long the session lasts after each use: 90s, 15m, 2h, 1h30m (at most 8h).", valueName: "duration"))
    var length: SessionLength?

    func execute() throws {
        let length = try self.length ?? Config.current.session ?? .standard
        let journal = try options.unlockedVault(access: .readOnly, throughSession: false)
        let session = try journal.startSession(agent: [try Self.ownExecutable(), SessionAgentCommand.name],
                                               idleTimeout: TimeInterval(length.seconds), lifetime: SessionAgent.longestLifetime)
        // Reads verify only what they cheaply can (row counts); the whole vault is checked once per
        // session, in the background. Not starting it leaves the session as sessions were before it.
        try? SessionCheckCommand.start(journal.vault)
        if options.json {
            options.output.printJSON(.object([("vault", .string(journal.vault.path))] + Info.sessionFields(session)))
        } else {
            Console.out("Unlocked \(journal.vault.path) until \(Info.clock(session.expiresAt, options.output.timeFormat)) (\(length.spoken) after its last use; "
                        + "8 hours at most). 'jv lock' ends it now.")
        }
    }

    /// This binary, which the agent runs (its hidden command).
    static func ownExecutable() throws -> String {
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        guard !path.hasSuffix(" (deleted)") else {
            throw CLIError.failed("jv was replaced on disk while running (an upgrade?); run the command again.")
        }
        return path
    }
}
