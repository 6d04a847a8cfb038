// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// The whole-file rollback warning: this account's marks of the latest write seen to each vault
/// (``HighWaterMark``), kept in `${XDG_STATE_HOME:-~/.local/state}/jv/high-water`.
enum HighWater {
    /// The vault this process unlocked, so its mark can follow the command's own writes.
    nonisolated(unsafe) private static var unlocked: (journal: UnlockedVault, marks: HighWaterMark)?

    static func marks() -> HighWaterMark {
        HighWaterMark(stateDirectory: XDGDirectories().state + "/jv")
    }

    /// Compares `journal` with the mark remembered for it; warns, once, when it is older. A
    /// vault whose manifest is missing or damaged is refused (``VaultError/manifestDamaged(_:)``),
    /// unless `refusingDamage` is false (`jv check`, which reports it).
    static func observe(_ journal: UnlockedVault, refusingDamage: Bool = true) throws {
        let marks = marks()
        let observation: HighWaterMark.Observation
        do {
            observation = try marks.observe(journal)
        } catch let unrecorded as HighWaterMark.NotRecorded {
            Console.note("jv: warning: the mark of this vault's latest write is not kept (\(unrecorded.reason)): a later rollback of the file may go unnoticed.")
            observation = unrecorded.observation
        } catch let error as VaultError {
            if case .manifestDamaged = error, refusingDamage { throw error }
            // The mark is a warning, never a reason to fail: a state folder that cannot be
            // written (a read-only home) only loses the warning.
            return
        } catch {
            return
        }
        unlocked = (journal, marks)
        guard case .older(let seen, let found) = observation else { return }
        Console.note("""
            jv: warning: this vault is older than when this account last saw it (\(Output.count(Int(clamping: found), of: "writes")) now, \(seen) then): \
            the file may have been replaced by an older copy of itself. If you did not restore a backup or copy \
            the file back, run 'jv check' and compare with your backups. This warning is shown once.
            """)
    }

    /// Brings the mark up to the writes this command made.
    /// Lets the vault go (so its file is closed and its write-ahead log folded in at exit).
    static func update() {
        guard let (journal, marks) = unlocked else { return }
        unlocked = nil
        _ = try? marks.observe(journal)
    }

    /// After a restore: the vault may legitimately be older than its mark.
    static func forget(_ identity: UUID) {
        try? marks().forget(identity: identity)
    }
}
