import Foundation

/// Files only their owner can read, created without races and made durable on request.
enum PrivateFiles {
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
    static func temporaryPath(beside path: String, purpose: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "." + purpose + "-"
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

    /// Removes the temporary files of `purpose` beside `path` that no live process holds: their
    /// maker took an exclusive `flock` on each while working on it (``lockExclusively(_:)``), and
    /// the kernel drops that lock when the process dies, however it dies.
    static func removeAbandoned(beside path: String, purpose: String) {
        let url = URL(fileURLWithPath: path)
        let prefix = "." + url.lastPathComponent + "." + purpose + "-"
        let folder = url.deletingLastPathComponent().path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) && !name.hasSuffix("-wal") && !name.hasSuffix("-shm") {
            let candidate = folder + "/" + name
            let descriptor = open(candidate, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { removeDatabase(candidate) }
        }
    }

    /// Holds an exclusive `flock` on `handle`'s file until it is closed: the mark of a temporary
    /// file in use (see ``removeAbandoned(beside:purpose:)``).
    static func lockExclusively(_ handle: FileHandle) throws {
        guard flock(handle.fileDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw VaultError.storage("cannot lock a temporary file (\(String(cString: strerror(errno))))")
        }
    }

    /// Removes a database file and its write-ahead-log companions.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }
}
