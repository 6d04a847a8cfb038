import Foundation
import GRDB
import Migrations

/// The SQLite file behind a vault: a GRDB `DatabasePool` in WAL mode with the pragmas that
/// keep deleted text off the disk and every commit durable, and the numbered migrations — or,
/// for reading only, one connection that writes nothing (``Vault/Access/readOnly``).
final class VaultDatabase: Sendable {
    let path: String
    /// The pool, or for reading only, a single connection.
    let pool: any DatabaseWriter
    /// What this transaction's writes change in the row-set manifest (see ``UnlockedVault/write(_:)``).
    let manifestRecorder: ManifestRecorder

    /// The schema version this binary writes: the number of migrations it knows.
    static let supportedSchemaVersion = SchemaMigrations.all.count

    private init(path: String, pool: any DatabaseWriter, manifestRecorder: ManifestRecorder) {
        self.path = path
        self.pool = pool
        self.manifestRecorder = manifestRecorder
    }

    /// Opens an existing vault file, migrating it forward; refuses a newer schema.
    ///
    /// `.readOnly` opens one connection that changes no byte of the file: where the file and its
    /// folder can be written, an ordinary connection with `query_only` (SQLite folds in and
    /// removes its `-wal`/`-shm` files at close, as a pool's set-up would not: GRDB makes a
    /// throw-away table to create them); where they cannot (a read-only backup disk, a file chmod
    /// 0400), an immutable read-only one, which needs no files beside the vault. A `.readWrite`
    /// open of a vault that cannot be written fails at once with ``VaultError/readOnly(path:detail:)``.
    static func open(path: String, access: Vault.Access = .readWrite) throws -> VaultDatabase {
        guard FileManager.default.fileExists(atPath: path) else { throw VaultError.vaultNotFound(path: path) }
        try checkSQLiteMagic(path: path)
        let recorder = ManifestRecorder()
        let writable = isWritable(path)
        guard writable || access == .readOnly else { throw VaultError.readOnly(path: path) }
        let database = try translatingErrors(path: path) {
            let connections: any DatabaseWriter = switch (access, writable) {
            case (.readWrite, _): try openPool(path: path, recorder: recorder)
            case (.readOnly, true): try DatabaseQueue(path: path, configuration: configuration(recorder: recorder))
            case (.readOnly, false): try DatabaseQueue(path: immutableURI(path), configuration: configuration(recorder: recorder, readOnly: true))
            }
            return VaultDatabase(path: path, pool: connections, manifestRecorder: recorder)
        }
        try database.migrate(readOnly: !writable)
        if access == .readOnly && writable {
            // After any migration: from here on, nothing this connection runs may change the file.
            try translatingErrors(path: path) { try database.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = ON") } }
        }
        return database
    }

    /// Whether this process may write the file and create files beside it (SQLite's `-wal` and `-shm`).
    private static func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0 && access(URL(fileURLWithPath: path).deletingLastPathComponent().path, W_OK) == 0
    }

    /// Creates a new vault file atomically: the schema and `initialise` run on a 0600 temporary
    /// file beside `path`, which is renamed into place only once complete.
    static func create(path: String, initialise: (Database) throws -> Void) throws -> VaultDatabase {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        try createPrivateFolder(folder)
        guard !FileManager.default.fileExists(atPath: path) else { throw VaultError.vaultExists(path: path) }
        // A create killed midway left its temporary file behind; its lock died with it.
        PrivateFiles.removeAbandoned(beside: path, purpose: "creating")
        let temporary = PrivateFiles.temporaryPath(beside: path, purpose: "creating")
        defer { PrivateFiles.removeDatabase(temporary) }
        let inUse = try PrivateFiles.create(temporary)
        defer { try? inUse.close() }
        try PrivateFiles.lockExclusively(inUse)
        try translatingErrors(path: temporary) {
            let pool = try openPool(path: temporary)
            try migrator().migrate(pool)
            try pool.write(initialise)
            try pool.close()
        }
        // Without replacing: two concurrent `init`s cannot overwrite each other.
        try PrivateFiles.commit(temporary, to: path, replace: false)
        return try open(path: path)
    }

    /// Runs `body`, turning SQLite's and GRDB's errors into ``VaultError``s.
    static func translatingErrors<Result>(path: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_CORRUPT: throw VaultError.corruptDatabase(error.message ?? "database disk image is malformed")
            case .SQLITE_NOTADB: throw VaultError.notAVault(path: path, reason: "not an SQLite database")
            case .SQLITE_FULL: throw VaultError.storage("the disk is full")
            case .SQLITE_READONLY: throw VaultError.readOnly(path: path)
            case .SQLITE_PERM, .SQLITE_CANTOPEN:
                throw VaultError.storage("cannot open \(path) for writing (\(error.message ?? "permission denied"))")
            default: throw VaultError.storage(error.message ?? "\(error.resultCode)")
            }
        }
    }

    func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try Self.translatingErrors(path: path) { try pool.read(body) }
    }

    /// One transaction: all of `body` or nothing.
    func write<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try Self.translatingErrors(path: path) { try pool.write(body) }
    }

    /// Identifiers of the migrations applied to this file.
    func appliedMigrations() throws -> [String] {
        try read { db in try Self.migrator().appliedIdentifiers(db).sorted() }
    }

    private func migrate(readOnly: Bool) throws {
        let migrator = Self.migrator()
        let applied = try read { db -> Set<String> in
            guard try db.tableExists("grdb_migrations") else {
                throw VaultError.notAVault(path: path, reason: "no vault schema")
            }
            return try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        let known = Set(SchemaMigrations.all.map(\.identifier))
        guard applied.isSubset(of: known) else {
            throw VaultError.newerSchema(found: applied.count, supported: known.count)
        }
        if applied.count < known.count {
            guard !readOnly else {
                throw VaultError.readOnly(path: path, detail: "it was written by an older jv and needs a one-time upgrade, which writes to it")
            }
            try Self.translatingErrors(path: path) { try migrator.migrate(pool) }
        }
    }

    private static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in SchemaMigrations.all {
            migrator.registerMigration(migration.identifier) { db in
                try db.execute(sql: migration.sql)
            }
        }
        return migrator
    }

    /// A pool whose commits are durable. GRDB puts WAL pools in `synchronous = NORMAL` after the
    /// configuration's own set-up (a commit could be lost to a power cut, though never to a
    /// crash); only the writer commits, so FULL is set on it afterwards.
    private static func openPool(path: String, recorder: ManifestRecorder? = nil) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration(recorder: recorder))
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    /// `file:` URI of `path` with `immutable=1` (the system SQLite takes URIs as file names);
    /// `?`, `#` and `%` in the path escaped. For a file nobody can be writing.
    static func immutableURI(_ path: String) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "?", "#", "%": escaped += String(format: "%%%02X", character.value)
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:" + escaped + "?immutable=1"
    }

    private static func configuration(recorder: ManifestRecorder?, readOnly: Bool = false) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(30)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // secure_delete: deleted or overwritten ciphertext is zeroed, not left in free pages.
            // cache_size 32 MiB (default 2 MiB): random-UUID keys touch pages all over the id
            // index, and a 100,000-entry vault's indexes do not fit the default cache.
            // recursive_triggers: a row an `INSERT OR REPLACE` removes reaches the manifest too.
            try db.execute(sql: """
                PRAGMA secure_delete = ON;
                PRAGMA temp_store = MEMORY;
                PRAGMA cache_size = -32768;
                PRAGMA recursive_triggers = ON;
                """)
            recorder?.register(on: db)
        }
        return configuration
    }

    private static func checkSQLiteMagic(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw VaultError.storage("cannot read \(path)")
        }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 16)) ?? Data()
        guard magic == Data("SQLite format 3\0".utf8) else {
            throw VaultError.notAVault(path: path, reason: magic.isEmpty ? "the file is empty" : "not an SQLite database")
        }
    }

    static func createPrivateFolder(_ folder: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw VaultError.storage("\(folder) is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw VaultError.storage("cannot create the folder \(folder)")
        }
    }
}
