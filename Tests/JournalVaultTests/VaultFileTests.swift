// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

/// The vault file: opening, refusing what is not a vault, schema versions, file modes, and
/// what the bytes on disk reveal.
@Suite struct VaultFileTests {
    // MARK: Opening

    @Test func missingFileIsNotFound() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("nothing-here.vault")
        #expect(throws: VaultError.vaultNotFound(path: path)) { try Vault.open(at: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// An SQLite file of another program, or one with only a view where the migrations table
    /// would be, is not taken for a vault, and is left as it was: not turned to WAL mode (as a
    /// read-write open did before it was refused), nothing written into it or left beside it.
    @Test(arguments: [
        ("notes", "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')"),
        ("view", "CREATE VIEW grdb_migrations AS SELECT '0001' AS identifier"),
    ])
    func sqliteFileWithoutTheVaultSchemaIsNotAVault(label: String, schema: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("\(label).vault")
        let other = try DatabaseQueue(path: path)
        try other.write { db in try db.execute(sql: schema) }
        try other.close()
        let contents = try Data(contentsOf: URL(fileURLWithPath: path))
        for access in [Vault.Access.readWrite, .readOnly] {
            #expect(throws: VaultError.notAVault(path: path, reason: "no vault schema"), "\(label), \(access)") {
                try Vault.open(at: path, access: access)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents, "\(label), \(access)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["\(label).vault"], "\(label), \(access)")
        }
    }

    @Test(arguments: [
        ("empty", Data()),
        ("text", Data("Dear diary, this is not a database at all.\n".utf8)),
        ("short magic", Data("SQLite format".utf8)),
        ("random", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 197 &+ 11) })),
    ])
    func fileThatIsNotSQLiteIsNotAVault(label: String, contents: Data) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("\(label).vault")
        try contents.write(to: URL(fileURLWithPath: path))
        // SQLite itself refuses all but the empty file (SQLITE_NOTADB), which it would take for
        // a new database: opening looks at no byte of the file itself (see ReopenLockTests).
        let reason = contents.isEmpty ? "the file is empty" : "not an SQLite database"
        for access in [Vault.Access.readWrite, .readOnly] {
            #expect(throws: VaultError.notAVault(path: path, reason: reason), "\(label), \(access)") { try Vault.open(at: path, access: access) }
            // Refused without being changed, and nothing left beside it.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents, "\(label), \(access)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["\(label).vault"], "\(label), \(access)")
        }
    }

    @Test func sqliteDatabaseWithoutTheVaultSchemaIsNotAVault() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("other.sqlite")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hi')")
        }
        expectVaultError(where: \.isNotAVault) { try Vault.open(at: path) }
    }

    @Test func sqliteMagicFollowedByGarbageIsRefusedCleanly() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("garbage.vault")
        var bytes = Data("SQLite format 3\u{0}".utf8)
        bytes += Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: URL(fileURLWithPath: path))
        expectVaultError(where: { _ in true }) { try Vault.open(at: path) }
    }

    @Test func truncatedVaultIsRefusedCleanly() throws {
        let vault = try TemporaryVault()
        try vault.journal.addEntries((0..<300).map { index in
            Entry(content: String(repeating: "Entry \(index). ", count: 20), created: moment(hoursAfterJan5UTC: Double(index), offsetHours: 0),
                  modifiedAt: jan5UTCMillis)
        })
        _ = try vault.journal.database.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: vault.path))
        #expect(whole.count > 3 * 4096)
        for length in [4096, 2 * 4096, whole.count / 2] {
            let path = vault.folder.file("truncated-\(length).vault")
            try whole.prefix(length).write(to: URL(fileURLWithPath: path))
            // Opening, unlocking or listing fails with a VaultError, never a crash or a silent success.
            expectVaultError("truncated to \(length)", where: { _ in true }) {
                try Vault.open(at: path).unlock(passphrase: secret(TemporaryVault.passphrase)).entries()
            }
        }
    }

    @Test func vaultHeaderMissingIsNotAVault() throws {
        let vault = try TemporaryVault()
        try vault.execute("DELETE FROM vault_header")
        expectVaultError(where: \.isNotAVault) { try Vault.open(at: vault.path) }
    }

    @Test func vaultHeaderOfAnotherFormatIsNotAVault() throws {
        let vault = try TemporaryVault()
        try vault.execute("UPDATE vault_header SET format_version = 2")
        expectVaultError(where: \.isNotAVault) { try Vault.open(at: vault.path) }
    }

    // MARK: Schema versions

    @Test func newerSchemaIsRefused() throws {
        let vault = try TemporaryVault()
        try vault.execute("INSERT INTO grdb_migrations (identifier) VALUES ('9999_future')")
        let supported = VaultDatabase.supportedSchemaVersion
        #expect(throws: VaultError.newerSchema(found: supported + 1, supported: supported)) { try Vault.open(at: vault.path) }
        // Refused, not migrated or altered.
        let identifiers = try DatabaseQueue(path: vault.path).read { db in
            try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(identifiers.contains("9999_future"))
        #expect(identifiers.count == supported + 1)
    }

    @Test func newVaultIsAtTheSupportedSchemaVersion() throws {
        let vault = try TemporaryVault()
        let info = try Vault.open(at: vault.path).info()
        #expect(info.schemaVersion == VaultDatabase.supportedSchemaVersion)
        #expect(info.supportedSchemaVersion == VaultDatabase.supportedSchemaVersion)
        let applied = try vault.journal.database.appliedMigrations()
        #expect(applied.count == VaultDatabase.supportedSchemaVersion)
        #expect(applied.first == "0001_entries")
    }

    // MARK: Creating

    @Test func createRefusesAnExistingFileAndLeavesItAlone() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("taken.vault")
        let contents = Data("precious notes".utf8)
        try contents.write(to: URL(fileURLWithPath: path))
        #expect(throws: VaultError.vaultExists(path: path)) {
            try Vault.create(at: path, passphrase: secret("pw"), kdf: TemporaryVault.kdf)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }

    @Test func createRefusesAnExistingVault() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Still here.")
        #expect(throws: VaultError.vaultExists(path: vault.path)) {
            try Vault.create(at: vault.path, passphrase: secret("another"), kdf: TemporaryVault.kdf)
        }
        #expect(try vault.unlock().entry(id: entry.id) == entry)
    }

    @Test func createLeavesNoTemporaryFilesBehind() throws {
        let vault = try TemporaryVault()
        let names = try FileManager.default.contentsOfDirectory(atPath: vault.folder.url.path)
        #expect(names.filter { !$0.hasPrefix("journal.vault") } == [], "\(names)")
    }

    @Test func fileIs0600AndNewFolderIs0700EvenWithUmask022() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let folder = try TemporaryFolder()
        let path = folder.file("new-parent/new-folder/journal.vault")
        let (journal, _) = try Vault.create(at: path, passphrase: secret("pw"), kdf: TemporaryVault.kdf)
        #expect(try mode(path) == 0o600)
        #expect(try mode(folder.file("new-parent/new-folder")) == 0o700)
        #expect(try mode(folder.file("new-parent")) == 0o700)
        // The WAL and shared-memory files SQLite creates beside it take the file's mode.
        try journal.addEntry("Makes the WAL file exist.")
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            #expect(try mode(path + suffix) == 0o600, "\(suffix)")
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func existingFolderKeepsItsMode() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
        let path = folder.file("journal.vault")
        _ = try Vault.create(at: path, passphrase: secret("pw"), kdf: TemporaryVault.kdf)
        #expect(try mode(folder.url.path) == 0o755)
        #expect(try mode(path) == 0o600)
    }

    // MARK: Info without a key

    @Test func infoNeedsNoPassphrase() throws {
        let vault = try TemporaryVault()
        try vault.journal.addEntry("One.")
        try vault.journal.addEntry("Two.")
        let info = try Vault.open(at: vault.path).info()
        #expect(info.path == vault.path)
        #expect(info.formatVersion == 1)
        #expect(info.keyVersion == 1)
        #expect(info.kdf == TemporaryVault.kdf)
        #expect(info.hasRecoveryKey)
        #expect(info.counts["entries"] == 2)
        #expect(abs(info.createdAt.millis - Instant.now().millis) < 600_000)
    }

    // MARK: What the bytes reveal

    @Test func noPlaintextOrSecretsInTheFiles() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let kept = try journal.addEntry("The zebracorn grazed by the lake. #quokkatag with @wombatfriend", tags: ["platypusexplicit"])
        let edited = try journal.addEntry("First draft mentions narwhalsecret.")
        try journal.updateEntry(id: edited.id, content: "Rewritten without it.")
        let deleted = try journal.addEntry("Deleted: axolotlgone lived here. #axolotltag")
        try journal.deleteEntry(id: deleted.id)
        let needles = ["zebracorn", "quokkatag", "wombatfriend", "platypusexplicit", "narwhalsecret", "axolotlgone", "axolotltag",
                       "grazed by the lake", "Rewritten without it", TemporaryVault.passphrase].map { Data($0.utf8) }
            + [journal.keys.masterKey, journal.keys.records.recordKey, vault.recoveryKey.secret].map { $0.withUnsafeBytes { Data($0) } }
        // While the vault is open (WAL and -shm present) and after a checkpoint.
        try expectAbsent(needles, in: vault.path)
        _ = try journal.database.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try expectAbsent(needles, in: vault.path)
        // And the text is really in there, readable with the key.
        #expect(try journal.entry(id: kept.id).content.contains("zebracorn"))
    }

    // MARK: Helpers

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    private func expectAbsent(_ needles: [Data], in path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var scanned = 0
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path + suffix))
            scanned += bytes.count
            for needle in needles {
                #expect(bytes.range(of: needle) == nil, "'\(String(decoding: needle, as: UTF8.self))' in \(suffix.isEmpty ? "the vault file" : suffix)",
                        sourceLocation: sourceLocation)
            }
        }
        #expect(scanned > 0, sourceLocation: sourceLocation)
    }
}

/// A `jv init` killed midway must not leave hidden copies behind.
@Suite struct AbandonedCreationTests {
    @Test func aCreateRemovesTemporaryFilesNoLiveProcessHolds() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("journal.vault")
        let abandoned = folder.file(".journal.vault.creating-dead0001")
        for suffix in ["", "-wal", "-shm"] {
            #expect(FileManager.default.createFile(atPath: abandoned + suffix, contents: Data("left by a killed init".utf8)))
        }
        // One still being written by a live process: it holds the lock.
        let live = folder.file(".journal.vault.creating-live0002")
        #expect(FileManager.default.createFile(atPath: live, contents: Data()))
        let descriptor = open(live, O_RDONLY)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)

        _ = try Vault.create(at: path, passphrase: secret("pw"), kdf: TemporaryVault.kdf)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(names == [".journal.vault.creating-live0002", "journal.vault"], "\(names)")
    }

    @Test func logsWhoseTemporaryIsGoneAreRemoved() throws {
        // Left by a process killed while removing its temporary files, the database first.
        let folder = try TemporaryFolder()
        let path = folder.file("journal.vault")
        for name in [".journal.vault.creating-dead0003-wal", ".journal.vault.creating-dead0003-shm", ".journal.vault.creating-dead0004-shm"] {
            #expect(FileManager.default.createFile(atPath: folder.file(name), contents: Data("left by a killed init".utf8)))
        }
        _ = try Vault.create(at: path, passphrase: secret("pw"), kdf: TemporaryVault.kdf)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["journal.vault"])
    }

    @Test func aCreateRefusedBecauseTheVaultExistsStillRemovesAbandonedFiles() throws {
        // A create killed after its vault took its name, before the temporary name went: the
        // temporary is a second name of the vault, and no later create of that path succeeds.
        let folder = try TemporaryFolder()
        let path = folder.file("journal.vault")
        _ = try Vault.create(at: path, passphrase: secret("pw"), kdf: TemporaryVault.kdf)
        #expect(link(path, folder.file(".journal.vault.creating-dead0005")) == 0)
        #expect(throws: VaultError.vaultExists(path: path)) {
            try Vault.create(at: path, passphrase: secret("pw"), kdf: TemporaryVault.kdf)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["journal.vault"])
        _ = try Vault.open(at: path).unlock(passphrase: secret("pw"))
    }

    /// Several `jv init`s of one path at once: each one's clean-up runs while the others build
    /// their vaults and must leave their files alone; one wins, the others find its vault.
    @Test func concurrentCreatesOfOnePathLeaveOneVaultAndNothingElse() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("journal.vault")
        let outcomes = Outcomes()
        let done = DispatchGroup()
        for _ in 0..<6 {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    _ = try VaultDatabase.create(path: path) { _ in usleep(50_000) }
                    outcomes.add("created")
                } catch VaultError.vaultExists {
                    outcomes.add("exists")
                } catch {
                    outcomes.add("\(error)")
                }
            }.start()
        }
        done.wait()
        #expect(outcomes.all.sorted() == ["created"] + Array(repeating: "exists", count: 5))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(names.filter { $0.hasPrefix(".") } == [] && names.contains("journal.vault"), "\(names)")
    }

    private final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [String] = []

        func add(_ outcome: String) { lock.withLock { outcomes.append(outcome) } }
        var all: [String] { lock.withLock { outcomes } }
    }
}
