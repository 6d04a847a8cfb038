// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv sync …`: one journal on several machines, through a folder or an rclone remote.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep this vault in step with its copies on other machines, through a shared folder or an rclone remote.",
        discussion: """
            Each machine keeps its own vault file; they exchange encrypted, immutable change packs through \
            LOCATION: a folder that Syncthing, Nextcloud, Dropbox or a USB stick carries, or rclone:REMOTE:PATH \
            (any rclone remote: S3, B2, WebDAV, SFTP, …). Start with `jv sync init LOCATION` on the first \
            machine and `jv sync clone LOCATION` on each other; then `jv sync` sends and receives.
            """,
        subcommands: [SyncRun.self, SyncInit.self, SyncClone.self, SyncStatusCommand.self],
        defaultSubcommand: SyncRun.self)
}

/// `jv sync [--dry-run]`: send this device's changes, apply the others'.
struct SyncRun: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Send this machine's changes as one new pack, then apply every other machine's new packs (the default).")

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Say what would be sent and received, and change nothing.")
    var dryRun = false

    @Flag(help: ArgumentHelp("Also write a snapshot of the whole vault, from which new machines start, and remove this machine's packs that every machine has applied.",
                             discussion: "A machine that never syncs again holds its packs back: all the others' must show them applied."))
    var compact = false

    @Option(help: SyncRun.attachmentsHelp)
    var attachments: AttachmentSyncPolicy?

    /// `--attachments`, of `jv sync` and `jv sync clone`.
    static let attachmentsHelp = ArgumentHelp("Which attachments' contents to bring into this vault file: all, thumbnails or none (default: [sync] attachments in the config file, else all). The others stay at the location and are fetched when read; thumbnails travel with the records either way.",
                                              valueName: "which")

    func validate() throws {
        if dryRun && compact { throw ValidationError("--dry-run and --compact cannot go together: a dry run changes nothing.") }
    }

    func execute() throws {
        let policy = try attachments ?? Config.current.syncAttachments ?? .all
        let engine = SyncEngine(try options.unlockedVault())
        try options.output.syncing("Syncing", dryRun: dryRun) { try engine.sync(dryRun: dryRun, compact: compact, attachments: policy, progress: $0) }
    }
}

/// `jv sync init LOCATION`: the first machine.
struct SyncInit: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Start syncing this vault through LOCATION: a folder, or rclone:REMOTE:PATH.",
        discussion: "Writes this machine's keys file and every record, encrypted, as its first pack.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "A folder other machines also see, or rclone:REMOTE:PATH.", completion: .directory)
    var location: String

    func execute() throws {
        let engine = SyncEngine(try options.unlockedVault())
        try options.output.syncing("Syncing", note: "This vault now syncs through \(location).") { try engine.setUp(at: location, progress: $0) }
    }
}

/// `jv sync clone LOCATION [--to PATH]`: another machine joins.
struct SyncClone: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Make a vault on this machine from the one that syncs through LOCATION, and sync it.",
        discussion: "Unlock it with the passphrase of a machine that syncs it, or with the recovery key; the new vault keeps them.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The folder or rclone:REMOTE:PATH the vault syncs through.", completion: .directory)
    var location: String

    @Option(help: ArgumentHelp("Where to make the vault (default: --vault, $JV_VAULT or the default vault path).", valueName: "path"),
            completion: .file())
    var to: String?

    @Option(help: SyncRun.attachmentsHelp)
    var attachments: AttachmentSyncPolicy?

    func execute() throws {
        let target = try to ?? options.vaultPath
        if FileManager.default.fileExists(atPath: target) {
            throw CLIError.exists("A file already exists at \(target); clone into a new file with --to PATH.")
        }
        let policy = try attachments ?? Config.current.syncAttachments ?? .all
        try options.output.syncing("Cloning", note: "Made \(target), which syncs through \(location).") {
            try SyncEngine.clone(from: location, to: target, credential: Credentials(options: options).forUnlocking(), attachments: policy,
                                 progress: $0).report
        }
    }
}

/// `jv sync status`: this machine and what it knows of the others (nothing is fetched).
struct SyncStatusCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show this machine's device id, the location, changes not sent yet, and each other machine's packs applied here.")

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        let status: SyncStatus
        do {
            status = try SyncEngine(try options.unlockedVault(access: .readOnly)).status()
        } catch VaultError.syncNotSetUp {
            // Not "yet": status only looks, and a vault may well never sync.
            throw CLIError.failed("This vault does not sync: \(Failure.syncSetUpAdvice).")
        }
        if options.json {
            options.output.printJSON(.object([
                ("device", .string(status.device.uuidString.lowercased())), ("location", .string(status.location)),
                ("last_pack", .integer(Int64(status.lastPack))), ("pending", .integer(Int64(status.pending))),
                ("devices", .array(status.peers.map { peer in
                    .object([("device", .string(peer.device.uuidString.lowercased())), ("applied", .integer(Int64(peer.applied))),
                             ("newest", .integer(Int64(peer.newest))), ("missing", peer.missing.map { .integer(Int64($0)) } ?? .null)])
                })),
                ("keys_files_not_authenticating", .array(status.unauthenticatedKeysFiles.map { .string($0.uuidString.lowercased()) })),
            ]))
            return
        }
        Console.out("This device: \(status.device.uuidString.lowercased()) (\(status.lastPack) pack\(status.lastPack == 1 ? "" : "s") sent)")
        Console.out("Location: \(status.location)")
        Console.out("Not sent yet: \(Output.count(status.pending, of: "changes"))")
        for peer in status.peers {
            let behind = if let missing = peer.missing {
                ", waiting for its pack \(missing), which has not arrived while later ones have"
            } else {
                peer.newest > peer.applied ? ", \(peer.newest - peer.applied) more here to apply" : ""
            }
            Console.out("Device \(peer.device.uuidString.lowercased()): \(peer.applied) pack\(peer.applied == 1 ? "" : "s") applied\(behind)")
        }
        for device in status.unauthenticatedKeysFiles {
            Console.out("Keys file of \(device.uuidString.lowercased()): does not authenticate (not of this vault, or damaged); it holds no compaction back")
        }
    }
}

extension AttachmentSyncPolicy: ExpressibleByArgument {}

extension Progress {
    /// Changes written while sending; KiB of packs read while receiving.
    func update(_ progress: SyncProgress) {
        switch progress.phase {
        case .sending: update(progress.done, of: progress.total, unit: "changes", phase: " sent")
        case .receiving: update(progress.done / 1024, of: progress.total / 1024, unit: "KiB of packs", phase: " applied")
        }
    }
}

extension Output {
    /// Runs a sync behind a progress bar (on a terminal), then prints `note` and its report;
    /// a refused pack makes the exit 65, after the rest was applied.
    func syncing(_ title: String, note: String? = nil, dryRun: Bool = false,
                 _ body: (@escaping (SyncProgress) -> Void) throws -> SyncReport) throws {
        let bar = Progress(title)
        defer { bar.finish() }
        let report = try body(bar.update)
        bar.finish()
        if let note, !json { Console.out(note) }
        printSyncReport(report, dryRun: dryRun)
        for (file, reason) in report.unwritten {
            Console.error("This machine's \(file) could not be written to the sync location, as \(reason); it is written at the next 'jv sync'.")
        }
        if let reason = report.notCompacted {
            Console.error("Nothing was compacted: this machine's snapshot could not be written to the sync location, as \(reason); "
                          + "run jv sync --compact again once there is room.")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        if !report.refused.isEmpty { throw VaultError.syncPackRefused(report.refused.joined(separator: "; ")) }
    }

    private func printSyncReport(_ report: SyncReport, dryRun: Bool) {
        if json {
            printJSON(.object([
                ("dry_run", .bool(dryRun)),
                ("sent", report.sent.map { .object([("pack", .integer(Int64($0.pack))), ("changes", .integer(Int64($0.changes)))]) } ?? .null),
                ("pending", .integer(Int64(report.pending))),
                ("packs_received", .integer(Int64(report.packsReceived))),
                ("changes_received", .integer(Int64(report.changesReceived))),
                ("packs_available", .integer(Int64(report.packsAvailable))),
                ("conflict_copies", .integer(Int64(report.conflictCopies))),
                ("waiting", .array(report.waiting.map { .string($0) })),
                ("refused", .array(report.refused.map { .string($0) })),
                ("rekeyed_to", report.rekeyedTo.map { .integer(Int64($0)) } ?? .null),
                ("snapshot", report.snapshot.map { .integer(Int64($0)) } ?? .null),
                ("resent", .array(report.resent.map { .integer(Int64($0)) })),
                ("unwritten", .array(report.unwritten.map { .object([("file", .string($0.file)), ("reason", .string($0.reason))]) })),
                ("not_compacted", report.notCompacted.map { .string($0) } ?? .null),
                ("packs_removed", .integer(Int64(report.packsRemoved))),
                ("contents_fetched", .integer(Int64(report.contentsFetched))),
                ("contents_left", .integer(Int64(report.contentsLeft))),
                ("contents_missing", .integer(Int64(report.contentsMissing))),
                ("contents_removed", .integer(Int64(report.contentsRemoved))),
                ("contents_to_send", .integer(Int64(report.contentsToSend))),
                ("contents_to_fetch", .integer(Int64(report.contentsToFetch))),
            ]))
            return
        }
        func contents(_ count: Int) -> String { "\(count) attachment\(count == 1 ? "'s content" : "s' contents")" }
        if dryRun {
            let files = report.contentsToSend > 0 ? " (with \(contents(report.contentsToSend)))" : ""
            let fetch = report.contentsToFetch > 0 ? ", and fetch \(contents(report.contentsToFetch))" : ""
            Console.out("Would send \(Output.count(report.pending, of: "changes"))\(files) and apply \(Output.count(report.packsAvailable, of: "packs"))\(fetch); nothing was changed.")
        } else {
            let sent = report.sent.map { "Sent \(Output.count($0.changes, of: "changes")) (pack \($0.pack))" } ?? "Nothing to send"
            let copies = report.conflictCopies > 0 ? "; kept \(Output.count(report.conflictCopies, of: "conflict copies")) of texts changed on two machines at once" : ""
            Console.out("\(sent); received \(Output.count(report.changesReceived, of: "changes")) in \(Output.count(report.packsReceived, of: "packs"))\(copies).")
        }
        if let snapshot = report.snapshot, !report.resent.isEmpty {
            let numbers = report.resent.map(String.init).joined(separator: ", ")
            Console.out("This machine's pack\(report.resent.count == 1 ? "" : "s") \(numbers) had gone from the location: "
                        + "sent again, as a snapshot of the whole vault (as of pack \(snapshot)).")
        } else if let snapshot = report.snapshot {
            Console.out("Wrote a snapshot of the whole vault (as of pack \(snapshot)); removed \(Output.count(report.packsRemoved, of: "packs")) every machine has applied.")
        } else if report.packsRemoved > 0 {
            Console.out("Removed \(Output.count(report.packsRemoved, of: "packs")) every machine has applied.")
        }
        if let version = report.rekeyedTo {
            Console.out("Another machine rotated the master key (jv rekey): this vault is now re-encrypted under key version \(version), "
                        + "and the recovery key shown there opens it.")
        }
        if report.contentsFetched > 0 { Console.out("Fetched \(contents(report.contentsFetched)) from the location.") }
        if report.contentsLeft > 0 { Console.out("Left \(contents(report.contentsLeft)) at the location; each is fetched when read.") }
        if report.contentsRemoved > 0 { Console.out("Removed \(report.contentsRemoved) blob file\(report.contentsRemoved == 1 ? "" : "s") no machine needs any more.") }
        if report.contentsMissing > 0 {
            Console.error("Waiting: \(contents(report.contentsMissing)) not at the location yet; fetched at the next 'jv sync', or when read.")
        }
        for line in report.waiting { Console.error("Waiting: \(line).") }
        for line in report.refused { Console.error("Refused: \(line).") }
    }
}
