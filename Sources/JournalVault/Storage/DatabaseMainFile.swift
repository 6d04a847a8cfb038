// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite

/// The main file of an SQLite connection, read through SQLite's own handle of it (a backup's
/// pages, ``UnlockedVault/backup(to:replace:)``). A second descriptor of the file would not do:
/// closing it drops every POSIX lock the process holds on the file, SQLite's among them.
///
/// Valid while the connection is open; its reads may come from any thread while the connection
/// waits (SQLite's Unix file is read with `pread`, which moves no shared offset).
///
/// ```swift
/// let file = try DatabaseMainFile(db)
/// try file.read(into: buffer, at: 0)
/// ```
struct DatabaseMainFile: @unchecked Sendable {
    private let file: UnsafeMutablePointer<sqlite3_file>

    init(_ db: Database) throws {
        var pointer: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
              let pointer, pointer.pointee.pMethods?.pointee.xRead != nil else {
            throw VaultError.storage("SQLite does not lend its handle of the vault file")
        }
        file = pointer
        logPath = sqlite3_db_filename(db.sqliteConnection, "main").flatMap { sqlite3_filename_wal($0) }.map { String(cString: $0) }
    }

    /// The write-ahead log's path as SQLite names it: beside the file SQLite opened, which is
    /// the target of a symbolic link the vault was opened through, not beside the link.
    private let logPath: String?

    /// Whether the write-ahead log is empty or absent (a connection not in WAL mode has none).
    var logIsEmpty: Bool {
        guard let logPath else { return true }
        var log = stat()
        return stat(logPath, &log) == 0 ? log.st_size == 0 : errno == ENOENT
    }

    /// Fills `buffer` with the file's bytes from `offset`; a file that ends before is an error.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws {
        guard let address = buffer.baseAddress, let read = file.pointee.pMethods?.pointee.xRead else { return }
        let code = read(file, address, Int32(buffer.count), offset)
        // SQLITE_IOERR_SHORT_READ, a macro Swift does not import.
        let shortRead = SQLITE_IOERR | 2 << 8
        guard code == SQLITE_OK else {
            throw VaultError.storage(code == shortRead ? "the vault file is shorter than its pages" : "cannot read the vault file (SQLite error \(code))")
        }
    }
}
