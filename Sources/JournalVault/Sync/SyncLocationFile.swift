// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Opening a file of the sync location, where anyone who can write there may have put anything
/// under any name: never through a symbolic link, never waiting on a FIFO or a device
/// (`O_NOFOLLOW | O_NONBLOCK`), and only a regular file — a pack, snapshot, keys, acks or
/// rotation file is nothing else. Every file of the location jv reads is opened here.
enum SyncLocationFile {
    /// The largest keys, acks or rotation file read whole: an acks file naming 65,535 devices
    /// is 1.5 MiB, and every other is far smaller.
    static let smallFileLimit = 2 << 20

    /// The regular file at `path`, open for reading. Throws ``VaultError/syncPackRefused(_:)``
    /// for anything else of that name, and ``VaultError/storage(_:)`` when nothing can be opened.
    static func open(_ path: String) throws -> FileHandle {
        let descriptor = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw VaultError.syncPackRefused("it is not a regular file") }
            throw VaultError.storage("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw VaultError.syncPackRefused("it is not a regular file")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The whole of a small file (keys, acks, rotation) at `path`; nil when there is none, or
    /// what is there is not a regular file, or is larger than any such file.
    static func contents(_ path: String) -> Data? {
        guard let handle = try? open(path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: smallFileLimit + 1) ?? Data(), data.count <= smallFileLimit else { return nil }
        return data
    }
}
