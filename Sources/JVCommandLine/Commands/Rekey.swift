// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv rekey`: rotate the master key.
struct Rekey: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Rotate the master key: re-encrypt every record under a new one, in one transaction.",
        discussion: """
            Unlock with the passphrase; it stays the same. Every record of every table is re-encrypted \
            under a new random master key (key version + 1), the blind indexes and the row-set manifest \
            are recomputed and the keyslots re-wrapped — all or nothing, even if jv is killed midway.

            The recovery key: give the current one with --keep-recovery-key FILE to keep it (it is \
            checked first and re-wrapped); otherwise a new recovery key is printed once, just before the \
            rotation commits, and the old one stops working when it does. Interrupted before that, the \
            vault is unchanged and the old recovery key still opens it; after it, the one printed does.

            What it protects against: someone who has an old copy of the vault file and a passphrase or \
            recovery key that was valid for it, or the old master key itself, can read that old copy but \
            nothing written after the rotation. Backups made before it still restore with the secrets \
            they were made with.

            A vault that syncs (jv sync): the other machines follow at their next jv sync, with their \
            passphrase, through a rotation file in the sync location that holds the new key under the old \
            one — so there, someone with the old key who can also read the sync location learns the new \
            key (SECURITY.md). Rotate on one machine at a time.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: ArgumentHelp("Keep the recovery key in this file (checked, then re-wrapped) instead of making a new one.",
                               valueName: "path"), completion: .file())
    var keepRecoveryKey: String?

    func execute() throws {
        let kept = try keepRecoveryKey.map { path -> RecoveryKey in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError.inputNotFound("Cannot read the recovery key file \(path).")
            }
            return try RecoveryKey(text: String(decoding: data, as: UTF8.self))
        }
        let journal = try options.unlockedVault(throughSession: false)
        let progress = Progress("Re-encrypted")
        // Everything is printed before the commit (a failed write rolls the rotation back): a
        // kill at any moment leaves a recovery key the person holds — the old one until the
        // commit, the one printed after it.
        let (rekeyed, summary) = try journal.rekey(keepingRecoveryKey: kept, progress: { progress.update($0, of: $1) }) { summary in
            progress.finish()
            try show(summary)
        }
        try HighWater.observe(rekeyed, refusingDamage: false)
        // The old key may be what prompted the rotation: an agent holding it wipes it now.
        let endedSession = (try? journal.vault.lockSession()) ?? false
        if !options.json {
            let total = summary.records.values.reduce(0, +)
            Console.note("Master key rotated to version \(summary.keyVersion): \(total) record\(total == 1 ? "" : "s") re-encrypted."
                         + (endedSession ? " The session holding the old key was ended ('jv unlock' opens a new one)." : ""))
        }
    }

    private func show(_ summary: RekeySummary) throws {
        if options.json {
            var members: [(String, JSONValue)] = [
                ("key_version", .integer(Int64(summary.keyVersion))),
                ("records", .object(summary.records.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })),
            ]
            members.append(("recovery_key", summary.newRecoveryKey.map { .string($0.text) } ?? .null))
            try Console.outOrThrow([JSONValue.object(members).serialized(pretty: true)])
        } else if let key = summary.newRecoveryKey {
            try Console.outOrThrow(["New recovery key — write it down; it is shown only now. It opens the vault once jv reports",
                                    "the rotation done below; until then (or if it never does) the old one still does.",
                                    "", "    " + options.output.bold(key.text)])
        } else {
            Console.note("The recovery key is unchanged.")
        }
    }
}
