// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Migrations

/// The SQLite file behind a vault: a GRDB `DatabasePool` in WAL mode with the pragmas that
/// keep deleted text off the disk and every commit durable, and the numbered migrations — or,
/// for reading only, one read-only connection that cannot write (``Vault/Access/readOnly``).
final class VaultDatabase: Sendable {
    let path: String
    /// The pool, or for reading only, a single read-only connection.
    let pool: any DatabaseWriter
    /// What this transaction's writes change in the row-set manifest (see ``UnlockedVault/write(_:)``).
    let manifestRecorder: ManifestRecorder
    /// Whether the sync triggers note this transaction's writes as changes to send.
    let syncCapture: SyncCapture
    /// `.readOnly`: ``write(_:)`` refuses, and `pool` is opened read-only besides.
    let access: Vault.Access
    /// For reading a vault that can be written: an idle read-write connection opened before
    /// `pool` and closed after it, which makes the `-wal` and `-shm` files and removes them again.
    private let keeper: CompanionFilesKeeper?

    /// The schema version this binary writes: the number of migrations it knows.
    static let supportedSchemaVersion = SchemaMigrations.all.count

    private init(path: String, pool: any DatabaseWriter, manifestRecorder: ManifestRecorder, syncCapture: SyncCapture = SyncCapture(),
                 access: Vault.Access = .readWrite, keeper: CompanionFilesKeeper? = nil) {
        self.path = path
        self.pool = pool
        self.manifestRecorder = manifestRecorder
        self.syncCapture = syncCapture
        self.access = access
        self.keeper = keeper
    }

    deinit {
        if keeper != nil { try? closeConnections() }
    }

    /// The reading connection first, the keeper last (see ``keeper``).
    private func closeConnections() throws {
        try pool.close()
        keeper?.close()
    }

    /// Opens an existing vault file, migrating it forward; refuses a newer schema.
    ///
    /// `.readWrite` needs write access to the file and its folder (SQLite's `-wal` and `-shm`
    /// live beside it), and fails at once with ``VaultError/readOnly(path:detail:)`` without it.
    ///
    /// `.readOnly` changes no byte of the file, and leaves nothing beside it that was not there
    /// (but for the `-shm` of the first case below, where the vault can be written). Every
    /// statement runs on a connection opened read-only (SQLite itself refuses writes), reached
    /// in one of three ways:
    /// - a write-ahead log with content beside the vault (a writer is at work, or one stopped
    ///   before folding it in): an ordinary read-only connection, which reads the log through its
    ///   `-shm` index and never folds it in (the vault file stays as it was; a missing `-shm` is
    ///   made and left beside the log, or, where the vault cannot be written, refused with
    ///   ``VaultError/readOnly(path:detail:)``);
    /// - no such log, and the file and folder writable: the read-only connection beside an idle
    ///   read-write ``keeper``, which removes the `-wal` and `-shm` files again at close;
    /// - no such log, and the file or folder not writable (a read-only backup disk, a file chmod
    ///   0400): `immutable=1`, which needs no files beside the vault. Nobody can be writing it.
    ///
    /// A vault with an older schema is migrated first (the one write a reading command makes),
    /// or, where it cannot be written, refused with ``VaultError/readOnly(path:detail:)``: the
    /// reading code knows only the current schema.
    static func open(path: String, access: Vault.Access = .readWrite) throws -> VaultDatabase {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw VaultError.vaultNotFound(path: path) }
        guard !isFolder.boolValue else {
            throw VaultError.notAVault(path: path, reason: "it is a folder; name the vault file itself, such as \(path)/journal.vault")
        }
        try refuseUnreadableOrEmpty(path: path)
        let writable = isWritable(path)
        guard access == .readWrite else { return try openForReading(path: path, writable: writable) }
        guard writable else { throw VaultError.readOnly(path: path) }
        // Reading commands leave the folder as they found it; the next writing one tidies it.
        PrivateFiles.removeAbandonedCopies(of: path)
        let recorder = ManifestRecorder()
        let capture = SyncCapture()
        let log = WriteAheadLog(beside: path)
        let database: VaultDatabase
        do {
            database = try translatingErrors(path: path) {
                VaultDatabase(path: path, pool: try openPool(path: path, recorder: recorder, capture: capture),
                              manifestRecorder: recorder, syncCapture: capture)
            }
        } catch {
            // A write that could not even open leaves nothing: not the -wal/-shm it made.
            if case VaultError.diskFull = error { log.removeCompanionsMadeSince(beside: path) }
            throw error
        }
        if try database.needsMigration() {
            try translatingErrors(path: path) { try migrator().migrate(database.pool) }
        }
        return database
    }

    private static func openForReading(path: String, writable: Bool) throws -> VaultDatabase {
        let database = try readOnlyConnection(path: path, writable: writable)
        guard try database.needsMigration() else { return database }
        guard writable else {
            throw VaultError.readOnly(path: path, detail: "it was made by an older jv, and must be opened once with write access to upgrade it")
        }
        // The upgrade runs on a pool of its own, as a writing command's would; the reading
        // connection is made again afterwards, so that nothing in it predates the new schema.
        try database.closeConnections()
        try translatingErrors(path: path) {
            let pool = try openPool(path: path, recorder: ManifestRecorder())
            try migrator().migrate(pool)
            try pool.close()
        }
        return try readOnlyConnection(path: path, writable: writable)
    }

    /// The read-only connection of ``open(path:access:)``'s `.readOnly`.
    private static func readOnlyConnection(path: String, writable: Bool) throws -> VaultDatabase {
        let recorder = ManifestRecorder()
        let readOnly = configuration(vaultAt: path, recorder: recorder, readOnly: true)
        let log = WriteAheadLog(beside: path)
        return try translatingErrors(path: path) {
            if log.hasContent {
                guard log.hasIndex || writable else {
                    let name = URL(fileURLWithPath: path).lastPathComponent
                    throw VaultError.readOnly(path: path, detail: "recent changes wait in its write-ahead log \(name)-wal, which SQLite reads "
                                                + "only with a \(name)-shm file beside it; open it once with write access to fold them in")
                }
                return VaultDatabase(path: path, pool: try DatabaseQueue(path: path, configuration: readOnly),
                                     manifestRecorder: recorder, access: .readOnly)
            }
            guard writable else {
                return VaultDatabase(path: path, pool: try DatabaseQueue(path: immutableURI(path), configuration: readOnly),
                                     manifestRecorder: recorder, access: .readOnly)
            }
            let keeper: CompanionFilesKeeper
            do {
                keeper = try CompanionFilesKeeper(path: path)
            } catch let error as DatabaseError where PrivateFiles.diskFull(error, writing: path) != nil {
                // A full disk: SQLite cannot size the `-shm` index a shared reader needs. No
                // write can commit to this disk either, and the log holds nothing, so the file
                // is read as it stands, and the empty `-wal`/`-shm` the attempt made go again.
                log.removeCompanionsMadeSince(beside: path)
                return VaultDatabase(path: path, pool: try DatabaseQueue(path: immutableURI(path), configuration: readOnly),
                                     manifestRecorder: recorder, access: .readOnly)
            }
            do {
                return VaultDatabase(path: path, pool: try DatabaseQueue(path: path, configuration: readOnly),
                                     manifestRecorder: recorder, access: .readOnly, keeper: keeper)
            } catch {
                keeper.close()
                throw error
            }
        }
    }

    /// The `-wal` file beside a vault, as found before opening it.
    private struct WriteAheadLog {
        /// Committed changes may be in it that the vault file does not hold yet.
        let hasContent: Bool
        /// Its `-shm` index is there too.
        let hasIndex: Bool

        /// The log file was there.
        let exists: Bool

        init(beside vault: String) {
            var status = stat()
            exists = stat(vault + "-wal", &status) == 0
            hasContent = exists && status.st_size > 0
            hasIndex = FileManager.default.fileExists(atPath: vault + "-shm")
        }

        /// Removes the `-wal` (if still empty) and `-shm` that were not there when this was
        /// looked at: what a failed open made.
        func removeCompanionsMadeSince(beside vault: String) {
            var status = stat()
            if !exists, stat(vault + "-wal", &status) == 0, status.st_size == 0 { unlink(vault + "-wal") }
            if !hasIndex { unlink(vault + "-shm") }
        }
    }

    /// Whether this process may write the file and create files beside it (SQLite's `-wal` and `-shm`).
    private static func isWritable(_ path: String) -> Bool {
        Glibc.access(path, W_OK) == 0 && Glibc.access(URL(fileURLWithPath: path).deletingLastPathComponent().path, W_OK) == 0
    }

    /// Creates a new vault file atomically: the schema and `initialise` run on a 0600 temporary
    /// file beside `path`, which is renamed into place only once complete.
    static func create(path: String, initialise: (Database) throws -> Void) throws -> VaultDatabase {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        try createPrivateFolder(folder)
        // A create killed midway left its temporary files behind; its lock died with it. Even
        // when the vault exists: one killed just after its vault took the name leaves its
        // temporary name as a second name of the vault.
        PrivateFiles.removeAbandoned(beside: path, purposes: .creating)
        guard !FileManager.default.fileExists(atPath: path) else { throw VaultError.vaultExists(path: path) }
        // The temporary file becomes the vault (the same inode, under its new name), so its
        // lock descriptor is closed before the vault is opened: on Linux, closing any descriptor
        // of a file drops all of the process's POSIX record locks on it, and closed after the
        // open it took the new connections' SQLite locks with it (another process closing the
        // vault then removed the `-wal` and `-shm` from under the returned vault).
        do {
            let (temporary, inUse) = try PrivateFiles.createLockedTemporary(beside: path, purpose: .creating)
            defer { try? inUse.close() }
            // Removed before the lock goes: the file is never there unlocked while this create lives.
            defer { PrivateFiles.removeDatabase(temporary) }
            try translatingErrors(path: temporary) {
                let pool = try openPool(path: temporary, existing: false)
                try migrator().migrate(pool)
                try pool.write(initialise)
                try pool.close()
            }
            // Without replacing: two concurrent `init`s cannot overwrite each other.
            try PrivateFiles.commit(temporary, to: path, replace: false)
        }
        return try open(path: path)
    }

    /// Runs `body`, turning SQLite's and GRDB's errors into ``VaultError``s.
    static func translatingErrors<Result>(path: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as DatabaseError {
            if let full = PrivateFiles.diskFull(error, writing: path) { throw full }
            switch error.resultCode {
            case .SQLITE_CORRUPT: throw VaultError.corruptDatabase(error.message ?? "database disk image is malformed")
            case .SQLITE_NOTADB: throw VaultError.notAVault(path: path, reason: "not an SQLite database")
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
        guard access == .readWrite else { throw VaultError.readOnly(path: path, detail: "it was opened for reading only") }
        return try Self.translatingErrors(path: path) { try pool.write(body) }
    }

    /// Identifiers of the migrations applied to this file.
    func appliedMigrations() throws -> [String] {
        try read { db in try Self.migrator().appliedIdentifiers(db).sorted() }
    }

    /// Whether the file's schema is older than this binary's; refuses a newer one. (A file
    /// without a vault's schema was refused as its connection opened: ``refuseWithoutVaultSchema(_:path:)``.)
    private func needsMigration() throws -> Bool {
        let applied = try read { db -> Set<String> in
            try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        let known = Set(SchemaMigrations.all.map(\.identifier))
        guard applied.isSubset(of: known) else {
            throw VaultError.newerSchema(found: applied.count, supported: known.count)
        }
        return applied.count < known.count
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
    /// `existing`: the file must already hold a vault (every open but ``create(path:_:)``'s).
    private static func openPool(path: String, existing: Bool = true, recorder: ManifestRecorder? = nil,
                                 capture: SyncCapture = SyncCapture()) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration(vaultAt: existing ? path : nil, recorder: recorder, capture: capture))
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

    /// How long a connection waits for another process's lock before it gives up.
    static let busyTimeoutMilliseconds: Int32 = 30_000

    /// `vaultAt`: the path of the vault each connection must find, refused before anything is
    /// written when it is not one; nil for the file a create fills.
    private static func configuration(vaultAt vaultPath: String?, recorder: ManifestRecorder?, capture: SyncCapture? = nil,
                                      readOnly: Bool = false) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(Double(busyTimeoutMilliseconds) / 1000)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // secure_delete: deleted or overwritten ciphertext is zeroed, not left in free pages.
            // cache_size 32 MiB (default 2 MiB) for writers: random-UUID keys touch pages all over
            // the id index, and a 100,000-entry vault's indexes do not fit the default cache.
            // Readers pass over their rows once, in order: 8 MiB keeps a whole listing's memory
            // within the 64 MiB a listing may take. recursive_triggers: a row an `INSERT OR REPLACE` removes
            // reaches the manifest too.
            try db.execute(sql: """
                PRAGMA secure_delete = ON;
                PRAGMA temp_store = MEMORY;
                PRAGMA cache_size = \(readOnly ? -8192 : -32768);
                PRAGMA recursive_triggers = ON;
                """)
            if let vaultPath { try refuseWithoutVaultSchema(db, path: vaultPath) }
            recorder?.register(on: db)
            capture?.register(on: db)
        }
        return configuration
    }

    /// Refuses a file without a vault's schema (another program's SQLite database) as its
    /// connection opens: before a pool's set-up turns the file to WAL mode and writes a
    /// transaction into it, which would change someone else's file. Asked of `sqlite_master`
    /// directly, whose rows the pragmas above have parsed already: GRDB's `tableExists` makes a
    /// String of every schema row's SQL (2.9 M instructions at schema 8, in every process).
    private static func refuseWithoutVaultSchema(_ db: Database, path: String) throws {
        let sql = "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations')"
        guard try Bool.fetchOne(db, sql: sql) == true else { throw VaultError.notAVault(path: path, reason: "no vault schema") }
    }

    /// Refuses, before SQLite opens it, a file SQLite would take for a new database and write:
    /// an empty one. Anything else that is not an SQLite database SQLite refuses itself with
    /// `SQLITE_NOTADB` (``translatingErrors(path:_:)``: ``VaultError/notAVault(path:reason:)``)
    /// on its first read of the header, before any write.
    ///
    /// Only `stat` and `access`: no descriptor of the file is opened here. On Linux, closing any
    /// descriptor of a file drops all of the process's POSIX record locks on it — SQLite's own
    /// included, held by connections this process already has open to the same vault (SQLite
    /// guards only against closing descriptors it opened itself). Without them, another process
    /// closing the vault would think itself the last connection and remove the `-wal` and
    /// `-shm` from under this one.
    private static func refuseUnreadableOrEmpty(path: String) throws {
        guard Glibc.access(path, R_OK) == 0 else { throw VaultError.storage("cannot read \(path)") }
        var status = stat()
        guard stat(path, &status) == 0 else { throw VaultError.storage("cannot read \(path)") }
        guard status.st_size > 0 else { throw VaultError.notAVault(path: path, reason: "the file is empty") }
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
