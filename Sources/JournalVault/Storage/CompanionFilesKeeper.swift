// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite

/// The idle read-write connection a reading command holds beside its read-only one
/// (``VaultDatabase``): opened first, its one read makes the `-wal` and `-shm` files SQLite needs
/// beside a WAL vault; closed last, it finds the log empty (nothing to fold in) and removes them —
/// which a read-only connection, closing last, would leave behind.
///
/// It is a bare SQLite connection whose read is `PRAGMA schema_version`: that reads the file's
/// header in a read transaction without parsing the schema. A GRDB connection reads
/// `sqlite_master` as it opens, which makes SQLite parse every table and trigger (≈ 4.5 M
/// instructions at schema 8, docs/performance.md) for a connection that runs nothing else.
///
/// ```swift
/// let keeper = try CompanionFilesKeeper(path: path)   // -wal and -shm are there now
/// // … open the read-only connection, read, close it …
/// keeper.close()                                       // the last connection: they go
/// ```
final class CompanionFilesKeeper: @unchecked Sendable {
    /// Held while the connection is closed, which any thread may do.
    private let lock = NSLock()
    /// The connection, nil once closed.
    private var connection: OpaquePointer?

    /// Opens `path` read-write (it must exist: nothing is created) and reads its header. Throws
    /// SQLite's error as a `DatabaseError`, as GRDB would (a full disk, a file that is not a
    /// database, a lock held past the busy timeout).
    init(path: String) throws {
        var handle: OpaquePointer?
        var code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        if code == SQLITE_OK, let handle {
            // As long as the GRDB connections wait (``VaultDatabase``'s configuration).
            sqlite3_busy_timeout(handle, VaultDatabase.busyTimeoutMilliseconds)
            code = sqlite3_exec(handle, "PRAGMA schema_version", nil, nil, nil)
        }
        guard code == SQLITE_OK, let handle else {
            let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            sqlite3_close_v2(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        connection = handle
    }

    deinit { close() }

    /// Closes the connection (once; later calls do nothing). As the last connection to the file,
    /// SQLite folds the log in and removes the `-wal` and `-shm`.
    func close() {
        let handle = lock.withLock { () -> OpaquePointer? in
            defer { connection = nil }
            return connection
        }
        sqlite3_close_v2(handle)
    }
}
