// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What one `jv sync` of a vault holds for its whole run (FORMAT.md §14.1), so that a second one
/// of the same vault file waits for it. Each step of a sync acts on what it has just read of the
/// vault and of this device's folder — the next pack's number, a temporary pack to finish or to
/// remove, the keys file to write — and two runs interleaved undo each other's work: one removed
/// the other's pack while it was being written, after its number was recorded as sent.
///
/// An exclusive `flock` on `.NAME.sync-lock` beside the vault file `NAME`, removed on release so
/// that nothing stays beside the vault. A process that waited on the file just removed finds its
/// name gone (or another file's) once it has the lock, and locks again.
final class SyncLock {
    private let path: String
    private let descriptor: Int32

    /// Waits until no other process syncs the vault at `vaultPath`, then holds the lock.
    init(vault vaultPath: String) throws {
        path = SyncLayout.lockFile(vault: vaultPath)
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
            guard descriptor >= 0 else {
                let code = errno
                throw PrivateFiles.diskFull(NSError(domain: NSPOSIXErrorDomain, code: Int(code)), writing: path)
                    ?? VaultError.storage("cannot lock \(path): \(String(cString: strerror(code)))")
            }
            var locked: Int32
            repeat { locked = flock(descriptor, LOCK_EX) } while locked != 0 && errno == EINTR
            if locked == 0, PrivateFiles.isRegularFile(descriptor, named: path) {
                self.descriptor = descriptor
                return
            }
            let reason = String(cString: strerror(errno))
            close(descriptor)
            guard locked == 0 else { throw VaultError.storage("cannot lock \(path): \(reason)") }
        }
    }

    /// Removes the file while still holding it, then lets go.
    func release() {
        unlink(path)
        close(descriptor)
    }

    /// Runs `body` holding the lock of the vault at `vaultPath`.
    static func holding<Result>(vault vaultPath: String, _ body: () throws -> Result) throws -> Result {
        let lock = try SyncLock(vault: vaultPath)
        defer { lock.release() }
        return try body()
    }
}
