// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Plaintext for the person's editor (or an attachment for their viewer), kept in memory only: a file in a private folder of its
/// own (`.jv.editing-xxxxxxxx`, mode 0700) inside a tmpfs folder, on which this process holds an
/// exclusive `flock` while the file lives. A process killed outright (SIGKILL cannot be caught)
/// loses the lock with its life, and the next `jv` overwrites and removes what it left
/// (``removeAbandoned(in:)``). The lock is on the folder, not the file: editors save by writing
/// a new file and renaming it over the old one, and leave backups beside it.
///
/// ```swift
/// let file = try EditorFile(in: "/dev/shm", holding: Array(text.utf8))
/// defer { file.remove() }
/// // run the editor on file.path
/// let saved = file.read()
/// ```
public final class EditorFile {
    /// The file the editor opens.
    public let path: String
    private let folder: String
    private let lock: Int32

    /// What starts the name of each edit's folder.
    private static let folderPrefix = ".jv.editing-"

    /// Creates the folder and the file holding `bytes` in `parent`, which must be on tmpfs.
    public convenience init(in parent: String, holding bytes: [UInt8]) throws {
        try self.init(in: parent, named: "jv.txt") { try $0.write(contentsOf: bytes) }
    }

    /// Creates the folder and in it the file `name` (a file name, not a path), filled by `write`,
    /// in `parent`, which must be on tmpfs: an attachment opened in a viewer keeps its own name,
    /// which is how the viewer knows its type. Nothing is left when `write` throws; a
    /// ``VaultError`` it throws (a damaged attachment) is thrown as it is.
    public init(in parent: String, named name: String, writing write: (FileHandle) throws -> Void) throws {
        (folder, lock) = try Self.createLockedFolder(in: parent)
        path = folder + "/" + name
        do {
            let handle = try PrivateFiles.create(path)
            defer { try? handle.close() }
            try write(handle)
        } catch let error as VaultError {
            remove()
            throw error
        } catch {
            remove()
            throw VaultError.storage("cannot write a private temporary file in \(parent)")
        }
    }

    /// What the file holds now (nothing, if the editor removed it).
    public func read() -> [UInt8] {
        Array(FileManager.default.contents(atPath: path) ?? Data())
    }

    /// Overwrites with zeros and removes the file and whatever the editor left beside it, then
    /// lets the lock go.
    public func remove() {
        Self.wipeAndRemove(folder)
        close(lock)
    }

    /// Moves the file to `kept` (outside the folder, where no clean-up looks) and removes the
    /// rest as ``remove()`` does; false if it could not be moved (it is removed then too).
    public func keep(as kept: String) -> Bool {
        defer { remove() }
        return rename(path, kept) == 0
    }

    /// Overwrites and removes what edits that no live process holds left in `parents` (this
    /// user's only); returns how many edits' files went.
    public static func removeAbandoned(in parents: [String]) -> Int {
        var removed = 0
        for parent in parents {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { continue }
            for name in names where name.hasPrefix(folderPrefix) {
                let candidate = parent + "/" + name
                // Only this user's: another's folder is theirs to clean.
                guard let descriptor = locked(candidate, ownedBy: geteuid()) else { continue }
                defer { close(descriptor) }
                wipeAndRemove(candidate)
                removed += 1
            }
        }
        return removed
    }

    /// A new private folder in `parent`, locked. Another process's clean-up may lock it between
    /// its creation and the lock and remove it; then another is made.
    private static func createLockedFolder(in parent: String) throws -> (String, Int32) {
        for _ in 0..<4 {
            let folder = parent + "/" + folderPrefix + UUID().uuidString.prefix(8).lowercased()
            guard mkdir(folder, 0o700) == 0 else {
                if errno == EEXIST { continue }
                throw VaultError.storage("cannot create a private folder in \(parent): \(String(cString: strerror(errno)))")
            }
            if let descriptor = locked(folder, ownedBy: nil) { return (folder, descriptor) }
        }
        throw VaultError.storage("cannot create a private folder in \(parent): other processes keep removing it")
    }

    /// A descriptor of the folder at `path` (not a link), locked by this process, that `path` still
    /// names once locked, and owned by `owner` when given; nil when any of that fails.
    private static func locked(_ path: String, ownedBy owner: uid_t?) -> Int32? {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, owner.map({ status.st_uid == $0 }) ?? true, flock(descriptor, LOCK_EX | LOCK_NB) == 0,
              PrivateFiles.isOpen(descriptor, named: path, ofType: S_IFDIR) else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Overwrites every regular file in `folder` with zeros, removes it, and removes the folder.
    private static func wipeAndRemove(_ folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let file = folder + "/" + name
            var status = stat()
            guard lstat(file, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFREG { PrivateFiles.overwriteWithZeros(file) }
            unlink(file)
        }
        rmdir(folder)
    }
}
