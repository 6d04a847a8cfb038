// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv info`: what the vault is, without the passphrase.
struct Info: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the vault's path, format, key-derivation settings and counts (no passphrase needed).")

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        Editor.noteAbandonedFiles()
        let vault = try options.openVault(access: .readOnly)
        let info = try vault.info()
        let session: SessionStatus?
        do {
            session = try vault.session()
        } catch let error as VaultError {
            guard let reason = Failure.sessionProblem(in: error) else { throw error }
            // Info is for finding out what is wrong: it says so and goes on.
            Console.note("jv: warning: no session can be used: \(reason).")
            session = nil
        }
        if options.json {
            options.output.printJSON(.object([
                ("path", .string(info.path)),
                ("vault_id", .string(info.vaultID.uuidString.lowercased())),
                ("format_version", .integer(Int64(info.formatVersion))),
                ("schema_version", .integer(Int64(info.schemaVersion))),
                ("supported_schema_version", .integer(Int64(info.supportedSchemaVersion))),
                ("key_version", .integer(Int64(info.keyVersion))),
                ("created_at", .string(info.createdAt.iso8601)),
                ("kdf", .object([
                    ("algorithm", .string("argon2id13")),
                    ("ops", .integer(Int64(info.kdf.operations))),
                    ("mem_bytes", .integer(Int64(info.kdf.memoryBytes))),
                    ("profile", .optional(info.kdf.profileName?.rawValue)),
                ])),
                ("recovery_key", .bool(info.hasRecoveryKey)),
                ("counts", .object(info.counts.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })),
                ("session", session.map { .object(Self.sessionFields($0)) } ?? .null),
            ]))
            return
        }
        let mebibytes = info.kdf.memoryBytes >> 20
        Console.out("""
            path            \(info.path)
            vault id        \(info.vaultID.uuidString.lowercased())
            format          \(info.formatVersion), schema \(info.schemaVersion) (this jv: up to \(info.supportedSchemaVersion))
            key version     \(info.keyVersion)
            created         \(info.createdAt.iso8601)
            passphrase KDF  Argon2id, \(info.kdf.operations) passes, \(mebibytes) MiB\(info.kdf.profileName.map { " (\($0.rawValue))" } ?? "")
            recovery key    \(info.hasRecoveryKey ? "set" : "none")
            session         \(session.map { Self.describe($0, options.output.timeFormat) } ?? "none (jv unlock opens one)")
            """)
        if let index = session?.index {
            Console.out("search index    " + Self.describe(index))
        }
        for (label, count) in info.counts.sorted(by: { $0.key < $1.key }) {
            Console.out(label.padding(toLength: max(16, label.count + 1), withPad: " ", startingAt: 0) + String(count))
        }
    }

    /// A session as JSON fields (also printed by `jv unlock --json`).
    static func sessionFields(_ session: SessionStatus) -> [(String, JSONValue)] {
        [
            ("expires_at", .string(Instant(session.expiresAt).iso8601)),
            ("ends_at", .string(Instant(session.endsAt).iso8601)),
            ("idle_timeout_seconds", .integer(Int64(session.idleTimeout))),
            ("agent_pid", .integer(Int64(session.agentPID))),
            ("index", session.index.map { index in
                .object([
                    ("state", .string(index.state.rawValue)),
                    ("documents", .integer(Int64(index.documents))),
                    ("bytes", .integer(Int64(index.bytes))),
                    ("locked_bytes", .integer(Int64(index.lockedBytes))),
                    ("searches", .integer(Int64(index.searches))),
                    ("stats_answered", .integer(Int64(index.statsAnswered))),
                ])
            } ?? .null),
        ]
    }

    /// "ready: 10000 records in 6.1 MiB of the agent's memory; 48.2 MiB of that memory locked in RAM".
    private static func describe(_ index: SessionIndexStatus) -> String {
        let state = switch index.state {
        case .building: "being built (searches scan meanwhile)"
        case .ready: "ready"
        case .unavailable: "not available (searches scan)"
        }
        return "\(state): \(index.documents) records in \(mebibytes(index.bytes)) of the agent's memory; "
            + "\(mebibytes(index.lockedBytes)) of that memory locked in RAM"
    }

    private static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }

    /// "open until 10:58 (15 minutes after its last use; 18:40 at the latest), agent pid 4242".
    private static func describe(_ session: SessionStatus, _ format: TimeFormat) -> String {
        "open until \(clock(session.expiresAt, format)) (\(SessionLength(seconds: Int(session.idleTimeout)).spoken) after its last use; "
            + "\(clock(session.endsAt, format)) at the latest), agent pid \(session.agentPID)"
    }

    /// A moment of today as its time, of another day with its date, in the local zone and
    /// the configured format.
    static func clock(_ date: Date, _ format: TimeFormat) -> String {
        let moment = Instant(date)
        return moment.localDay == Instant.now().localDay ? format.timeOfDayText(moment) : format.minuteText(moment)
    }
}
