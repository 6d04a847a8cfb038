// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv backup FILE`: one encrypted file holding the whole vault.
struct BackupCommand: VaultCommand, ReplacingWithForce {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write an encrypted, authenticated backup of the whole vault to FILE.",
        discussion: """
            The backup opens with the passphrase or the recovery key valid now. It is a consistent \
            snapshot even while other jv processes write. Timestamps and counts are encrypted too.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The backup file to create.", completion: .file())
    var file: String

    @Flag(help: "Replace FILE if it exists.")
    var force = false

    func execute() throws {
        try OutputFile.check(file, replace: force)
        let summary = try options.unlockedVault(access: .readOnly, onDamage: .warn).backup(to: file, replace: force)
        options.output.printBackupSummary(summary, path: file, verb: "Backed up")
    }
}

/// `jv verify-backup FILE`: check a backup without writing anything.
struct VerifyBackup: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-backup",
        abstract: "Check a backup end to end (header, every chunk, every record) without writing anything.",
        discussion: "Unlock it with the passphrase or recovery key that was valid when it was made.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The backup file.", completion: .file())
    var file: String

    func execute() throws {
        let summary = try BackupFile.verify(file, credential: Credentials(options: options).forUnlocking())
        options.output.printBackupSummary(summary, path: file, verb: "Verified")
    }
}

/// `jv restore FILE`: bring a backup back.
struct Restore: VaultCommand, ReplacingWithForce {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup to --to PATH (default: the vault path). Everything is checked before anything is written.",
        discussion: """
            An existing vault is replaced only with --force, and then atomically. Restored anywhere but over the vault \
            itself (its path, or a file of the same vault), the file is a copy of its own: writes to it do not touch the \
            original's rollback warning, and a vault that syncs does not sync as the original's device ('jv sync init \
            LOCATION' joins it as a new one).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The backup file.", completion: .file())
    var file: String

    @Option(help: ArgumentHelp("Where to restore (default: --vault, $JV_VAULT or the default vault path).", valueName: "path"),
            completion: .file())
    var to: String?

    @Flag(help: "Replace an existing vault at the target.")
    var force = false

    func execute() throws {
        let target = try to ?? options.vaultPath
        if FileManager.default.fileExists(atPath: target) {
            if !force { throw VaultError.vaultExists(path: target) }
            // Renaming over a file needs only its folder: a vault chmod 0400 is replaced unless refused here.
            // Through a link, the file renamed over is the one it names (BackupFile.restore), in its folder.
            let folder = URL(fileURLWithPath: target).resolvingSymlinksInPath().deletingLastPathComponent().path
            guard FileManager.default.isWritableFile(atPath: target), FileManager.default.isWritableFile(atPath: folder) else {
                throw VaultError.readOnly(path: target)
            }
        }
        let summary = try BackupFile.restore(file, to: target, credential: Credentials(options: options).forUnlocking(), replace: force,
                                             asCopy: !Self.samePath(target, try options.vaultPath))
        HighWater.forget(summary.identity ?? summary.vaultID)
        options.output.printBackupSummary(summary, path: target, verb: "Restored to")
        if let location = summary.leftLocation {
            Console.note("""
                This copy does not sync: the vault it was restored from syncs through \(location) as the same device. \
                To sync it as a new device, run 'jv sync init \(location) --vault \(target)'.
                """)
        }
    }

    private static func samePath(_ one: String, _ other: String) -> Bool {
        URL(fileURLWithPath: one).standardizedFileURL.resolvingSymlinksInPath().path
            == URL(fileURLWithPath: other).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

extension Output {
    func printBackupSummary(_ summary: BackupSummary, path: String, verb: String) {
        if json {
            printJSON(.object([
                ("path", .string(path)),
                ("vault_id", .string(summary.vaultID.uuidString.lowercased())),
                ("backup_created_at", .string(summary.createdAt.iso8601)),
                ("bytes", .integer(summary.bytes)),
                ("counts", .object(summary.counts.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })),
            ]))
        } else {
            let counts = summary.counts.sorted { $0.key < $1.key }.filter { $0.value > 0 }.map { Output.count($0.value, of: $0.key) }
            Console.out("\(verb) \(path): \(counts.isEmpty ? "an empty vault" : counts.joined(separator: ", ")) (backup of \(summary.createdAt.iso8601), \(summary.bytes) bytes).")
        }
    }
}
