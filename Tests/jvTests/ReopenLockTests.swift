// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto
import Testing

/// A process that holds a vault open and opens it again (the benchmark does; so may any program
/// using the library) keeps SQLite's locks on it. On Linux, closing *any* descriptor of a file
/// drops *all* the process's POSIX record locks on it, SQLite's included; opening must therefore
/// never open and close a descriptor of its own on the vault file. Without its locks the first
/// process looks gone: a `jv` command closing the vault believes it is the last connection,
/// folds the write-ahead log in and removes the `-wal` and `-shm` files from under it, and the
/// first process's next read may fail with "database disk image is malformed", or its next
/// write go to a log nobody else can see.
@Suite("Opening a vault again in the same process", .tags(.e2e))
struct ReopenLockTests {
    @Test("a vault held open and opened again keeps its -wal/-shm while a jv command writes and exits; both see each other's writes",
          arguments: [false, true])
    func reopenKeepsLocks(keepSecondOpen: Bool) throws {
        let sandbox = try Sandbox()
        let recoveryKey = try sandbox.installEmptyVault()
        try sandbox.add("before")

        let journal = try Vault.open(at: sandbox.vault).unlock(recoveryKey: try RecoveryKey(text: recoveryKey))
        // Reads on the pool: its connections now hold SQLite's locks on the file and its -shm.
        #expect(try journal.entries().map(\.content) == ["before"])
        #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-wal"))
        #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-shm"))

        for round in 1...3 {
            // Opening the same file again (the open that used to drop this process's locks).
            var again: Vault? = try Vault.open(at: sandbox.vault)
            if !keepSecondOpen { again = nil }

            let added = try sandbox.run(["add", "from jv, round \(round)"])
            #expect(added.status == 0, "\(added)")
            // Another connection (this process's) is open: the closing `jv` is not the last one,
            // and must leave the log and its index in place.
            #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-wal"), "round \(round): the -wal was removed under an open connection")
            #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-shm"), "round \(round): the -shm was removed under an open connection")

            // The first connection reads the child's write, and its own write reaches the next child.
            let seen = try journal.entries().map(\.content)
            #expect(seen.contains("from jv, round \(round)"), "round \(round): \(seen)")
            _ = try journal.addEntry("from the library, round \(round)")
            let listed = try sandbox.list().contents
            #expect(listed.contains("from the library, round \(round)"), "round \(round): \(listed)")
            withExtendedLifetime(again) {}
        }
        #expect(try sandbox.run(["check"]).status == 0)
    }

    /// A create killed between giving its temporary file the vault's name and removing the
    /// temporary name leaves a second name of the vault's own file. The next writing open
    /// removes it; opening it to test its lock (and closing it) dropped this process's SQLite
    /// locks on the vault, which another connection of it held open.
    @Test("a leftover second name of the vault is removed without taking the locks of a connection held open")
    func leftoverSecondNameKeepsLocks() throws {
        let sandbox = try Sandbox()
        let recoveryKey = try sandbox.installEmptyVault()
        try sandbox.add("before")
        let journal = try Vault.open(at: sandbox.vault).unlock(recoveryKey: try RecoveryKey(text: recoveryKey))
        #expect(try journal.entries().map(\.content) == ["before"])
        let url = URL(fileURLWithPath: sandbox.vault)
        let leftover = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".creating-killed").path
        #expect(link(sandbox.vault, leftover) == 0)

        _ = try Vault.open(at: sandbox.vault)
        #expect(!FileManager.default.fileExists(atPath: leftover), "the second name is removed")
        #expect(try sandbox.run(["add", "from jv"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-wal"), "the -wal was removed under an open connection")
        #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-shm"), "the -shm was removed under an open connection")
        _ = try journal.addEntry("from the library")
        #expect(try sandbox.list().contents.sorted() == ["before", "from jv", "from the library"])
        #expect(try sandbox.run(["check"]).status == 0)
    }

    /// `Vault.create` builds the vault on a locked temporary file that then takes the vault's
    /// name: the same file. Its lock descriptor, closed after the new vault was opened on the
    /// file, dropped the new pool's SQLite locks, so a vault kept open after `create` (the
    /// benchmark's; any program's) lost its `-wal`/`-shm` to the next `jv` command that wrote.
    @Test("a vault kept open after Vault.create keeps its -wal/-shm while a jv command writes and exits")
    func createKeepsLocks() throws {
        let sandbox = try Sandbox()
        let (journal, recoveryKey) = try Vault.create(at: sandbox.vault, passphrase: try SecureBytes(copying: Array(Sandbox.passphrase.utf8)),
                                                      kdf: .profile(.interactive))
        _ = try journal.addEntry("from the library")
        #expect(try journal.entries().map(\.content) == ["from the library"])

        try sandbox.add("from jv")
        #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-wal"), "the -wal was removed under the created vault's connection")
        #expect(FileManager.default.fileExists(atPath: sandbox.vault + "-shm"), "the -shm was removed under the created vault's connection")
        #expect(try journal.entries().map(\.content).sorted() == ["from jv", "from the library"])
        // A new open in this process sees the file as the other processes do.
        let again = try Vault.open(at: sandbox.vault).unlock(recoveryKey: recoveryKey)
        #expect(try again.check().isClean)
        #expect(try again.entries().map(\.content).sorted() == ["from jv", "from the library"])
        _ = try journal.addEntry("from the library, again")
        #expect(try sandbox.list().count == 3)
        #expect(try sandbox.run(["check"]).status == 0)
    }
}
