import ArgumentParser
import JournalVault

/// `jv info`: what the vault is, without the passphrase.
struct Info: VaultCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the vault's path, format, key-derivation settings and counts (no passphrase needed).")

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        let info = try Vault.open(at: options.vaultPath, access: .readOnly).info()
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
            """)
        for (label, count) in info.counts.sorted(by: { $0.key < $1.key }) {
            Console.out(label.padding(toLength: 16, withPad: " ", startingAt: 0) + String(count))
        }
    }
}
