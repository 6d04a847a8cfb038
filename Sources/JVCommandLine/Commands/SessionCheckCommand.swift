// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// The whole-vault check a session runs once in the background: `jv unlock` starts jv again with
/// this hidden command, which unlocks through the new session, verifies every record and the
/// row-set manifest (as `jv check`), and leaves the number of problems found in the session
/// folder, where the next command through the session finds it and warns (``report(for:)``).
/// Not for people to run.
struct SessionCheckCommand: VaultCommand {
    static let name = "session-check"
    static let configuration = CommandConfiguration(commandName: name, shouldDisplay: false)

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        // Through the session only: a background process never asks for a passphrase.
        guard let journal = try Vault.open(at: options.vaultPath, access: .readOnly).unlockThroughSession() else { return }
        try Self.waitForTheIndex(of: journal.vault)
        let problems = try journal.check().problems.count
        guard let path = try journal.vault.sessionCheckFile() else { return }
        try Data("\(problems)\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Waits while the session's agent makes its first index, which decrypts every record as
    /// the check does: on two cores the two halved each other's speed, and people wait for the
    /// index (the check only reports later). Not for longer than ``longestWait``.
    private static func waitForTheIndex(of vault: Vault) throws {
        let deadline = ContinuousClock.now + longestWait
        while try vault.session()?.index?.state == .building, ContinuousClock.now < deadline {
            usleep(100_000)
        }
    }

    static let longestWait = Duration.seconds(600)

    /// Starts the check of `vault` in the background, detached, its outcome of an earlier session gone.
    /// Not waited for: it outlives this jv, in a process group of its own, which a Ctrl-C at the
    /// terminal does not reach.
    static func start(_ vault: Vault) throws {
        if let path = try vault.sessionCheckFile() { unlink(path) }
        _ = try ChildProcess(try Unlock.ownExecutable(), arguments: [name, "--vault", vault.path])
            .spawn(standardInput: .null, standardOutput: .null, standardError: .null, ownProcessGroup: true)
    }

    /// Warns, once, when the session's background check of `vault` found problems (its outcome is
    /// taken away as it is read).
    static func report(for vault: Vault) {
        guard let path = try? vault.sessionCheckFile(), let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        unlink(path)
        guard let problems = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), problems > 0 else { return }
        Console.note("jv: warning: the check of the whole vault this session ran in the background found \(problems) "
                     + "problem\(problems == 1 ? "" : "s") (records deleted, rolled back, replaced or damaged behind jv's back); "
                     + "run 'jv check' to see them.")
    }
}
