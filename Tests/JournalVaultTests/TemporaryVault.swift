// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import TestSupport
import Testing
import VaultCrypto
@testable import JournalVault

// Shared setup for the vault tests: temporary folders and vaults (interactive KDF, ≈ 0.08 s
// to create or unlock), raw SQL on the vault file for tampering, and error matchers.

/// A passphrase (or any text) in secure memory.
func secret(_ text: String) throws -> SecureBytes {
    try SecureBytes(copying: Array(text.utf8))
}

/// A new vault in its own temporary folder, unlocked, removed when released. Keep the value
/// alive for as long as the vault is used (tests hold it in a local or a suite property).
final class TemporaryVault: Sendable {
    static let passphrase = "correct horse battery staple"
    static let kdf = KDFParameters.profile(.interactive)

    let folder: TemporaryFolder
    let path: String
    let journal: UnlockedVault
    let recoveryKey: RecoveryKey

    init(passphrase: String = TemporaryVault.passphrase) throws {
        folder = try TemporaryFolder()
        path = folder.file("journal.vault")
        (journal, recoveryKey) = try Vault.create(at: path, passphrase: secret(passphrase), kdf: Self.kdf)
    }

    /// A copy of `template`'s file in a folder of its own, unlocked with the same master key: no
    /// Argon2, for suites whose every test starts from one prepared vault. The copy has the
    /// template's vault id, keys and recovery key, so it is no other vault to the template.
    init(copying template: TemporaryVault) throws {
        folder = try TemporaryFolder()
        let copy = folder.file("journal.vault")
        try template.journal.database.pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [copy])
        }
        path = copy
        journal = try Vault.open(at: copy).unlock(masterKey: template.journal.keys.masterKey)
        recoveryKey = template.recoveryKey
    }

    /// The locked handle of the same file.
    var vault: Vault { journal.vault }

    /// Unlocks the file anew with `passphrase`.
    func unlock(_ passphrase: String = TemporaryVault.passphrase) throws -> UnlockedVault {
        try vault.unlock(passphrase: secret(passphrase))
    }

    // MARK: Raw SQL, behind the vault's back

    /// The number of rows of `table` for which `condition` holds.
    func count(_ table: String, where condition: String = "1", _ arguments: StatementArguments = []) throws -> Int {
        try journal.database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(condition)", arguments: arguments) ?? -1
        }
    }

    /// Runs `sql` in one committed transaction.
    func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
        try journal.writeBehindTheVaultsBack { db in try db.execute(sql: sql, arguments: arguments) }
    }

    /// Runs `body` in a transaction that is always rolled back: for many tamper-and-read rounds
    /// without a durable commit each.
    func withRolledBackTransaction(_ body: (Database) throws -> Void) throws {
        try journal.writeWithoutTransactionBehindTheVaultsBack { db in
            try db.inTransaction {
                try body(db)
                return .rollback
            }
        }
    }

    /// One column of one entry row.
    func entryColumn<Value: DatabaseValueConvertible>(_ column: String, of id: UUID, as _: Value.Type = Value.self) throws -> Value {
        try journal.database.read { db in
            try #require(try Value.fetchOne(db, sql: "SELECT \(column) FROM entry WHERE id = ?", arguments: [id.storageText]))
        }
    }

    func setEntryColumn(_ column: String, of id: UUID, to value: some DatabaseValueConvertible) throws {
        try execute("UPDATE entry SET \(column) = ? WHERE id = ?", [value, id.storageText])
    }

    /// The stored `data` of a keyslot (0: passphrase, 1: recovery).
    func keyslotData(slot: Int) throws -> Data {
        try journal.database.read { db in
            try #require(try Data.fetchOne(db, sql: "SELECT data FROM keyslot WHERE slot = ?", arguments: [slot]))
        }
    }

    func setKeyslotData(slot: Int, to data: Data) throws {
        try execute("UPDATE keyslot SET data = ? WHERE slot = ?", [data, slot])
    }

    /// Every row of the tag index, as (the entry's UUID text, bidx).
    func tagIndexRows() throws -> [(String, Data)] {
        try journal.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT entry.id, entry_tag.bidx FROM entry_tag JOIN entry ON entry.seq = entry_tag.entry_seq
                ORDER BY entry.id, entry_tag.bidx
                """).map { ($0[0], $0[1]) }
        }
    }
}

// MARK: - Fixed moments

/// 2026-01-05T00:00:00Z in milliseconds (a Monday; checked with `date -u -d 2026-01-05 +%s`).
let jan5UTCMillis: Int64 = 1_767_571_200_000
let hourMillis: Int64 = 3_600_000

/// The moment `hours` after 2026-01-05T00:00Z, written by someone at UTC`offsetHours`.
func moment(hoursAfterJan5UTC hours: Double, offsetHours: Double) -> Instant {
    Instant(millis: jan5UTCMillis + Int64(hours * Double(hourMillis)), utcOffsetSeconds: Int(offsetHours * 3600))
}

func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDay {
    CivilDay(year: year, month: month, day: day)!
}

// MARK: - Error matching

extension VaultError {
    var isTamperedRecord: Bool {
        if case .tamperedRecord = self { true } else { false }
    }

    var isKDFParametersRefused: Bool {
        if case .kdfParametersRefused = self { true } else { false }
    }

    var isNotAVault: Bool {
        if case .notAVault = self { true } else { false }
    }

    var isCorruptKeyslot: Bool {
        if case .corruptKeyslot = self { true } else { false }
    }
    var isKeyDataDamaged: Bool {
        if case .keyDataDamaged = self { true } else { false }
    }
}

/// Expects `body` to throw a ``VaultError`` that satisfies `predicate`; returns it.
@discardableResult
func expectVaultError<R>(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                         where predicate: (VaultError) -> Bool, _ body: () throws -> R) -> VaultError? {
    let error = #expect(throws: VaultError.self, comment, sourceLocation: sourceLocation) { _ = try body() }
    if let error, !predicate(error) {
        Issue.record("unexpected error \(error)\(comment.map { ": \($0)" } ?? "")", sourceLocation: sourceLocation)
    }
    return error
}

/// Expects `body` to report ``VaultError/tamperedRecord(table:id:detail:)``.
func expectTampered<R>(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) {
    expectVaultError(comment, sourceLocation: sourceLocation, where: \.isTamperedRecord, body)
}

extension Data {
    /// The same bytes with `mask` XORed into the byte at `offset`.
    func flipping(_ offset: Int, mask: UInt8 = 0x01) -> Data {
        var copy = self
        copy[copy.startIndex + offset] ^= mask
        return copy
    }
}

extension UnlockedVault {
    /// Writes as someone editing the file would: the row-set manifest hears nothing of it (the
    /// recorder is set aside, as an editor's own connection would stub out `jv_manifest`).
    func writeBehindTheVaultsBack<Result>(_ body: (Database) throws -> Result) throws -> Result {
        database.manifestRecorder.suspend()
        defer { _ = database.manifestRecorder.finish() }
        return try database.write(body)
    }

    /// The same outside a transaction (for pragmas such as `foreign_keys`).
    func writeWithoutTransactionBehindTheVaultsBack<Result>(_ body: (Database) throws -> Result) throws -> Result {
        database.manifestRecorder.suspend()
        defer { _ = database.manifestRecorder.finish() }
        return try database.pool.writeWithoutTransaction(body)
    }
}
