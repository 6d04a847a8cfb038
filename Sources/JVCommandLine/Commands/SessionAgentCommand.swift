// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// The session agent's entry point: `jv unlock` starts jv again with this hidden command and
/// hands it the key on standard input. Not for people to run.
struct SessionAgentCommand: ParsableCommand {
    static let name = "session-agent"
    static let configuration = CommandConfiguration(commandName: name, shouldDisplay: false)

    func run() throws {
        throw ExitCode(SessionAgent.run())
    }
}
