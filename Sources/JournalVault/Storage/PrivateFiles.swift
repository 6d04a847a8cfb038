// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Files only their owner can read, created without races and made durable on request.
enum PrivateFiles {
    /// What a hidden temporary file is for; part of its name, `.NAME.PURPOSE-xxxxxxxx`, beside
    /// the file `NAME` it becomes or copies.
    enum Purpose: String {
        /// A new vault (`init`), renamed into place once complete.
        case creating
        /// A consistent copy of a vault, which `backup` encrypts.
        case snapshot
        /// A decrypted backup, verified before it takes the vault's name (`restore`).
        case restoring
        /// A decrypted backup, verified and removed (`verify-backup`).
        case verifying
        /// A file a person asked for (a backup, an export), renamed into place once complete.
        case writing
    }

    /// Creates `path` exclusively with mode 0600 and opens it for writing.
    static func create(_ path: String) throws -> FileHandle {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw VaultError.vaultExists(path: path) }
            throw VaultError.storage("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// A fresh hidden name in the same folder as `path` (so a rename onto `path` is atomic).
    static func temporaryPath(beside path: String, purpose: Purpose) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "." + purpose.rawValue + "-"
            + UUID().uuidString.prefix(8).lowercased()
    }

    /// Moves the complete file `temporary` to `path`: replacing what is there only if `replace`,
    /// else failing with ``VaultError/vaultExists(path:)``; then makes the folder entry durable.
    static func commit(_ temporary: String, to path: String, replace: Bool) throws {
        if replace {
            guard rename(temporary, path) == 0 else { throw VaultError.storage("cannot write \(path): \(String(cString: strerror(errno)))") }
        } else if link(temporary, path) == 0 {
            unlink(temporary)
        } else if errno == EEXIST {
            throw VaultError.vaultExists(path: path)
        } else {
            // File systems without hard links: rename, after checking again that nothing is there.
            guard !FileManager.default.fileExists(atPath: path), rename(temporary, path) == 0 else {
                throw VaultError.storage("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        syncFolder(of: path)
    }

    /// fsync of the folder holding `path`, so a rename survives power loss.
    static func syncFolder(of path: String) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// A folder for scratch files: tmpfs when there is one, else the temporary folder.
    static func scratchFolder() -> String {
        PrivateOutput.tmpfsFolder() ?? NSTemporaryDirectory()
    }

    /// The name scratch files are made beside (``Purpose/verifying``, and snapshots of vaults
    /// in folders jv may not write): `jv` in the scratch folder, or the vault's own name there.
    static func scratchName(for vaultPath: String? = nil) -> String {
        scratchFolder() + "/" + (vaultPath.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "jv")
    }

    /// Removes every copy of the vault at `vaultPath` that a killed `init`, `backup`, `restore`
    /// or `verify-backup` left behind (each is a whole copy of the vault, including records
    /// deleted since, so a leftover would undo `secure_delete`). Copies still in use by a live
    /// process are locked and stay.
    static func removeAbandonedCopies(of vaultPath: String) {
        removeAbandoned(beside: vaultPath, purposes: .creating, .snapshot, .restoring)
        removeAbandoned(beside: scratchName(for: vaultPath), purposes: .snapshot)
        removeAbandoned(beside: scratchName(), purposes: .verifying)
    }

    /// Removes the temporary files of any of `purposes` beside `path` that no live process holds: their
    /// maker holds an exclusive `flock` on each while working on it
    /// (``createLockedTemporary(beside:purpose:)``), and the kernel drops that lock when the
    /// process dies, however it dies. A rollback journal, write-ahead log or shared-memory file
    /// goes with its database, or alone once its database is gone: SQLite never locks it with
    /// `flock`, so it would look abandoned while in use (a backup's snapshot has its journal while
    /// `VACUUM INTO` writes it, and lost it to any other process opening the vault).
    /// (One listing of the folder for all `purposes`.)
    static func removeAbandoned(beside path: String, purposes: Purpose...) {
        let url = URL(fileURLWithPath: path)
        let prefixes = purposes.map { "." + url.lastPathComponent + "." + $0.rawValue + "-" }
        removeAbandoned(in: url.deletingLastPathComponent().path) { name in prefixes.contains(where: name.hasPrefix) }
    }

    /// The same for the temporary files in `folder` whose names `matches` accepts.
    static func removeAbandoned(in folder: String, where matches: (String) -> Bool) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where matches(name) {
            let candidate = folder + "/" + name
            if let companion = databaseCompanions.first(where: name.hasSuffix) {
                // SQLite makes these only once the database exists, and the database goes first
                // when its files are removed; so without it, nobody is using them. (Checked
                // now, not in the listing: a database made while the folder was being listed
                // may be missing from it.)
                var status = stat()
                if lstat(String(candidate.dropLast(companion.count)), &status) != 0, errno == ENOENT { unlink(candidate) }
                continue
            }
            // A second name of a file named elsewhere too (a create or commit killed between its
            // link and its unlink): the name goes, unopened — closing a descriptor on the vault's
            // own file would drop the SQLite locks this process holds on it.
            var status = stat()
            if lstat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink > 1 {
                unlink(candidate)
                continue
            }
            // Non-blocking, so that a FIFO of that name cannot hold the create up.
            let descriptor = open(candidate, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            // The lock is taken on what was opened: the name must still be that file when it goes.
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0, isRegularFile(descriptor, named: candidate) { removeDatabase(candidate) }
        }
    }

    /// Writes `bytes` to a new private file at `path` through a temporary file beside it,
    /// flushed before it takes the name: readers see the whole file or none.
    static func writeWhole(_ bytes: [UInt8], to path: String, replace: Bool) throws {
        let (temporary, handle) = try createLockedTemporary(beside: path, purpose: .writing)
        do {
            // Locked until it has its name, so that no cleaner takes it for abandoned.
            defer { try? handle.close() }
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
            try commit(temporary, to: path, replace: replace)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Creates a new temporary file of `purpose` beside `path`, as ``create(_:)`` does, and
    /// takes an exclusive `flock` on it, held until the handle is closed: the mark of a file in
    /// use, which ``removeAbandoned(beside:purposes:)`` leaves alone.
    static func createLockedTemporary(beside path: String, purpose: Purpose) throws -> (path: String, handle: FileHandle) {
        // Another process's clean-up can open the file between its creation and the lock, take
        // the lock first and remove it; then the file is made again under a new name. Each loss
        // needs another clean-up in that moment, so a few attempts are plenty.
        for _ in 0..<4 {
            let temporary = temporaryPath(beside: path, purpose: purpose)
            let handle = try create(temporary)
            if flock(handle.fileDescriptor, LOCK_EX | LOCK_NB) == 0 {
                if isRegularFile(handle.fileDescriptor, named: temporary) { return (temporary, handle) }
            } else if errno != EWOULDBLOCK {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                try? handle.close()
                throw VaultError.storage("cannot lock a temporary file (\(reason))")
            }
            try? handle.close()
        }
        throw VaultError.storage("cannot create a temporary file beside \(path): other processes keep removing it")
    }

    /// Fills `buffer` from the open file `descriptor` at `offset`; a file that ends before is an error.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws {
        var filled = 0
        while filled < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw VaultError.storage(count == 0 ? "a file ended before its length" : "cannot read a file (\(String(cString: strerror(errno))))") }
            filled += count
        }
    }

    /// Whether `path` names the regular file open as `descriptor` (and not another, or nothing).
    static func isRegularFile(_ descriptor: Int32, named path: String) -> Bool {
        isOpen(descriptor, named: path, ofType: S_IFREG)
    }

    /// Whether `path` names what is open as `descriptor` (and not another, or nothing), and it
    /// is of `type` (`S_IFREG`, `S_IFDIR`): so that a lock taken on what was opened holds for the name.
    static func isOpen(_ descriptor: Int32, named path: String, ofType type: mode_t) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(descriptor, &opened) == 0, lstat(path, &named) == 0 else { return false }
        return opened.st_mode & S_IFMT == type && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    /// ``VaultError/diskFull(folder:)`` when `error` came from writing `path` on a disk with no
    /// room left: SQLite's "full", or an I/O error (SQLite reports a `-shm` it could not size
    /// as one) where the folder has less free space than SQLite needs; a POSIX `ENOSPC` or
    /// `EDQUOT`. Nil for any other error.
    static func diskFull(_ error: Error, writing path: String) -> VaultError? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        switch error {
        case let error as DatabaseError where error.resultCode == .SQLITE_FULL:
            return .diskFull(folder: folder)
        case let error as DatabaseError where error.resultCode == .SQLITE_IOERR:
            var status = statvfs()
            guard statvfs(folder, &status) == 0, UInt64(status.f_bavail) * UInt64(status.f_frsize) < 256 << 10 else { return nil }
            return .diskFull(folder: folder)
        default:
            let reported = error as NSError
            let posix = reported.userInfo[NSUnderlyingErrorKey] as? NSError ?? reported
            let outOfSpace = (posix.domain == NSPOSIXErrorDomain && [Int(ENOSPC), Int(EDQUOT)].contains(posix.code))
                || (reported.domain == NSCocoaErrorDomain && reported.code == CocoaError.fileWriteOutOfSpace.rawValue)
            return outOfSpace ? .diskFull(folder: folder) : nil
        }
    }

    /// Runs `body`, which writes `path`, reporting a full disk as ``VaultError/diskFull(folder:)``.
    static func reportingDiskFull<Result>(writing path: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            throw diskFull(error, writing: path) ?? error
        }
    }

    /// Overwrites the regular file at `path` with zeros and syncs it (its text is gone from
    /// every name it has, and from memory once a tmpfs file's pages are freed).
    static func overwriteWithZeros(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        var remaining = Int(status.st_size)
        let zeros = [UInt8](repeating: 0, count: 4096)
        while remaining > 0 {
            let written = zeros.withUnsafeBytes { write(descriptor, $0.baseAddress, min(remaining, $0.count)) }
            if written <= 0 { break }
            remaining -= written
        }
        fsync(descriptor)
    }

    /// The files SQLite keeps beside a database, named after it.
    private static let databaseCompanions = ["-journal", "-wal", "-shm"]

    /// Removes a database file and its companions.
    static func removeDatabase(_ path: String) {
        for suffix in [""] + databaseCompanions { unlink(path + suffix) }
    }
}
